//! Lab 04 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 04`.

use hotspots::invariants::{self, assert_holds};
use hotspots::scenarios::{
    Design, SHARDS, explore_retried_inserts, measure_learner_design, retried_inserts, workload,
};
use hotspots::world::Part;
use labkit::fault::{self, Token};

/// Your `physical_key` and `time_window` (`src/keys.rs`), as the scenarios take them.
const YOURS: Design = hotspots::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    busiest_range_share_near_one_over_n,
    every_order_gets_a_row_of_its_own,
    time_range_query_touches_at_most_n_ranges,
    time_range_query_reads_at_most_twice_the_rows_it_returns,
    time_range_query_returns_exactly_the_orders_in_the_window,
    the_design_holds_for_another_shard_count,
    the_business_key_stays_intact_beside_the_physical_key,
    a_retried_insert_finds_the_same_row_under_every_schedule,
    the_same_schedule_gives_the_same_timeline,
];

fn busiest_range_share_near_one_over_n() {
    let m = measure_learner_design(YOURS, SHARDS);
    assert_holds(invariants::busiest_split(&m, SHARDS), SHARDS, &m);
}

fn time_range_query_touches_at_most_n_ranges() {
    let m = measure_learner_design(YOURS, SHARDS);
    assert_holds(invariants::fan_out(&m, SHARDS), SHARDS, &m);
}

fn time_range_query_reads_at_most_twice_the_rows_it_returns() {
    let m = measure_learner_design(YOURS, SHARDS);
    assert_holds(invariants::rows_read(&m), SHARDS, &m);
}

fn time_range_query_returns_exactly_the_orders_in_the_window() {
    let m = measure_learner_design(YOURS, SHARDS);
    assert_holds(invariants::exact_result(&m), SHARDS, &m);
}

/// N is a setting of the deployment, not a constant of the code: the same design with
/// two shards must meet every bound for two.
fn the_design_holds_for_another_shard_count() {
    let m = measure_learner_design(YOURS, 2);
    assert_holds(invariants::design(&m, 2), 2, &m);
}

fn every_order_gets_a_row_of_its_own() {
    let m = measure_learner_design(YOURS, SHARDS);
    assert_holds(invariants::every_order_stored(&m), SHARDS, &m);
}

fn the_business_key_stays_intact_beside_the_physical_key() {
    let (history, live) = workload();
    for order in history.iter().chain(&live).take(200) {
        let key = (YOURS.physical_key)(order, SHARDS);
        assert!(
            key.parts().contains(&Part::from(order.order_id.as_str())),
            "the key {key} of order {} does not carry its business key `{}` as one of its parts",
            order.order_id,
            order.order_id
        );
        let again = (YOURS.physical_key)(&order.clone(), SHARDS);
        assert!(
            again == key,
            "the key of order {} was {key}, and {again} when computed again from the same order",
            order.order_id
        );
    }
}

fn a_retried_insert_finds_the_same_row_under_every_schedule() {
    let exploration = explore_retried_inserts(YOURS);
    exploration.assert_ok();
    assert!(
        exploration.schedules == 16,
        "every combination of lost responses for 4 orders is 16 schedules, not {}",
        exploration.schedules
    );
}

fn the_same_schedule_gives_the_same_timeline() {
    let tokens = Token::parse_all(&["v2:", "v2:1@adecb", "v2:0.1.0.1@161df"]);
    match fault::check_determinism(&tokens, |sim| retried_inserts(YOURS, sim)) {
        Ok(checked) => assert!(checked == 3, "{checked} of 3 schedules were replayed"),
        Err(difference) => panic!("\nthe same token, two timelines: {difference}"),
    }
    assert!(
        measure_learner_design(YOURS, SHARDS) == measure_learner_design(YOURS, SHARDS),
        "the same workload measured twice gave two different results"
    );
}
