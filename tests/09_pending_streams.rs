//! Lab 09 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 09`. Every test explores schedules of a
//! scenario; a failure prints the schedule's timeline, what it broke and why, and the
//! command that replays it.

use labkit::fault::{self, CrashMatrix, Token, output_width};
use pending_streams::scenarios::{
    Protocol, batch_scenario, explore_batch, explore_case, explore_every_single_fault,
};

/// Your `run_coordinator` (`src/coordinator.rs`), as the scenarios take it.
const YOURS: Protocol = pending_streams::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_batch_commits_once_and_records_the_commit_time,
    a_lost_commit_response_is_settled_by_inspection_not_by_replay,
    a_commit_lost_before_it_was_applied_is_sent_again,
    a_lost_append_response_is_finished_on_the_same_stream,
    no_row_is_lost_or_doubled_when_one_fault_strikes,
    exactly_once_under_every_schedule_with_two_faults,
    the_crash_matrix_has_no_failing_cell,
    every_schedule_replays_identically,
];

/// No fault: both ranges committed once, D1 COMMITTED with the service's commit time.
fn the_fault_free_batch_commits_once_and_records_the_commit_time() {
    explore_batch(YOURS, 0).assert_ok();
}

/// The chapter's headline: the group is committed and the response is lost. The
/// coordinator settles it by inspecting the streams (GetWriteStream's commit_time), keeps
/// that commit time, and creates no replacement stream.
fn a_lost_commit_response_is_settled_by_inspection_not_by_replay() {
    explore_case(YOURS, "lost-commit").assert_ok();
}

/// The commit request never reaches the service. Inspection shows no commit time, so
/// the same group is committed again, and that commit's time is recorded.
fn a_commit_lost_before_it_was_applied_is_sent_again() {
    explore_case(YOURS, "lost-request").assert_ok();
}

/// W1's append is applied and its response lost. The range keeps its stream: the rows are
/// resent at the same offset (or found there), and no second stream receives them.
fn a_lost_append_response_is_finished_on_the_same_stream() {
    explore_case(YOURS, "lost-append").assert_ok();
}

fn no_row_is_lost_or_doubled_when_one_fault_strikes() {
    explore_batch(YOURS, 1).assert_ok_reaching(1);
}

fn exactly_once_under_every_schedule_with_two_faults() {
    explore_batch(YOURS, 2).assert_ok_reaching(2);
}

/// Every one-fault schedule passes, and the lost commit response is among them.
fn the_crash_matrix_has_no_failing_cell() {
    let exploration = explore_every_single_fault(YOURS);
    let matrix = CrashMatrix::from_exploration(&exploration);
    if let Some(failure) = &exploration.failure {
        let width = output_width();
        let rendered = matrix.render_width(width);
        panic!("\n{rendered}\n{failure:width$}\n");
    }
    let commit = "writeapi:BatchCommitWriteStreams=applied, response lost";
    assert!(
        matrix.cell(commit).is_some(),
        "the lost commit response is not in the matrix:\n{}",
        matrix.render()
    );
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.1.0.0.0.0.0.0.0.1@bb9c4",
        "v2:0.0.0.1.0.0.0.0.0.1@d3637",
        "v2:0.0.0.0.0.1.0.0.0.0.0.0.0.1@e2946",
        "v2:0.0.0.0.0.0.0.0.0.0.1.0.0.0.0.0.0.0.0.0.0.1@34d43",
    ]);
    if let Err(difference) = fault::check_determinism(&sample, |sim| batch_scenario(YOURS, sim)) {
        panic!("{difference}");
    }
}
