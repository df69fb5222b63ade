//! Lab 05 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 05`.

use labkit::fault::{self, Token};
use ordering::invariants::{ALL_INVARIANTS, Invariant};
use ordering::scenarios::{explore_ledger, ledger_scenario};
use pretty_assertions::assert_eq;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_fault_free_run_applies_every_effect_once,
    no_message_is_lost_when_the_consumer_crashes,
    no_effect_is_applied_twice_when_an_ack_is_lost,
    each_account_is_applied_in_sequence,
    balances_equal_the_fault_free_run_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn the_fault_free_run_applies_every_effect_once() {
    explore_ledger(0, &ALL_INVARIANTS).assert_ok();
}

fn no_message_is_lost_when_the_consumer_crashes() {
    explore_ledger(1, &[Invariant::NoMessageLost]).assert_ok();
}

fn no_effect_is_applied_twice_when_an_ack_is_lost() {
    explore_ledger(1, &[Invariant::NoEffectTwice]).assert_ok();
}

fn each_account_is_applied_in_sequence() {
    explore_ledger(1, &[Invariant::InSequence]).assert_ok();
}

fn balances_equal_the_fault_free_run_under_every_schedule_with_two_faults() {
    explore_ledger(2, &ALL_INVARIANTS).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:1@35b14",
        "v2:0.0.1@9f9bf",
        "v2:0.0.0.1.0.1@9259d",
        "v2:0.1.0.0.0.0.1@8cab3",
    ]);
    let checked = fault::check_determinism(&sample, |sim| ledger_scenario(sim, &ALL_INVARIANTS));
    assert_eq!(checked, Ok(sample.len()));
}
