//! The decision: a check and the writes that depend on it, on two connections to one
//! WAL database, interleaved statement by statement: the schedules the chapter lists.

use super::sql::{
    Result, available, code, insert_reservation, reserve_whole, reserved, set_available,
};
use crate::world::Database;

/// What the decision schedules measured.
#[derive(Default)]
pub struct Decisions {
    pub rows_after_separate_checks: i64,
    pub available_after_separate_checks: i64,
    pub rows_after_deferred: i64,
    pub deferred_insert_code: Option<i32>,
    pub statement_retry_code: Option<i32>,
    pub rerun_sees_available: i64,
    pub second_immediate_code: Option<i32>,
}

pub fn decisions() -> Result<Decisions> {
    let mut d = Decisions::default();
    separate_check(&mut d)?;
    deferred_then_write(&mut d)?;
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
