//! Section 1: where the live inserts land, per key design, in the table and in an index.

use super::designs::{
    CUSTOMER_FIRST, CUSTOMER_SHARD, Design, SHARD_PREFIX, SHARD_THEN_TIME, TIMESTAMP_FIRST,
    measure_design, written,
};
use crate::scenarios::SHARDS;
use labkit::Observation;
use sim_ranges::busiest_share;

/// The busiest split's share of the live writes of an index on `column`, under `design`.
fn index_busiest_share(design: &Design, column: &str) -> f64 {
    let (table, _) = written(design, SHARDS, Some(column));
    busiest_share(table.index("Index").expect("index").writes_per_split())
}

/// With `created_at` first, once the live orders are in: the rows of the last split and
/// the rows of all the others.
fn rows_last_and_rest() -> (usize, usize) {
    let (table, _) = written(&TIMESTAMP_FIRST, SHARDS, None);
    let data = table.data();
    let last = data.splits() - 1;
    let in_last = (data.rows())
        .filter(|(key, _)| data.split_of(key) == last)
        .count();
    (in_last, data.len() - in_last)
}

pub fn observe(obs: &mut Observation) {
    let (in_last, in_others) = rows_last_and_rest();
    obs.ask("With `TIMESTAMP_FIRST`, once the live orders are in, does the table's last split hold more rows than the other seven splits together?", in_last > in_others);
    let sixteen = measure_design(&SHARD_PREFIX, 16, false);
    obs.ask(
        "Variation: `SHARD_PREFIX` with N = 16. Does split 1 take any live inserts?",
        sixteen.writes_per_split[0] > 0,
    );
    let under_shards = index_busiest_share(&SHARD_PREFIX, "customer");
    let under_time = index_busiest_share(&TIMESTAMP_FIRST, "customer");
    obs.ask("Variation: the table gets an index on `customer`. Does the index's busiest split take a smaller share of the index's live writes under the `SHARD_PREFIX` table (N = 4) than under the `TIMESTAMP_FIRST` table?", under_shards < under_time);
    let customer_first = measure_design(&CUSTOMER_FIRST, SHARDS, false);
    obs.ask(
        "Variation: the key `(customer, created_at, order_id)`. Does split 2 take any live inserts?",
        customer_first.writes_per_split[1] > 0,
    );
    obs.ask("Variation: the key `(customer, created_at, order_id)`. Does its busiest split take more than a quarter of the live inserts?", customer_first.busiest_share > 0.25);
    customer_shard(obs);
    without_order_id(obs);
}

/// The shard taken from the customer instead of the order.
fn customer_shard(obs: &mut Observation) {
    let m = measure_design(&CUSTOMER_SHARD, SHARDS, false);
    let answer = match m.busiest_share {
        s if s <= 0.275 => "a",
        s if s <= 0.4 => "b",
        s if s <= 0.625 => "c",
        _ => "d",
    };
    let evidence = format!(
        "writes per split {:?}: the busiest took {:.3}",
        m.writes_per_split, m.busiest_share
    );
    obs.choose("Variation: the shard taken from the customer id instead of the order id (N = 4). What share of the live inserts does the busiest split take?", answer, evidence);
}

/// `(shard, created_at)`: the shard prefix without the business key.
fn without_order_id(obs: &mut Observation) {
    let m = measure_design(&SHARD_THEN_TIME, SHARDS, false);
    let refused = m.collisions.len();
    let answer = match refused {
        0 => "d",
        1..=40 => "c",
        41..=150 => "b",
        _ => "a",
    };
    let evidence = format!("{refused} of the orders refused");
    obs.choose("Variation: `SHARD_PREFIX` without `order_id`, key `(shard, created_at)` with N = 4. Of all the orders, history and live, how many does the store refuse with ALREADY_EXISTS?", answer, evidence);
}
