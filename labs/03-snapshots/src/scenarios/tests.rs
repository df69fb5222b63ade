//! What the crash world relies on, pinned against the real SQLite the lab runs.

use crate::world::{Database, ITEM};

fn available(db: &Database) -> i64 {
    db.connect()
        .query_row(
            "SELECT available FROM inventory WHERE item = ?1",
            [ITEM],
            |r| r.get(0),
        )
        .unwrap()
}

// https://www.sqlite.org/c3ref/close.html: "If an sqlite3 object is destroyed while a
// transaction is open, the transaction is automatically rolled back." The crash world
// closes a crashed request's connection: what it had not committed is gone.
#[test]
fn a_connection_closed_inside_a_transaction_leaves_nothing_of_it() {
    let db = Database::create(2);
    let conn = db.connect();
    conn.execute_batch("BEGIN IMMEDIATE; UPDATE inventory SET available = available - 1;")
        .unwrap();
    drop(conn);
    assert_eq!(available(&db), 2);
}

// https://www.sqlite.org/lang_transaction.html: "Any command that accesses the database
// (basically, any SQL command, except a few PRAGMA statements) will automatically start
// a transaction if one is not already in effect. Automatically started transactions are
// committed when the last SQL statement finishes." A statement outside BEGIN is
// committed on its own, and a crash after it keeps it.
#[test]
fn an_autocommit_statement_stays_when_its_connection_closes_after_it() {
    let db = Database::create(2);
    let conn = db.connect();
    conn.execute("UPDATE inventory SET available = available - 1", [])
        .unwrap();
    drop(conn);
    assert_eq!(available(&db), 1);
}
