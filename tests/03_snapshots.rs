//! Lab 03 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 03`.

use labkit::fault::{self, Token};
use pretty_assertions::assert_eq;
use snapshots::scenarios::{
    Protocol, explore_crashes, explore_lost_unit, explore_reconciliation, explore_reservations,
    reconciliation, reservations,
};

/// Your `reserve` and `reconcile` (`src/reserve.rs`), as the scenarios take them.
const YOURS: Protocol = snapshots::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    one_request_alone_reserves_and_a_sold_out_one_writes_nothing,
    reservations_never_oversell_under_any_interleaving,
    a_crash_between_two_statements_loses_no_unit,
    a_report_alone_adds_up_to_the_stock,
    reconciliation_totals_agree_under_any_interleaving,
    the_report_shows_a_unit_an_earlier_crash_lost,
    the_same_schedule_gives_the_same_timeline,
];

fn one_request_alone_reserves_and_a_sold_out_one_writes_nothing() {
    // The three requests one after the other, nobody arriving early: two are confirmed,
    // the third is told sold out and writes nothing.
    explore_reservations(YOURS, 0).assert_ok();
}

fn reservations_never_oversell_under_any_interleaving() {
    // Two early arrivals are all there are (r2 and r3 each arrive once), so a budget of
    // two explores every schedule.
    explore_reservations(YOURS, 2).assert_ok_reaching(2);
}

fn a_crash_between_two_statements_loses_no_unit() {
    // The requests one after the other; the process of any of them may crash before any
    // of its statements (its connection closes), and its client sends it again.
    explore_crashes(YOURS, 1).assert_ok_reaching(1);
}

fn a_report_alone_adds_up_to_the_stock() {
    explore_reconciliation(YOURS, 0).assert_ok();
}

fn reconciliation_totals_agree_under_any_interleaving() {
    explore_reconciliation(YOURS, 2).assert_ok_reaching(2);
}

fn the_report_shows_a_unit_an_earlier_crash_lost() {
    // An earlier reservation took a unit and crashed before writing its row: the
    // database holds rows for 2 units and shows 7 of 10 available.
    explore_lost_unit(YOURS).assert_ok();
}

fn the_same_schedule_gives_the_same_timeline() {
    let tokens = Token::parse_all(&["v2:", "v2:0.1@edea0", "v2:0.0.2.1@88afe"]);
    assert_eq!(
        fault::check_determinism(&tokens, |sim| reservations(YOURS, sim)),
        Ok(3)
    );
    let tokens = Token::parse_all(&["v2:", "v2:0.1@bbce3", "v2:0.2@8d387"]);
    assert_eq!(
        fault::check_determinism(&tokens, |sim| reconciliation(YOURS, sim)),
        Ok(3)
    );
}
