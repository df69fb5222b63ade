//! Variations on the two listed decisions (`separate_check`, `deferred_then_write`): a
//! `BEGIN` in another place or of another kind, another write, two units, a statement
//! tried again, a reservation caught half done. Each schedule is written out statement by
//! statement, like the listings.

use super::sql::{Result, available, code, insert_reservation, reservation_ids, set_available};
use crate::world::{Database, ITEM};
use rusqlite::Connection;

/// What the variations measured.
#[derive(Default)]
pub struct Variations {
    /// `separate_check` with `BEGIN IMMEDIATE` in the loop and B's UPDATE relative to
    /// the current availability: the availability left.
    pub immediate_relative_b_available: i64,
    /// `separate_check` with A's `BEGIN IMMEDIATE` before A's read: B's INSERT, then the
    /// same INSERT again, in the same transaction, right after A's COMMIT.
    pub a_locks_first_b_inserts: (Option<i32>, Option<i32>),
    /// `separate_check` with both `BEGIN`s before the reads, two units: whose rows.
    pub both_begin_first_rows: Vec<String>,
    /// B has begun and inserted, not committed: A's INSERT; B commits; A's INSERT again.
    pub half_done_codes: (Option<i32>, Option<i32>),
}

pub fn variations() -> Result<Variations> {
    let mut v = Variations::default();
    immediate_relative_b(&mut v)?;
    a_locks_first(&mut v)?;
    both_begin_first(&mut v)?;
    half_done(&mut v)?;
    Ok(v)
}

/// One request's writes as `separate_check` lists them, in a transaction already begun:
/// COMMIT when both succeed, ROLLBACK otherwise. Returns the INSERT's refusal, if any.
fn writes(conn: &Connection, id: &str, saw: i64) -> Result<Option<i32>> {
    let insert = insert_reservation(conn, id);
    let refused = code(&insert);
    match insert.and_then(|_| set_available(conn, saw - 1)) {
        Ok(_) => conn.execute_batch("COMMIT")?,
        Err(_) => conn.execute_batch("ROLLBACK")?,
    }
    Ok(refused)
}

/// `separate_check` with `BEGIN IMMEDIATE` for the writes; B writes `available - 1`.
fn immediate_relative_b(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    let a_saw = available(&a)?;
    available(&b)?;
    b.execute_batch("BEGIN IMMEDIATE")?;
    insert_reservation(&b, "B")?;
    b.execute(
        "UPDATE inventory SET available = available - 1 WHERE item = ?1",
        [ITEM],
    )?;
    b.execute_batch("COMMIT")?;
    a.execute_batch("BEGIN IMMEDIATE")?;
    writes(&a, "A", a_saw)?;
    v.immediate_relative_b_available = available(&a)?;
    Ok(())
}

/// `separate_check` with A's `BEGIN`, as `BEGIN IMMEDIATE`, moved up before A's read;
/// B, refused, tries its INSERT again right after A's COMMIT, in the same transaction.
fn a_locks_first(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN IMMEDIATE")?;
    let a_saw = available(&a)?;
    let b_saw = available(&b)?;
    b.execute_batch("BEGIN")?;
    let first = code(&insert_reservation(&b, "B"));
    writes(&a, "A", a_saw)?;
    let again = insert_reservation(&b, "B");
    v.a_locks_first_b_inserts = (first, code(&again));
    match again.and_then(|_| set_available(&b, b_saw - 1)) {
        Ok(_) => b.execute_batch("COMMIT"),
        Err(_) => b.execute_batch("ROLLBACK"),
    }
}

/// Two units; A and B each begin (deferred) and read, then the loop writes, B first.
fn both_begin_first(v: &mut Variations) -> Result<()> {
    let db = Database::create(2);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN")?;
    let a_saw = available(&a)?;
    b.execute_batch("BEGIN")?;
    let b_saw = available(&b)?;
    for (conn, id, saw) in [(&b, "B", b_saw), (&a, "A", a_saw)] {
        writes(conn, id, saw)?;
    }
    v.both_begin_first_rows = reservation_ids(&a)?;
    Ok(())
}

/// `deferred_then_write`, but B has run `BEGIN IMMEDIATE` and its INSERT when A
/// inserts; then B writes and commits; then A inserts again.
fn half_done(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    available(&a)?; // A reads: 1 left
    b.execute_batch("BEGIN IMMEDIATE")?;
    insert_reservation(&b, "B")?;
    let first = code(&insert_reservation(&a, "A"));
    set_available(&b, 0)?;
    b.execute_batch("COMMIT")?;
    v.half_done_codes = (first, code(&insert_reservation(&a, "A")));
    a.execute_batch("ROLLBACK")
}
