//! Lab 08 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 08`.

use append_streams::harness::Stop;
use append_streams::harness::{
    self, Ending, Record, SOURCE_END, Setup, crash_matrix, explore_ledger,
    explore_schema_rejection, explore_stale_owner, ledger_scenario, run_ledger,
};
use append_streams::ledger::{acquire_lease, advance_checkpoint, transition};
use labkit::fault::{self, Sim, Token};
use pretty_assertions::assert_eq;
use rusqlite::Connection;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_seed_ledger_writes_a_at_0_and_b_at_3_then_checkpoints_1005,
    a_lost_response_is_recovered_on_the_same_stream_and_offset,
    a_stale_epoch_cannot_move_a_record,
    a_stale_epoch_cannot_move_the_checkpoint,
    already_exists_without_journal_proof_holds_for_reconciliation,
    a_schema_rejection_freezes_b_and_writes_a_new_identity,
    every_crash_point_and_lost_response_of_the_ledger,
    a_stale_owner_waking_after_a_takeover_changes_nothing,
    schema_rejection_under_every_crash_point,
    the_crash_matrix_has_no_failing_cell,
    every_schedule_replays_identically,
];

fn journal() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(harness::JOURNAL_SCHEMA).unwrap();
    db.execute(
        "INSERT INTO journal (batch_id, partition, destination, write_stream, row_offset,
            row_count, source_first, source_end, fingerprint, serialization_version, state,
            owner_epoch)
         VALUES ('P7:1000-1002', 'P7', 'ledger', 's1', 0, 3, 1000, 1003, 'h', 1, 'PREPARED', 1)",
        [],
    )
    .unwrap();
    db
}

fn summary(records: &[Record]) -> Vec<(String, String, i64, i64, i64, i64, String)> {
    records
        .iter()
        .map(|r| {
            (
                r.batch_id.clone(),
                sim_writeapi::short(&r.write_stream).to_string(),
                r.row_offset,
                r.row_count,
                r.source_first,
                r.source_end,
                r.state.clone(),
            )
        })
        .collect()
}

fn row(
    batch: &str,
    stream: &str,
    offset: i64,
    count: i64,
    first: i64,
    end: i64,
    state: &str,
) -> (String, String, i64, i64, i64, i64, String) {
    (
        batch.into(),
        stream.into(),
        offset,
        count,
        first,
        end,
        state.into(),
    )
}

/// The seed's ledger, fault-free: A = 1000–1002 at offset 0, B = 1003–1004 at offset 3,
/// both on one created stream, checkpoint 1005.
fn the_seed_ledger_writes_a_at_0_and_b_at_3_then_checkpoints_1005() {
    let outcome = run_ledger(&mut Sim::fault_free(), Setup::LEDGER);
    assert_eq!(outcome.violations, vec![]);
    assert_eq!(
        summary(&outcome.records),
        vec![
            row("P7:1000-1002", "s1", 0, 3, 1000, 1003, "CONFIRMED"),
            row("P7:1003-1004", "s1", 3, 2, 1003, 1005, "CONFIRMED"),
        ]
    );
    assert_eq!(outcome.checkpoint, SOURCE_END);
    let expected: Vec<(String, i64, i64)> =
        (0..5).map(|i| ("s1".to_string(), i, 1000 + i)).collect();
    assert_eq!(outcome.table, expected);
}

/// The seed's T4: A is appended, its response is lost and the process dies waiting. The
/// restart reuses S and offset 0, gets ALREADY_EXISTS, and the journal proves it is A.
fn a_lost_response_is_recovered_on_the_same_stream_and_offset() {
    let setup = Setup {
        lose_first_response_and_crash: true,
        ..Setup::LEDGER
    };
    let outcome = run_ledger(&mut Sim::fault_free(), setup);
    assert_eq!(outcome.violations, vec![]);
    assert_eq!(outcome.ending, Ending::Done);
    assert_eq!(
        outcome.streams_with_rows, 1,
        "no second stream holds rows: {:?}",
        outcome.table
    );
    assert_eq!(
        summary(&outcome.records),
        vec![
            row("P7:1000-1002", "s1", 0, 3, 1000, 1003, "CONFIRMED"),
            row("P7:1003-1004", "s1", 3, 2, 1003, 1005, "CONFIRMED"),
        ],
        "B stays at offset 3: it is not moved because A's response was lost"
    );
    assert_eq!(outcome.checkpoint, SOURCE_END);
}

fn a_stale_epoch_cannot_move_a_record() {
    let mut db = journal();
    let first = acquire_lease(&mut db, "writer-1").unwrap();
    let second = acquire_lease(&mut db, "writer-2").unwrap();
    assert!(second > first, "the epoch increases monotonically");
    let stale = transition(
        &mut db,
        first,
        "P7:1000-1002",
        &["PREPARED"],
        "SENT",
        "stale",
    );
    assert!(
        matches!(stale, Err(Stop::Fenced { .. })),
        "epoch {first} was superseded by {second}: its transition must return Stop::Fenced, got {stale:?}"
    );
    let state: String = db
        .query_row("SELECT state FROM journal", [], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "PREPARED");
    transition(
        &mut db,
        second,
        "P7:1000-1002",
        &["PREPARED"],
        "SENT",
        "current",
    )
    .unwrap();
}

fn a_stale_epoch_cannot_move_the_checkpoint() {
    let mut db = journal();
    let first = acquire_lease(&mut db, "writer-1").unwrap();
    advance_checkpoint(&mut db, first, 1003).unwrap();
    let second = acquire_lease(&mut db, "writer-2").unwrap();
    let stale = advance_checkpoint(&mut db, first, 1005);
    assert!(
        matches!(stale, Err(Stop::Fenced { .. })),
        "epoch {first} was superseded by {second}: its checkpoint advance must return Stop::Fenced, got {stale:?}"
    );
    advance_checkpoint(&mut db, second, 1005).unwrap();
    assert_eq!(harness::checkpoint(&db), 1005);
}

/// The "wrong offset" drill: another client occupies the offsets. ALREADY_EXISTS for a
/// batch the journal never sent is not evidence: the writer holds, and the checkpoint does
/// not pass the unproven batch.
fn already_exists_without_journal_proof_holds_for_reconciliation() {
    let setup = Setup {
        foreign_rows: 3,
        ..Setup::LEDGER
    };
    let outcome = run_ledger(&mut Sim::fault_free(), setup);
    assert_eq!(outcome.violations, vec![]);
    assert!(
        matches!(outcome.ending, Ending::Held(_)),
        "ended {:?}",
        outcome.ending
    );
    assert_eq!(outcome.checkpoint, 1000);
    assert!(
        outcome.records.iter().all(|r| r.state != "CONFIRMED"),
        "nothing is confirmed without proof: {:?}",
        outcome.records
    );
}

/// Position 1004 carries a field the table does not have. B is rejected with a row error
/// (nothing appended): the old record is frozen, 1004 quarantined, and a new identity with
/// one row takes offset 3.
fn a_schema_rejection_freezes_b_and_writes_a_new_identity() {
    let setup = Setup {
        bad_row: Some(1004),
        ..Setup::LEDGER
    };
    let outcome = run_ledger(&mut Sim::fault_free(), setup);
    assert_eq!(outcome.violations, vec![]);
    let records = summary(&outcome.records);
    assert_eq!(records.len(), 3, "{records:?}");
    assert_eq!(
        records[0],
        row("P7:1000-1002", "s1", 0, 3, 1000, 1003, "CONFIRMED")
    );
    let rejected = outcome
        .records
        .iter()
        .find(|r| r.state == "REJECTED")
        .expect("a frozen record");
    let replacement = outcome
        .records
        .iter()
        .find(|r| r.replaces.as_deref() == Some(rejected.batch_id.as_str()))
        .expect("a replacement that names the frozen record");
    assert_ne!(
        replacement.batch_id, rejected.batch_id,
        "a new batch identity"
    );
    assert_ne!(
        replacement.fingerprint, rejected.fingerprint,
        "a new fingerprint"
    );
    assert_eq!((rejected.row_offset, rejected.row_count), (3, 2));
    assert_eq!(
        (
            replacement.row_offset,
            replacement.row_count,
            replacement.state.as_str()
        ),
        (3, 1, "CONFIRMED")
    );
    assert_eq!(outcome.quarantined, vec![1004]);
    assert_eq!(outcome.checkpoint, SOURCE_END);
}

fn every_crash_point_and_lost_response_of_the_ledger() {
    let exploration = explore_ledger(2);
    println!(
        "{} schedules {:?}",
        exploration.schedules, exploration.per_level
    );
    exploration.assert_ok_reaching(2);
}

fn a_stale_owner_waking_after_a_takeover_changes_nothing() {
    let exploration = explore_stale_owner(2);
    println!(
        "{} schedules {:?}",
        exploration.schedules, exploration.per_level
    );
    exploration.assert_ok_reaching(1);
}

fn schema_rejection_under_every_crash_point() {
    let exploration = explore_schema_rejection(2);
    println!(
        "{} schedules {:?}",
        exploration.schedules, exploration.per_level
    );
    exploration.assert_ok();
}

fn the_crash_matrix_has_no_failing_cell() {
    let matrix = crash_matrix();
    let failing: Vec<String> = matrix
        .rows
        .iter()
        .filter_map(|r| {
            r.broken
                .as_ref()
                .map(|broken| format!("{}: {broken}", r.fault))
        })
        .collect();
    assert_eq!(failing, Vec::<String>::new(), "\n{}", matrix.render());
    assert!(
        matrix.rows.len() >= 8,
        "every crash point appears: {}",
        matrix.render()
    );
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.1@0e13a",
        "v2:0.0.0.0.1@e269e",
        "v2:0.0.0.0.0.2.0.1@38a6b",
        "v2:0.0.0.0.0.0.0.2@d37ba",
    ]);
    let setup = Setup {
        stale_owner: true,
        ..Setup::LEDGER
    };
    let checked = fault::check_determinism(&sample, |sim| ledger_scenario(sim, setup));
    assert_eq!(checked, Ok(sample.len()));
}
