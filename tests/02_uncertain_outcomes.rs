//! Lab 02 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 02`.

use labkit::fault::{self, Token};
use pretty_assertions::assert_eq;
use uncertain_outcomes::invariants::{ALL_EVIDENCE, ALL_INVARIANTS, Evidence, Invariant};
use uncertain_outcomes::scenarios::{
    Protocol, Rerun, explore_reconciliation, explore_settlement, settlement_scenario,
    settlement_scope,
};

/// Your `settle` and `reconcile` (`src/settlement.rs`), as the scenarios take them.
const YOURS: Protocol = uncertain_outcomes::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_settlement_charges_each_intent_once,
    no_intent_is_charged_twice_when_a_commit_aborts_or_times_out,
    every_charge_has_its_intent_recorded_when_a_process_stops,
    no_intent_is_charged_again_when_the_job_runs_again_the_next_day,
    every_intent_is_settled_exactly_once_under_every_schedule_with_two_faults,
    reconciliation_relates_every_receipt_to_its_intent,
    reconciliation_keeps_the_evidence_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn the_fault_free_settlement_charges_each_intent_once() {
    explore_settlement(YOURS, Rerun::AtOnce, 0, &ALL_INVARIANTS).assert_ok();
}

fn no_intent_is_charged_twice_when_a_commit_aborts_or_times_out() {
    // Every schedule with one fault; the job runs again a minute after a stop.
    explore_settlement(YOURS, Rerun::AtOnce, 1, &[Invariant::ChargedAtMostOnce]).assert_ok();
}

fn every_charge_has_its_intent_recorded_when_a_process_stops() {
    explore_settlement(YOURS, Rerun::AtOnce, 1, &[Invariant::RecordedBeforeCharged]).assert_ok();
}

fn no_intent_is_charged_again_when_the_job_runs_again_the_next_day() {
    // Every schedule with one fault; the job runs again a day after a stop, when the
    // processor has pruned every idempotency key the stopped process used.
    explore_settlement(YOURS, Rerun::NextDay, 1, &[Invariant::ChargedAtMostOnce]).assert_ok();
}

fn every_intent_is_settled_exactly_once_under_every_schedule_with_two_faults() {
    // The job runs again a minute or a day after a stop: the fault core chooses, and a
    // day is one of the two faults.
    explore_settlement(YOURS, Rerun::EitherWay, 2, &ALL_INVARIANTS).assert_ok_reaching(2);
}

fn reconciliation_relates_every_receipt_to_its_intent() {
    explore_reconciliation(YOURS, 0, &[Evidence::EveryReceiptRelated]).assert_ok();
}

fn reconciliation_keeps_the_evidence_under_every_schedule_with_two_faults() {
    explore_reconciliation(YOURS, 2, &ALL_EVIDENCE).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    // A sample of one-fault schedules of the learner's own code, each replayed twice.
    let all = fault::explore_all(settlement_scope(Rerun::EitherWay, 1), |sim| {
        settlement_scenario(YOURS, sim, Rerun::EitherWay, &ALL_INVARIANTS)
    });
    let sample: Vec<Token> = all
        .runs
        .iter()
        .step_by(3)
        .map(|r| r.token.clone())
        .collect();
    let checked = fault::check_determinism(&sample, |sim| {
        settlement_scenario(YOURS, sim, Rerun::EitherWay, &ALL_INVARIANTS)
    });
    assert_eq!(checked, Ok(sample.len()));
}
