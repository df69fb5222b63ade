//! The statements the observe schedules share.

use crate::world::{ITEM, extended_code};
use rusqlite::{Connection, params};

pub type Result<T> = std::result::Result<T, rusqlite::Error>;

pub fn available(conn: &Connection) -> Result<i64> {
    conn.query_row(
        "SELECT available FROM inventory WHERE item = ?1",
        [ITEM],
        |r| r.get(0),
    )
}

pub fn reserved(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT COALESCE(SUM(qty), 0) FROM reservations", [], |r| {
        r.get(0)
    })
}

/// The ids of the reservation rows, in order.
pub fn reservation_ids(conn: &Connection) -> Result<Vec<String>> {
    let mut statement = conn.prepare("SELECT id FROM reservations ORDER BY id")?;
    let ids = statement.query_map([], |r| r.get(0))?;
    ids.collect()
}

// ANCHOR: statements
pub fn insert_reservation(conn: &Connection, id: &str) -> Result<usize> {
    conn.execute(
        "INSERT INTO reservations VALUES (?1, ?2, 1)",
        params![id, ITEM],
    )
}

/// Writes back an availability computed from a number read earlier.
pub fn set_available(conn: &Connection, value: i64) -> Result<usize> {
    conn.execute(
        "UPDATE inventory SET available = ?1 WHERE item = ?2",
        params![value, ITEM],
    )
}

/// A whole, correct reservation of one unit by another request.
pub fn reserve_whole(conn: &Connection, id: &str) -> Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    insert_reservation(conn, id)?;
    conn.execute(
        "UPDATE inventory SET available = available - 1 WHERE item = ?1",
        [ITEM],
    )?;
    conn.execute_batch("COMMIT")
}
// ANCHOR_END: statements

/// The extended result code of a failed statement (`None` when it succeeded).
pub fn code<T>(result: &Result<T>) -> Option<i32> {
    result.as_ref().err().and_then(extended_code)
}
