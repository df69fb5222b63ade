//! **Your part.** The reservation and the reconciliation report.
//!
//! Each function gets a [`Session`]: one request's connection to the shared database
//! file (WAL mode, `busy_timeout` zero). Between any two of your statements another
//! request may run to completion. Errors go back to the harness with `?`: when one is
//! SQLITE_BUSY (5) or SQLITE_BUSY_SNAPSHOT (517) the harness rolls back what you left
//! open and runs the whole request again later, as a client would.

use rusqlite::params;
use snapshots::world::{ITEM, Reservation, Session, Totals};

// ANCHOR: reserve
/// Reserves `qty` units of [`ITEM`] under the id `db.who()`: a reservation row and
/// the availability going down by `qty`, or nothing at all when too few are left.
pub fn reserve(db: &mut Session, qty: i64) -> rusqlite::Result<Reservation> {
    let id = db.who();
    // TODO: under every interleaving `cargo labs check 03` explores (another request
    // may run to its end between any two of your statements), these must hold: never
    // more units reserved than on sale; reserved + available = stock; `SoldOut` only
    // when no unit is left; no transaction left open when you answer.
    let check = "SELECT available FROM inventory WHERE item = ?1";
    let available = db.query_i64(check, [ITEM])?;
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
/// The reconciliation report: units reserved and units available, which must add up to
/// the stock.
pub fn reconcile(db: &mut Session) -> rusqlite::Result<Totals> {
    // TODO: the two numbers must describe one instant, whatever commits between your
    // statements; the report must never make a reservation fail, and must end whatever
    // it starts.
    let available = db.query_i64("SELECT available FROM inventory WHERE item = ?1", [ITEM])?;
    let reserved = db.query_i64(
        "SELECT COALESCE(SUM(qty), 0) FROM reservations WHERE item = ?1",
        [ITEM],
    )?;
    Ok(Totals {
        reserved,
        available,
    })
}
// ANCHOR_END: reconcile
