//! The SQLite half: two connections to one WAL database, interleaved by hand.

use crate::world::{Database, ITEM, extended_code};
use rusqlite::{Connection, params};

pub type Result<T> = std::result::Result<T, rusqlite::Error>;

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
#[derive(Default)]
pub struct Observed {
    pub rows_after_separate_checks: i64,
    pub rows_after_deferred: i64,
    pub deferred_loser_code: Option<i32>,
    pub statement_retry_code: Option<i32>,
    pub rerun_sees_available: i64,
    pub second_immediate_code: Option<i32>,
    pub separate_reads_total: i64,
    pub snapshot_total: i64,
    pub stale_snapshot_sees_b: bool,
    pub fresh_read_sees_b: bool,
}

// ANCHOR: schedules
pub fn schedules() -> Result<Observed> {
    let mut o = Observed::default();
    separate_check(&mut o)?;
    deferred_then_write(&mut o)?;
    report(&mut o)?;
    Ok(o)
}

/// 1. The check is its own read; the writes come later. One unit left.
fn separate_check(o: &mut Observed) -> Result<()> {
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
    o.rows_after_separate_checks = reserved(&a)?;
    Ok(())
}

/// 2. A deferred transaction reads, B commits a reservation, A tries to write; then
/// 3. BEGIN IMMEDIATE against BEGIN IMMEDIATE, busy_timeout zero.
fn deferred_then_write(o: &mut Observed) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    let _a_saw = available(&a)?; // A's snapshot starts here: 1 left
    reserve_whole(&b, "B")?;
    let deferred = insert_reservation(&a, "A");
    o.deferred_loser_code = deferred.as_ref().err().and_then(extended_code);
    // Retrying the failed statement inside the same, stale transaction.
    let statement_retry = insert_reservation(&a, "A");
    o.statement_retry_code = statement_retry.as_ref().err().and_then(extended_code);
    // What the code must do: roll back and run the whole transaction again.
    a.execute_batch("ROLLBACK")?;
    a.execute_batch("BEGIN IMMEDIATE")?;
    o.rerun_sees_available = available(&a)?;
    a.execute_batch("ROLLBACK")?; // sold out: nothing to write
    o.rows_after_deferred = reserved(&a)?;

    a.execute_batch("BEGIN IMMEDIATE")?;
    let second = b.execute_batch("BEGIN IMMEDIATE");
    o.second_immediate_code = second.as_ref().err().and_then(extended_code);
    a.execute_batch("ROLLBACK")?;
    Ok(())
}

/// 4. A reconciliation report while a reservation commits, ten units on sale; 5. the
/// same open snapshot, asked about the reservation B2 just confirmed.
fn report(o: &mut Observed) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    let separate_available = available(&report)?;
    reserve_whole(&b, "B1")?;
    let separate_reserved = reserved(&report)?;
    o.separate_reads_total = separate_available + separate_reserved;

    report.execute_batch("BEGIN")?;
    let snapshot_available = available(&report)?;
    reserve_whole(&b, "B2")?;
    let snapshot_reserved = reserved(&report)?;
    o.snapshot_total = snapshot_available + snapshot_reserved;

    let count_b2 = "SELECT COUNT(*) FROM reservations WHERE id = 'B2'";
    let b2_in_snapshot: i64 = report.query_row(count_b2, [], |r| r.get(0))?;
    report.execute_batch("COMMIT")?;
    let b2_now: i64 = report.query_row(count_b2, [], |r| r.get(0))?;
    o.stale_snapshot_sees_b = b2_in_snapshot == 1;
    o.fresh_read_sees_b = b2_now == 1;
    Ok(())
}
// ANCHOR_END: schedules
