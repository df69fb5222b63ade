//! The store's SQLite database: its schema, its connection (pooled when in memory, so that
//! an exploration opening one store per schedule does not open SQLite each time), and the
//! statement cache every query goes through.

use rusqlite::Connection;
use std::cell::RefCell;

/// Every statement goes through SQLite's statement cache: explorations open thousands of
/// stores, and parsing SQL again for every request would dominate their run time.
pub(super) trait Cached {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    fn prepare_cached_query_row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn prepare_cached_query_row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

/// The store's connection. An in-memory one goes back to a small per-thread pool when
/// the store is dropped, emptied, so that the next in-memory store skips opening SQLite,
/// creating the schema and preparing every statement again (an exploration opens one
/// store per schedule). An emptied database is indistinguishable from a new one: every
/// query that returns several rows orders them.
pub(super) struct Db {
    pub(super) connection: Option<Connection>,
    pub(super) pooled: bool,
}

thread_local! {
    pub(super) static POOL: RefCell<Vec<Connection>> = const { RefCell::new(Vec::new()) };
}

/// How many emptied in-memory connections a thread keeps for reuse.
const POOL_SIZE: usize = 4;

/// The statements that empty a pooled database (table by table, so that each is a
/// cached statement; `sqlite_sequence` restarts the audit trail's numbering).
const EMPTY: [&str; 6] = [
    "DELETE FROM buckets",
    "DELETE FROM objects",
    "DELETE FROM bindings",
    "DELETE FROM audit",
    "DELETE FROM generation_clock",
    "DELETE FROM sqlite_sequence",
];

impl std::ops::Deref for Db {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.connection.as_ref().expect("an open connection")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else {
            return;
        };
        if !self.pooled {
            return;
        }
        let emptied = EMPTY
            .iter()
            .all(|sql| connection.execute_cached(sql, []).is_ok());
        if emptied {
            POOL.with(|pool| {
                let mut pool = pool.borrow_mut();
                if pool.len() < POOL_SIZE {
                    pool.push(connection);
                }
            });
        }
    }
}

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS buckets (
    name TEXT PRIMARY KEY,
    versioning INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
    bucket TEXT NOT NULL,
    name TEXT NOT NULL,
    generation INTEGER NOT NULL,
    metageneration INTEGER NOT NULL,
    data BLOB NOT NULL,
    cache_control TEXT,
    live INTEGER NOT NULL,
    PRIMARY KEY (bucket, name, generation)
);
CREATE TABLE IF NOT EXISTS bindings (
    bucket TEXT NOT NULL,
    member TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (bucket, member, role)
);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    principal TEXT NOT NULL,
    method TEXT NOT NULL,
    bucket TEXT NOT NULL,
    name TEXT NOT NULL,
    generation INTEGER,
    status INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS generation_clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    micros INTEGER NOT NULL,
    issued INTEGER NOT NULL,
    seed INTEGER NOT NULL
);
";
