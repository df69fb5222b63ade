//! Lab 10 graded suite, compiled into both the learner's crate and the reference solution.
//! Run it with `cargo labs check 10`.

use labkit::fault::{self, Failure, Token};
use topic_to_table::invariants::{exactly_once_in_the_sink, faults_fired, no_loss};
use topic_to_table::scenarios::{
    CHAOS_SEED, Config, Invariant, Protocol, chaos_run, explore_direct, explore_small, small_scope,
};

/// Your transaction bodies (`src/pipeline.rs`), as the scenarios take them.
const YOURS: Protocol = topic_to_table::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    an_aborted_producer_attempt_keeps_its_sequence_number,
    a_declined_business_transaction_publishes_nothing,
    a_rolled_back_consumer_attempt_reads_the_same_batch_again,
    an_unknown_commit_outcome_is_settled_by_reading_durable_state,
    every_schedule_of_the_small_scope_with_two_faults_keeps_exactly_once,
    no_forward_gap_in_any_producer_sequence_under_seeded_chaos,
    the_audit_reads_every_committed_message_back_from_the_sink_exactly_once,
    lock_conflicts_fired_and_the_retry_loop_absorbed_them,
    the_same_seed_gives_the_same_run,
];

fn an_aborted_producer_attempt_keeps_its_sequence_number() {
    explore_direct(YOURS, "producer", 2).assert_ok_reaching(2);
}

fn a_declined_business_transaction_publishes_nothing() {
    explore_direct(YOURS, "declined", 1).assert_ok_reaching(1);
}

fn a_rolled_back_consumer_attempt_reads_the_same_batch_again() {
    explore_direct(YOURS, "consumer", 2).assert_ok_reaching(2);
}

fn an_unknown_commit_outcome_is_settled_by_reading_durable_state() {
    explore_direct(YOURS, "unknown", 1).assert_ok_reaching(1);
}

fn every_schedule_of_the_small_scope_with_two_faults_keeps_exactly_once() {
    let exploration = explore_small(YOURS, 2);
    exploration.assert_ok_reaching(2);
    assert!(
        exploration.schedules <= 50_000,
        "the scope grew to {} schedules",
        exploration.schedules
    );
}

fn report(failure: Option<Failure>) {
    if let Some(failure) = failure {
        panic!("\n{failure:width$}\n", width = fault::output_width());
    }
}

fn chaos(invariant: Invariant) {
    let (_, failure) = chaos_run(CHAOS_SEED, Config::CHAOS, YOURS, invariant);
    report(failure);
}

fn no_forward_gap_in_any_producer_sequence_under_seeded_chaos() {
    chaos(no_loss);
}

fn the_audit_reads_every_committed_message_back_from_the_sink_exactly_once() {
    chaos(exactly_once_in_the_sink);
}

fn lock_conflicts_fired_and_the_retry_loop_absorbed_them() {
    chaos(faults_fired);
}

fn the_same_seed_gives_the_same_run() {
    let run = || chaos_run(CHAOS_SEED, Config::CHAOS, YOURS, no_loss).0;
    let (first, second) = (run(), run());
    assert!(
        first.signals == second.signals && first.windows == second.windows,
        "the same seed gave two different runs: {:?} and then {:?}",
        first.signals,
        second.signals
    );
    let tokens = Token::parse_all(&[
        "v2:",
        "v2:0.0.0.0.0.0.0.3@68c04",
        "v2:0.0.0.3.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.4@e7053",
    ]);
    assert_eq!(
        fault::check_determinism(&tokens, |sim| small_scope(YOURS, sim)),
        Ok(3)
    );
}
