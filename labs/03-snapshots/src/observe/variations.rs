//! Variations on the two listed decisions (`separate_check`, `deferred_then_write`):
//! another write, another `BEGIN`, a third request, two units, a reservation caught
//! half done. Each schedule is written out statement by statement, like the listings.

use super::sql::{
    Result, available, code, insert_reservation, reserve_whole, reserved, set_available,
};
use crate::world::{Database, ITEM};
use rusqlite::Connection;

/// What the variations measured.
#[derive(Default)]
pub struct Variations {
    /// `separate_check` with A's UPDATE relative to the current availability.
    pub relative_write_available: i64,
    /// `separate_check` with `BEGIN IMMEDIATE` for the writes: reservation rows.
    pub immediate_writes_rows: i64,
    /// `separate_check` with two units and a third request C that reads after B's
    /// commit and writes last: the availability left.
    pub third_request_available: i64,
    /// `separate_check` with each request in `BEGIN DEFERRED` from its read to its
    /// COMMIT, two units, three requests: rows after the first pass.
    pub deferred_requests_rows: i64,
    /// `deferred_then_write` with two units: A's first INSERT.
    pub two_units_insert: Option<i32>,
    /// `deferred_then_write` without A's read: A's INSERT.
    pub insert_first_code: Option<i32>,
    /// B has begun and inserted, not committed: A's INSERT; B commits; A's INSERT again.
    pub half_done_codes: (Option<i32>, Option<i32>),
}

pub fn variations() -> Result<Variations> {
    let mut v = Variations::default();
    relative_write(&mut v)?;
    immediate_writes(&mut v)?;
    third_request(&mut v)?;
    deferred_requests(&mut v)?;
    two_units(&mut v)?;
    insert_first(&mut v)?;
    half_done(&mut v)?;
    Ok(v)
}

/// One request's writes as `separate_check` lists them, after `begin`.
fn write_as_listed(conn: &Connection, begin: &str, id: &str, saw: i64) -> Result<()> {
    conn.execute_batch(begin)?;
    insert_reservation(conn, id)?;
    set_available(conn, saw - 1)?;
    conn.execute_batch("COMMIT")
}

/// `separate_check`, but A writes `available = available - 1`.
fn relative_write(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    available(&a)?;
    let b_saw = available(&b)?;
    write_as_listed(&b, "BEGIN", "B", b_saw)?;
    a.execute_batch("BEGIN")?;
    insert_reservation(&a, "A")?;
    a.execute(
        "UPDATE inventory SET available = available - 1 WHERE item = ?1",
        [ITEM],
    )?;
    a.execute_batch("COMMIT")?;
    v.relative_write_available = available(&a)?;
    Ok(())
}

/// `separate_check` with `BEGIN IMMEDIATE` in place of `BEGIN`.
fn immediate_writes(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    let a_saw = available(&a)?;
    let b_saw = available(&b)?;
    write_as_listed(&b, "BEGIN IMMEDIATE", "B", b_saw)?;
    write_as_listed(&a, "BEGIN IMMEDIATE", "A", a_saw)?;
    v.immediate_writes_rows = reserved(&a)?;
    Ok(())
}

/// Two units; A and B read; B writes; C reads; A writes; C writes.
fn third_request(v: &mut Variations) -> Result<()> {
    let db = Database::create(2);
    let (a, b, c) = (db.connect(), db.connect(), db.connect());
    let a_saw = available(&a)?;
    let b_saw = available(&b)?;
    write_as_listed(&b, "BEGIN", "B", b_saw)?;
    let c_saw = available(&c)?;
    write_as_listed(&a, "BEGIN", "A", a_saw)?;
    write_as_listed(&c, "BEGIN", "C", c_saw)?;
    v.third_request_available = available(&a)?;
    Ok(())
}

/// Two units; A, B and C each read inside `BEGIN DEFERRED`; then B, A and C in turn
/// insert, write what they read minus one and commit. A refused request rolls back.
fn deferred_requests(v: &mut Variations) -> Result<()> {
    let db = Database::create(2);
    let (a, b, c) = (db.connect(), db.connect(), db.connect());
    let mut saw = Vec::new();
    for conn in [&a, &b, &c] {
        conn.execute_batch("BEGIN DEFERRED")?;
        saw.push(available(conn)?);
    }
    for (conn, id, saw) in [(&b, "B", saw[1]), (&a, "A", saw[0]), (&c, "C", saw[2])] {
        let writes = insert_reservation(conn, id).and_then(|_| set_available(conn, saw - 1));
        match writes {
            Ok(_) => conn.execute_batch("COMMIT")?,
            Err(_) => conn.execute_batch("ROLLBACK")?,
        }
    }
    v.deferred_requests_rows = reserved(&a)?;
    Ok(())
}

/// `deferred_then_write` up to A's first INSERT, with two units.
fn two_units(v: &mut Variations) -> Result<()> {
    let db = Database::create(2);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    available(&a)?; // A reads: 2 left
    reserve_whole(&b, "B")?;
    v.two_units_insert = code(&insert_reservation(&a, "A"));
    a.execute_batch("ROLLBACK")
}

/// `deferred_then_write` up to A's first INSERT, without A's read.
fn insert_first(v: &mut Variations) -> Result<()> {
    let db = Database::create(1);
    let (a, b) = (db.connect(), db.connect());
    a.execute_batch("BEGIN DEFERRED")?;
    reserve_whole(&b, "B")?;
    v.insert_first_code = code(&insert_reservation(&a, "A"));
    a.execute_batch("ROLLBACK")
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
