//! The reference solution: one immediate transaction for the reservation, one read
//! transaction (one snapshot) for the report.

use rusqlite::params;
use snapshots::world::{ITEM, Reservation, Session, Totals};

// ANCHOR: reserve
/// The critical read and both writes in one transaction. `BEGIN IMMEDIATE` takes the
/// write lock before the read, so no other writer can commit between the check and the
/// writes; a request that finds the lock taken gets SQLITE_BUSY at once and is retried
/// whole. (A deferred `BEGIN` would also be safe here, because SQLite refuses its stale
/// write with SQLITE_BUSY_SNAPSHOT, but it would do the work and then lose it.)
pub fn reserve(db: &mut Session, qty: i64) -> rusqlite::Result<Reservation> {
    let id = db.who();
    db.execute("BEGIN IMMEDIATE", [])?;
    let available = db.query_i64("SELECT available FROM inventory WHERE item = ?1", [ITEM])?;
    if available < qty {
        db.execute("ROLLBACK", [])?;
        return Ok(Reservation::SoldOut);
    }
    db.execute(
        "INSERT INTO reservations (id, item, qty) VALUES (?1, ?2, ?3)",
        params![id, ITEM, qty],
    )?;
    db.execute(
        "UPDATE inventory SET available = available - ?1 WHERE item = ?2",
        params![qty, ITEM],
    )?;
    db.execute("COMMIT", [])?;
    Ok(Reservation::Confirmed)
}
// ANCHOR_END: reserve

// ANCHOR: reconcile
/// Both queries inside one read transaction. In WAL mode the snapshot is taken at the
/// first SELECT and kept until COMMIT, so the two numbers describe one instant; a
/// reservation that commits meanwhile shows in the next report, and the report never
/// blocks it (a deferred transaction that only reads takes no write lock).
pub fn reconcile(db: &mut Session) -> rusqlite::Result<Totals> {
    db.execute("BEGIN DEFERRED", [])?;
    let available = db.query_i64("SELECT available FROM inventory WHERE item = ?1", [ITEM])?;
    let reserved = db.query_i64(
        "SELECT COALESCE(SUM(qty), 0) FROM reservations WHERE item = ?1",
        [ITEM],
    )?;
    db.execute("COMMIT", [])?;
    Ok(Totals {
        reserved,
        available,
    })
}
// ANCHOR_END: reconcile
