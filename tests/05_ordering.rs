//! Lab 05 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 05`.
//!
//! Each test explores one graded world (`scenarios.rs`): the faults it lets happen, up to
//! a budget. Every test checks every invariant (`invariants.rs`) once the faults stopped
//! and the backlog drained.

use labkit::fault;
use ordering::scenarios::{
    BUSY_LEDGER, CRASHES, EVERYTHING, LOST_ACKS, Protocol, REPUBLISHED, STALLS, explore,
    ledger_scenario, schedules,
};
use pretty_assertions::assert_eq;

/// Your `handle` (`src/consumer.rs`), as the scenarios take it.
const YOURS: Protocol = ordering::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_run_applies_every_effect_once,
    a_crash_loses_nothing_and_repeats_nothing,
    a_lost_ack_repeats_nothing,
    a_busy_ledger_keeps_each_account_in_sequence,
    a_stalled_consumer_repeats_nothing,
    an_effect_published_twice_is_applied_once,
    every_invariant_holds_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn the_fault_free_run_applies_every_effect_once() {
    explore(YOURS, &EVERYTHING, 0).assert_ok();
}

fn a_crash_loses_nothing_and_repeats_nothing() {
    explore(YOURS, &CRASHES, 1).assert_ok_reaching(1);
}

fn a_lost_ack_repeats_nothing() {
    explore(YOURS, &LOST_ACKS, 1).assert_ok_reaching(1);
}

fn a_busy_ledger_keeps_each_account_in_sequence() {
    explore(YOURS, &BUSY_LEDGER, 1).assert_ok_reaching(1);
}

fn a_stalled_consumer_repeats_nothing() {
    explore(YOURS, &STALLS, 1).assert_ok_reaching(1);
}

fn an_effect_published_twice_is_applied_once() {
    explore(YOURS, &REPUBLISHED, 1).assert_ok_reaching(1);
}

fn every_invariant_holds_under_every_schedule_with_two_faults() {
    explore(YOURS, &EVERYTHING, 2).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    // Every schedule with one fault, replayed from its token: the same timeline twice.
    let sample = schedules(YOURS, &EVERYTHING, 1);
    let checked = fault::check_determinism(&sample, |sim| ledger_scenario(YOURS, sim, &EVERYTHING));
    assert_eq!(checked, Ok(sample.len()));
}
