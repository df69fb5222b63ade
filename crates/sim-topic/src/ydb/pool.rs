//! In-memory databases kept for the next world. An exploration builds thousands of worlds,
//! one database each, and a fresh connection prepares every statement again: that parsing
//! was a fifth of lab 10's graded exploration. A database whose world has ended is emptied
//! (every row of every table deleted, the schema and the prepared statements kept) and
//! handed to the next world on the same thread, which sees what a fresh one shows: empty
//! tables, read by key or in `ORDER BY` order.

use rusqlite::Connection;
use std::cell::RefCell;
use std::ops::Deref;

/// How many emptied databases a thread keeps.
const KEPT: usize = 4;

thread_local! {
    static SPARE: RefCell<Vec<Connection>> = const { RefCell::new(Vec::new()) };
}

/// A world's connection: one from the pool (returned, emptied, when the world ends), or
/// one the caller opened (a file, closed with the world).
pub struct Db {
    conn: Option<Connection>,
    pooled: bool,
}

impl Db {
    /// An empty in-memory database, from the pool when it has one.
    pub fn in_memory() -> Db {
        let spare = SPARE.with(|s| s.borrow_mut().pop());
        let conn =
            spare.unwrap_or_else(|| Connection::open_in_memory().expect("open in-memory SQLite"));
        Db {
            conn: Some(conn),
            pooled: true,
        }
    }

    /// The caller's own connection, never pooled.
    pub fn owned(conn: Connection) -> Db {
        Db {
            conn: Some(conn),
            pooled: false,
        }
    }
}

impl Deref for Db {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn.as_ref().expect("a live world's connection")
    }
}

/// Deletes every row of every table; false when the database cannot be emptied.
fn emptied(conn: &Connection) -> bool {
    if !conn.is_autocommit() && conn.execute_batch("ROLLBACK").is_err() {
        return false;
    }
    let tables: Vec<String> = match conn
        .prepare_cached("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
    {
        Ok(tables) => tables,
        Err(_) => return false,
    };
    tables
        .iter()
        .all(|table| conn.execute(&format!("DELETE FROM {table}"), []).is_ok())
}

impl Drop for Db {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        if self.pooled && emptied(&conn) {
            SPARE.with(|s| {
                let mut spare = s.borrow_mut();
                if spare.len() < KEPT {
                    spare.push(conn);
                }
            });
        }
    }
}
