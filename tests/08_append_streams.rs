//! Lab 08 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 08`. Every test explores schedules of a
//! scenario; a failure prints the schedule's timeline, what it broke and why, and the
//! command that replays it.

use append_streams::scenarios::{
    MATRIX, Protocol, explore, explore_every_single_fault, explore_fence, run_ledger,
};
use labkit::fault::{self, CrashMatrix, Token, output_width};

/// Your functions (`src/ledger.rs`), as the scenarios take them.
const YOURS: Protocol = append_streams::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_seed_ledger_writes_a_at_0_and_b_at_3_then_checkpoints_1005,
    a_lost_response_is_recovered_on_the_same_stream_and_offset,
    a_stale_epoch_cannot_move_a_record,
    a_stale_epoch_cannot_move_the_checkpoint,
    already_exists_without_journal_proof_holds_for_reconciliation,
    a_schema_rejection_freezes_b_and_writes_a_new_identity,
    every_crash_point_and_lost_response_of_the_ledger,
    a_stale_owner_waking_after_a_takeover_changes_nothing,
    schema_rejection_under_every_crash_point,
    a_source_that_no_longer_reproduces_a_batch_is_held,
    the_crash_matrix_has_no_failing_cell,
    every_schedule_replays_identically,
];

/// The ledger, fault-free: A = 1000–1002 at offset 0, B = 1003–1004 at offset 3,
/// both on one created stream, checkpoint 1005.
fn the_seed_ledger_writes_a_at_0_and_b_at_3_then_checkpoints_1005() {
    explore(YOURS, "ledger", 0).assert_ok();
}

/// A lost response: A is appended, its response is lost and the process dies waiting. The
/// restart reuses the stream and offset 0, gets ALREADY_EXISTS, and the journal proves it
/// is A; B stays at offset 3.
fn a_lost_response_is_recovered_on_the_same_stream_and_offset() {
    explore(YOURS, "lost-response", 0).assert_ok();
}

fn a_stale_epoch_cannot_move_a_record() {
    explore_fence(YOURS, "fence-record").assert_ok();
}

fn a_stale_epoch_cannot_move_the_checkpoint() {
    explore_fence(YOURS, "fence-checkpoint").assert_ok();
}

/// The "wrong offset" drill: another client occupies the offsets. ALREADY_EXISTS for a
/// batch the journal never sent is not evidence: the writer holds, and so does the next
/// process, with the checkpoint where it was.
fn already_exists_without_journal_proof_holds_for_reconciliation() {
    explore(YOURS, "drill", 0).assert_ok();
}

/// Position 1004 carries a value its column cannot take. B is rejected with a row error
/// (nothing appended): the old record is frozen, 1004 quarantined, and a new identity
/// with one row takes offset 3.
fn a_schema_rejection_freezes_b_and_writes_a_new_identity() {
    explore(YOURS, "schema", 0).assert_ok();
}

fn every_crash_point_and_lost_response_of_the_ledger() {
    explore(YOURS, "ledger", 2).assert_ok_reaching(2);
}

fn a_stale_owner_waking_after_a_takeover_changes_nothing() {
    explore(YOURS, "stale-owner", 2).assert_ok_reaching(2);
}

fn schema_rejection_under_every_crash_point() {
    explore(YOURS, "schema", 2).assert_ok_reaching(2);
}

/// The source stops returning position 1001 after the first process ends unfinished:
/// a batch that no longer reproduces is held, never sent under its old identity.
fn a_source_that_no_longer_reproduces_a_batch_is_held() {
    explore(YOURS, "changed-source", 1).assert_ok_reaching(1);
}

/// Every one-fault schedule of a first owner that may pause passes.
fn the_crash_matrix_has_no_failing_cell() {
    let exploration = explore_every_single_fault(YOURS);
    let matrix = CrashMatrix::from_exploration(&exploration);
    if let Some(failure) = &exploration.failure {
        let width = output_width();
        let rendered = matrix.render_width(width);
        panic!("\n{rendered}\n{failure:width$}\n");
    }
    assert!(
        matrix.rows.len() >= 8,
        "every crash point appears:\n{}",
        matrix.render()
    );
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.1@d6686",
        "v2:0.0.0.0.0.1.0.1@ff4b1",
        "v2:0.0.0.0.0.0.0.0.0.1.0.0.0.0.0.0.0.1@86094",
        "v2:0.0.0.0.0.0.0.0.0.0.0.0.0.0.2.0.0.0.0.0.1@cbebb",
        "v2:0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.0.0.0.0.0.0.0.0.0.0.0.1@12820",
    ]);
    let checked = fault::check_determinism(&sample, |sim| run_ledger(YOURS, sim, MATRIX));
    if let Err(difference) = checked {
        panic!("{difference}");
    }
}
