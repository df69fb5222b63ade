//! Wrong solution: the availability is checked before the transaction that writes.

use crate::world::{ITEM, Reservation, Session, Totals};
use rusqlite::params;

// ANCHOR: reserve
/// Reserves `qty` units of [`ITEM`] under the id `db.who()`: a reservation row and the
/// availability going down by `qty`, or nothing at all when too few units are left.
pub fn reserve(db: &mut Session, qty: i64) -> rusqlite::Result<Reservation> {
    let id = db.who();
    // Check first; the writes that follow are one transaction.
    let available = db.query_i64("SELECT available FROM inventory WHERE item = ?1", [ITEM])?;
    if available < qty {
        return Ok(Reservation::SoldOut);
    }
    db.execute("BEGIN", [])?;
    db.execute(
        "INSERT INTO reservations (id, item, qty) VALUES (?1, ?2, ?3)",
        params![id, ITEM, qty],
    )?;
    db.execute(
        "UPDATE inventory SET available = ?1 WHERE item = ?2",
        params![available - qty, ITEM],
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
