//! The decision: a check and the writes that depend on it, on two or three connections
//! to one WAL database, interleaved statement by statement.

use super::sql::{
    Result, available, code, insert_reservation, reserve_whole, reserved, set_available,
};
use crate::world::Database;

/// What the decision schedules measured.
#[derive(Default)]
pub struct Decisions {
    pub rows_after_separate_checks: i64,
    pub available_after_separate_checks: i64,
    /// Three requests, two units, every check before any write: (rows, availability).
    pub three_requests: (i64, i64),
    pub rows_after_deferred: i64,
    pub deferred_insert_code: Option<i32>,
    pub statement_retry_code: Option<i32>,
    pub rerun_sees_available: i64,
    pub second_immediate_code: Option<i32>,
    /// A deferred `BEGIN`, then another request's commit, then the first read.
    pub begun_before_commit_read: i64,
    /// `BEGIN IMMEDIATE` beside another connection's open read transaction.
    pub immediate_beside_reader_code: Option<i32>,
    /// Three requests, two units, immediate transactions, reruns after SQLITE_BUSY.
    pub sold_by_immediate_requests: i64,
    /// B read inside a deferred transaction; A took the write lock and has not
    /// committed; B's INSERT.
    pub write_while_lock_held: Option<i32>,
}

pub fn decisions() -> Result<Decisions> {
    let mut d = Decisions::default();
    separate_check(&mut d)?;
    three_requests(&mut d)?;
    deferred_then_write(&mut d)?;
    begun_before_commit(&mut d)?;
    immediate_beside_reader(&mut d)?;
    immediate_requests(&mut d)?;
    write_while_lock_held(&mut d)?;
    Ok(d)
}

// ANCHOR: separate_check
/// The check is its own read; the writes come later. One unit left.
fn separate_check(d: &mut Decisions) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    let a_saw = available(&a)?; // A: 1 left
    let b_saw = available(&b)?; // B: 1 left
    for (conn, id, saw) in [(&b, "B", b_saw), (&a, "A", a_saw)] {
        conn.execute_batch("BEGIN")?;
        insert_reservation(conn, id)?;
        set_available(conn, saw - 1)?;
        conn.execute_batch("COMMIT")?;
    }
    d.rows_after_separate_checks = reserved(&a)?;
    d.available_after_separate_checks = available(&a)?;
    Ok(())
}
// ANCHOR_END: separate_check

/// The same, with three requests for two units.
fn three_requests(d: &mut Decisions) -> Result<()> {
    let db = Database::create(2);
    let conns = [db.connect(), db.connect(), db.connect()];
    let mut seen = Vec::new();
    for conn in &conns {
        seen.push(available(conn)?);
    }
    for ((conn, saw), id) in conns.iter().zip(seen).zip(["A", "B", "C"]) {
        conn.execute_batch("BEGIN")?;
        insert_reservation(conn, id)?;
        set_available(conn, saw - 1)?;
        conn.execute_batch("COMMIT")?;
    }
    d.three_requests = (reserved(&conns[0])?, available(&conns[0])?);
    Ok(())
}

// ANCHOR: deferred
/// A deferred transaction reads, B commits a reservation, A tries to write; then
/// BEGIN IMMEDIATE against BEGIN IMMEDIATE.
fn deferred_then_write(d: &mut Decisions) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    available(&a)?; // A reads: 1 left
    reserve_whole(&b, "B")?;
    d.deferred_insert_code = code(&insert_reservation(&a, "A"));
    // The same INSERT once more, inside the same transaction.
    d.statement_retry_code = code(&insert_reservation(&a, "A"));
    // The whole transaction again.
    a.execute_batch("ROLLBACK")?;
    a.execute_batch("BEGIN IMMEDIATE")?;
    d.rerun_sees_available = available(&a)?;
    a.execute_batch("ROLLBACK")?;
    d.rows_after_deferred = reserved(&a)?;

    a.execute_batch("BEGIN IMMEDIATE")?;
    d.second_immediate_code = code(&b.execute_batch("BEGIN IMMEDIATE"));
    a.execute_batch("ROLLBACK")
}
// ANCHOR_END: deferred

/// A runs `BEGIN` and nothing else; B reserves the last unit; then A reads.
fn begun_before_commit(d: &mut Decisions) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN")?;
    reserve_whole(&b, "B")?;
    d.begun_before_commit_read = available(&a)?;
    a.execute_batch("ROLLBACK")
}

/// R reads inside an open transaction; W runs `BEGIN IMMEDIATE` and, if it may, commits
/// a reservation; then R ends.
fn immediate_beside_reader(d: &mut Decisions) -> Result<()> {
    let db = Database::create(2);
    let (r, w) = (db.connect(), db.connect());
    r.execute_batch("BEGIN")?;
    available(&r)?;
    let begun = w.execute_batch("BEGIN IMMEDIATE");
    d.immediate_beside_reader_code = code(&begun);
    if begun.is_ok() {
        insert_reservation(&w, "W")?;
        w.execute_batch("COMMIT")?;
    }
    r.execute_batch("COMMIT")
}

/// One immediate reservation, whole: the check and both writes under the write lock.
fn reserve_immediately(conn: &rusqlite::Connection, id: &str) -> Result<bool> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    if available(conn)? < 1 {
        conn.execute_batch("ROLLBACK")?;
        return Ok(false);
    }
    insert_reservation(conn, id)?;
    let left = available(conn)? - 1;
    set_available(conn, left)?;
    conn.execute_batch("COMMIT")?;
    Ok(true)
}

/// r1 takes the write lock and reads; r2 and r3 arrive, try `BEGIN IMMEDIATE` and get
/// SQLITE_BUSY; r1 writes and commits; r2 and r3 run again, whole.
fn immediate_requests(d: &mut Decisions) -> Result<()> {
    let db = Database::create(2);
    let [r1, r2, r3] = [db.connect(), db.connect(), db.connect()];
    r1.execute_batch("BEGIN IMMEDIATE")?;
    let left = available(&r1)?;
    let turned_away = [&r2, &r3].map(|c| c.execute_batch("BEGIN IMMEDIATE").is_err());
    insert_reservation(&r1, "r1")?;
    set_available(&r1, left - 1)?;
    r1.execute_batch("COMMIT")?;
    for (conn, id, busy) in [(&r2, "r2", turned_away[0]), (&r3, "r3", turned_away[1])] {
        if busy {
            reserve_immediately(conn, id)?;
        }
    }
    d.sold_by_immediate_requests = reserved(&r1)?;
    Ok(())
}

/// B reads inside `BEGIN DEFERRED`; A runs `BEGIN IMMEDIATE` and reads; B inserts
/// before A has written or committed anything.
fn write_while_lock_held(d: &mut Decisions) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    b.execute_batch("BEGIN DEFERRED")?;
    available(&b)?;
    a.execute_batch("BEGIN IMMEDIATE")?;
    available(&a)?;
    d.write_while_lock_held = code(&insert_reservation(&b, "B"));
    b.execute_batch("ROLLBACK")?;
    a.execute_batch("ROLLBACK")
}
