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
//!
//! The second half runs reads at a timestamp on the simulated Spanner database of
//! chapter 2 (`sim_spanner`), whose clock is the fault core's logical clock, one tick a
//! second; its documented behaviours are pinned by the tests in
//! `crates/sim-spanner/src/tests.rs`.

use crate::harness::{Database, ITEM, extended_code};
use labkit::fault::Sim;
use labkit::{Observation, Report};
use rusqlite::{Connection, params};
use sim_spanner::{Code, Row, SpannerError, TimestampBound, run_transaction};

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

/// What one Spanner read answered: did it show B2, or which error did it get?
type Read = std::result::Result<bool, Code>;

/// What the Spanner reads measured.
struct StaleReads {
    b2_committed_at: u64,
    strong_right_after: Read,
    stale_right_after: Read,
    snapshot_opened_before: Read,
    stale_20s_later: Read,
    hour_old: Read,
    future: Read,
    /// Seconds on the clock the future read took.
    future_waited: u64,
}

const RESERVATIONS: &str = "reservations";

// ANCHOR: spanner_reads
fn spanner_reads() -> StaleReads {
    let mut sim = Sim::fault_free();
    let mut db = sim_spanner::Database::new();
    sim.advance(600); // ten minutes on the clock, so that "15 s ago" is a real instant
    let shows = |db: &sim_spanner::Database, sim: &mut Sim, bound, id| -> Read {
        db.single_read(sim, bound, RESERVATIONS, id)
            .map(|row| row.is_some())
            .map_err(|e| e.code)
    };
    let stale = TimestampBound::ExactStaleness(15);

    // 1. A read-only transaction opens; B2's reservation commits; reads right after it.
    let snapshot = db
        .read_only_transaction(&mut sim, TimestampBound::Strong)
        .expect("a strong read-only transaction");
    let b2_committed_at = run_transaction(&mut db, &mut sim, |txn, _sim| {
        txn.insert(
            RESERVATIONS,
            "B2",
            Row::new().with("item", ITEM).with("qty", 1),
        );
        Ok::<(), SpannerError>(())
    })
    .expect("a fault-free commit")
    .commit_timestamp;
    let strong_right_after = shows(&db, &mut sim, TimestampBound::Strong, "B2");
    let stale_right_after = shows(&db, &mut sim, stale, "B2");
    let snapshot_opened_before = snapshot
        .read(&db, &mut sim, RESERVATIONS, "B2")
        .map(|row| row.is_some())
        .map_err(|e| e.code);

    // 2. Twenty seconds later, the same stale read.
    sim.advance(20);
    let stale_20s_later = shows(&db, &mut sim, stale, "B2");

    // 3. Sixty-one minutes after the commit, a read at B2's commit timestamp.
    sim.advance(61 * 60 - 20);
    let hour_old = shows(
        &db,
        &mut sim,
        TimestampBound::ReadTimestamp(b2_committed_at),
        "B2",
    );

    // 4. A read at a timestamp ten seconds in the future.
    let before = sim.now();
    let future = shows(
        &db,
        &mut sim,
        TimestampBound::ReadTimestamp(before + 10),
        "B2",
    );
    StaleReads {
        b2_committed_at,
        strong_right_after,
        stale_right_after,
        snapshot_opened_before,
        stale_20s_later,
        hour_old,
        future,
        future_waited: sim.now() - before,
    }
}
// ANCHOR_END: spanner_reads

fn shown(read: &Read) -> &'static str {
    match read {
        Ok(true) => "shows B2",
        Ok(false) => "does not show B2",
        Err(code) => code.name(),
    }
}

pub fn run() -> Report {
    let o = schedules().unwrap_or_else(|e| panic!("the observe scenario itself failed: {e}"));
    let spanner = spanner_reads();
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
    obs.check(
        "a 15-second stale read taken 20 seconds after a commit shows it",
        spanner.stale_20s_later == Ok(true),
    );
    obs.check(
        "a read at a timestamp more than an hour old returns the rows as they were then",
        spanner.hour_old == Ok(true),
    );

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

    obs.answer(
        "future-read-timestamp",
        match (&spanner.future, spanner.future_waited) {
            (Err(_), _) => "a",
            (Ok(_), 10) => "b",
            (Ok(_), 0) => "c",
            (Ok(_), _) => "d",
        },
        format!(
            "the read {} after {} s on the clock",
            shown(&spanner.future),
            spanner.future_waited
        ),
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
        "spanner": {
            "b2_commit_timestamp": spanner.b2_committed_at,
            "strong_read_right_after_the_commit": shown(&spanner.strong_right_after),
            "exact_staleness_15s_right_after_the_commit": shown(&spanner.stale_right_after),
            "read_only_transaction_opened_before_the_commit": shown(&spanner.snapshot_opened_before),
            "exact_staleness_15s_20s_later": shown(&spanner.stale_20s_later),
            "read_at_the_commit_timestamp_61_minutes_later": shown(&spanner.hour_old),
            "read_at_a_timestamp_10s_ahead": shown(&spanner.future),
            "seconds_the_future_read_took": spanner.future_waited,
        },
    });
    obs.finish(Some(rusqlite::version().to_string()), summary)
}
