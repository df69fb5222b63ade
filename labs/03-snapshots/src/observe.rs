//! The observe phase: a reservation and a reconciliation report on a real SQLite file
//! database in WAL mode. Two connections stand for two concurrent requests; the
//! interleaving is written out statement by statement (an explicit schedule), so every
//! run does the same thing in the same order. Every verdict is computed from what SQLite
//! answered; the answer keys live in `lab.toml`.
//!
//! The SQLite behaviour each step relies on, from SQLite's documentation:
//!
//! * <https://www.sqlite.org/isolation.html>: a reader on another connection sees only
//!   complete committed transactions.
//! * <https://www.sqlite.org/wal.html>: in WAL mode readers do not block writers and a
//!   writer does not block readers; a read transaction keeps the snapshot it started
//!   with; there is one writer at a time.
//! * <https://www.sqlite.org/lang_transaction.html>: `BEGIN DEFERRED` takes no lock until
//!   the first statement, `BEGIN IMMEDIATE` starts a write transaction at once.
//! * <https://www.sqlite.org/rescode.html#busy_snapshot>: SQLITE_BUSY_SNAPSHOT (517) when
//!   a read transaction cannot become a write transaction because another connection
//!   wrote since its snapshot was taken.

use crate::harness::{Database, ITEM, extended_code};
use labkit::{Observation, Report};
use rusqlite::{Connection, params};

type Result<T> = std::result::Result<T, rusqlite::Error>;

fn available(conn: &Connection) -> Result<i64> {
    conn.query_row(
        "SELECT available FROM inventory WHERE item = ?1",
        [ITEM],
        |r| r.get(0),
    )
}

fn reserved(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT COALESCE(SUM(qty), 0) FROM reservations", [], |r| {
        r.get(0)
    })
}

fn insert_reservation(conn: &Connection, id: &str) -> Result<usize> {
    conn.execute(
        "INSERT INTO reservations VALUES (?1, ?2, 1)",
        params![id, ITEM],
    )
}

/// A whole, correct reservation of one unit by another request.
fn reserve_whole(conn: &Connection, id: &str) -> Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    insert_reservation(conn, id)?;
    conn.execute(
        "UPDATE inventory SET available = available - 1 WHERE item = ?1",
        [ITEM],
    )?;
    conn.execute_batch("COMMIT")
}

/// What the observe phase measured.
struct Observed {
    rows_after_separate_checks: i64,
    rows_after_deferred: i64,
    deferred_loser_code: Option<i32>,
    statement_retry_code: Option<i32>,
    rerun_sees_available: i64,
    second_immediate_code: Option<i32>,
    separate_reads_total: i64,
    snapshot_total: i64,
    stale_snapshot_sees_b: bool,
    fresh_read_sees_b: bool,
}

// ANCHOR: schedules
fn schedules() -> Result<Observed> {
    // 1. The check is its own read; the writes come later. One unit left.
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    let a_saw = available(&a)?; // A: 1 left
    let b_saw = available(&b)?; // B: 1 left
    b.execute_batch("BEGIN")?;
    insert_reservation(&b, "B")?;
    b.execute(
        "UPDATE inventory SET available = ?1 WHERE item = ?2",
        params![b_saw - 1, ITEM],
    )?;
    b.execute_batch("COMMIT")?;
    a.execute_batch("BEGIN")?;
    insert_reservation(&a, "A")?;
    a.execute(
        "UPDATE inventory SET available = ?1 WHERE item = ?2",
        params![a_saw - 1, ITEM],
    )?;
    a.execute_batch("COMMIT")?;
    let rows_after_separate_checks = reserved(&a)?;

    // 2. A deferred transaction reads, B commits a reservation, A tries to write.
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    let _a_saw = available(&a)?; // A's snapshot starts here: 1 left
    reserve_whole(&b, "B")?;
    let deferred = insert_reservation(&a, "A");
    let deferred_loser_code = deferred.as_ref().err().and_then(extended_code);
    // Retrying the failed statement inside the same, stale transaction.
    let statement_retry = insert_reservation(&a, "A");
    let statement_retry_code = statement_retry.as_ref().err().and_then(extended_code);
    // What the code must do: roll back and run the whole transaction again.
    a.execute_batch("ROLLBACK")?;
    a.execute_batch("BEGIN IMMEDIATE")?;
    let rerun_sees_available = available(&a)?;
    a.execute_batch("ROLLBACK")?; // sold out: nothing to write
    let rows_after_deferred = reserved(&a)?;

    // 3. BEGIN IMMEDIATE against BEGIN IMMEDIATE, busy_timeout zero.
    a.execute_batch("BEGIN IMMEDIATE")?;
    let second = b.execute_batch("BEGIN IMMEDIATE");
    let second_immediate_code = second.as_ref().err().and_then(extended_code);
    a.execute_batch("ROLLBACK")?;

    // 4. A reconciliation report while a reservation commits, ten units on sale.
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    let separate_available = available(&report)?;
    reserve_whole(&b, "B1")?;
    let separate_reserved = reserved(&report)?;
    let separate_reads_total = separate_available + separate_reserved;

    report.execute_batch("BEGIN")?;
    let snapshot_available = available(&report)?;
    reserve_whole(&b, "B2")?;
    let snapshot_reserved = reserved(&report)?;
    let snapshot_total = snapshot_available + snapshot_reserved;

    // 5. The same open snapshot, asked about the reservation B2 just confirmed.
    let b2_in_snapshot: i64 = report.query_row(
        "SELECT COUNT(*) FROM reservations WHERE id = 'B2'",
        [],
        |r| r.get(0),
    )?;
    report.execute_batch("COMMIT")?;
    let b2_now: i64 = report.query_row(
        "SELECT COUNT(*) FROM reservations WHERE id = 'B2'",
        [],
        |r| r.get(0),
    )?;

    Ok(Observed {
        rows_after_separate_checks,
        rows_after_deferred,
        deferred_loser_code,
        statement_retry_code,
        rerun_sees_available,
        second_immediate_code,
        separate_reads_total,
        snapshot_total,
        stale_snapshot_sees_b: b2_in_snapshot == 1,
        fresh_read_sees_b: b2_now == 1,
    })
}
// ANCHOR_END: schedules

pub fn run() -> Report {
    let o = schedules().unwrap_or_else(|e| panic!("the observe scenario itself failed: {e}"));
    let mut obs = Observation::new("snapshots");
    obs.check(
        "a separate availability check before the writes oversells",
        o.rows_after_separate_checks > 1,
    );
    obs.check(
        "a deferred transaction that reads then writes can oversell",
        o.rows_after_deferred > 1,
    );
    obs.check(
        "the losing deferred transaction fails with SQLITE_BUSY_SNAPSHOT",
        o.deferred_loser_code == Some(517),
    );
    obs.check(
        "retrying only the failed statement inside the same transaction succeeds",
        o.statement_retry_code.is_none(),
    );
    obs.check(
        "rolling back and rerunning the whole transaction sees the unit is gone",
        o.rerun_sees_available == 0,
    );
    obs.check(
        "a second BEGIN IMMEDIATE is refused at once with SQLITE_BUSY",
        o.second_immediate_code == Some(5),
    );
    obs.check(
        "two separate queries of a report see one instant",
        o.separate_reads_total == 10,
    );
    obs.check(
        "two queries inside one read transaction see one instant",
        o.snapshot_total == 10,
    );
    obs.check(
        "a read transaction opened before a commit shows that commit",
        o.stale_snapshot_sees_b,
    );
    obs.check("a new read after the commit shows it", o.fresh_read_sees_b);

    let rows = o.rows_after_separate_checks;
    obs.answer(
        "oversell-count",
        match rows {
            1 => "a",
            2 => "b",
            0 => "c",
            _ => "?",
        },
        format!("{rows} reservation rows for 1 unit"),
    );
    obs.answer(
        "deferred-loser-code",
        match o.deferred_loser_code {
            Some(5) => "a",
            Some(517) => "b",
            None => "c",
            Some(_) => "d",
        },
        format!("the losing write got {:?}", o.deferred_loser_code),
    );
    let total = o.separate_reads_total;
    obs.answer(
        "report-gap",
        match total {
            10 => "a",
            11 => "b",
            9 => "c",
            _ => "d",
        },
        format!("reserved + available = {total} of 10"),
    );

    let summary = serde_json::json!({
        "journal_mode": "wal",
        "busy_timeout_ms": 0,
        "rows_after_separate_checks": o.rows_after_separate_checks,
        "rows_after_deferred": o.rows_after_deferred,
        "deferred_loser_extended_code": o.deferred_loser_code,
        "statement_retry_extended_code": o.statement_retry_code,
        "second_begin_immediate_extended_code": o.second_immediate_code,
        "report_total_separate_reads": o.separate_reads_total,
        "report_total_one_snapshot": o.snapshot_total,
    });
    obs.finish(Some(rusqlite::version().to_string()), summary)
}
