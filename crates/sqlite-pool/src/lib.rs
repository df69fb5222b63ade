//! In-memory SQLite databases kept for the next world. An exploration builds thousands of
//! worlds, a database or two each, and a fresh connection parses its schema and prepares
//! every statement again: that parsing was a fifth of lab 10's and lab 06's graded
//! explorations. A database whose world has ended is emptied (every row of every table
//! deleted; the schema and the prepared statements kept) and handed to the next world on
//! the same thread that asks for the same schema. The next world sees what a fresh
//! database shows: empty tables, read by key or in `ORDER BY` order.

use rusqlite::Connection;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Deref;

/// How many emptied databases a thread keeps per schema.
const KEPT: usize = 4;

thread_local! {
    static SPARE: RefCell<BTreeMap<&'static str, Vec<Connection>>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// A world's database: an in-memory one from the pool (emptied and returned when the
/// world ends), or one the caller opened (a file, closed with the world).
pub struct Db {
    conn: Option<Connection>,
    schema: Option<&'static str>,
}

impl Db {
    /// An empty in-memory database with `schema`: a spare one when the thread has one,
    /// else a new one that runs `schema` once.
    pub fn empty(schema: &'static str) -> Db {
        let spare = SPARE.with(|s| s.borrow_mut().get_mut(schema).and_then(Vec::pop));
        let conn = spare.unwrap_or_else(|| {
            let conn = Connection::open_in_memory().expect("open in-memory SQLite");
            conn.execute_batch(schema).expect("the schema");
            // Room for every statement a world prepares, and stable query plans: without
            // them SQLite may prepare a statement again whenever a parameter it compares
            // is bound.
            conn.set_prepared_statement_cache_capacity(64);
            let stable = rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG;
            conn.set_db_config(stable, true).expect("stable plans");
            conn
        });
        Db {
            conn: Some(conn),
            schema: Some(schema),
        }
    }

    /// The caller's own connection, never kept.
    pub fn owned(conn: Connection) -> Db {
        Db {
            conn: Some(conn),
            schema: None,
        }
    }
}

impl Deref for Db {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn.as_ref().expect("a live world's database")
    }
}

/// Deletes every row of every table; false when the database cannot be emptied.
fn emptied(conn: &Connection) -> bool {
    if !conn.is_autocommit() && conn.execute_batch("ROLLBACK").is_err() {
        return false;
    }
    let tables: rusqlite::Result<Vec<String>> = conn
        .prepare_cached("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect());
    let Ok(tables) = tables else { return false };
    tables.iter().all(|table| {
        conn.prepare_cached(&format!("DELETE FROM \"{table}\""))
            .and_then(|mut s| s.execute([]))
            .is_ok()
    })
}

impl Drop for Db {
    fn drop(&mut self) {
        let (Some(conn), Some(schema)) = (self.conn.take(), self.schema) else {
            return;
        };
        if emptied(&conn) {
            SPARE.with(|s| {
                let mut spare = s.borrow_mut();
                let kept = spare.entry(schema).or_default();
                if kept.len() < KEPT {
                    kept.push(conn);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Db;

    const SCHEMA: &str = "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL);";

    #[test]
    fn a_kept_database_comes_back_empty_with_its_schema() {
        let first = Db::empty(SCHEMA);
        first.execute("INSERT INTO t VALUES (1, 'a')", []).unwrap();
        first
            .execute_batch("BEGIN; INSERT INTO t VALUES (2, 'b');")
            .unwrap();
        drop(first);
        let second = Db::empty(SCHEMA);
        let rows: i64 = second
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            rows, 0,
            "every row is gone, the open transaction rolled back"
        );
        assert!(second.is_autocommit());
        second.execute("INSERT INTO t VALUES (1, 'c')", []).unwrap();
    }
}
