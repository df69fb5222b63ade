//! The world your reservation talks to. Complete code: read it, do not change it.
//!
//! One SQLite file database in WAL mode and one connection per concurrent request. Every
//! statement goes through a [`Session`], the point where the graded scenarios let
//! another request run first. Every connection has `busy_timeout` zero (rusqlite's
//! default is 5 s), so a request that meets another's write lock gets `SQLITE_BUSY` at
//! once instead of waiting on the wall clock.

use rusqlite::{Connection, ErrorCode, Params, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The item every request wants one unit of.
pub const ITEM: &str = "seat-A";

/// A request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// The reservation row exists and the availability went down with it.
    Confirmed,
    /// Not enough units: nothing was written.
    SoldOut,
}

/// What a reconciliation report shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Totals {
    /// Units held by reservations.
    pub reserved: i64,
    /// Units still on sale.
    pub available: i64,
}

pub const SCHEMA: &str = "
    CREATE TABLE inventory (item TEXT PRIMARY KEY, available INTEGER NOT NULL);
    CREATE TABLE reservations (id TEXT PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL);";

// ANCHOR: open
/// Opens a connection the way every request in this lab does: WAL mode (readers keep
/// their snapshot while a writer commits) and no busy waiting (contention is an error
/// the schedule can see, never a stall on the wall clock).
pub fn open(path: &Path) -> Connection {
    let conn = Connection::open(path).expect("open the database file");
    conn.busy_timeout(Duration::ZERO).expect("busy_timeout");
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .expect("journal_mode");
    assert_eq!(mode, "wal");
    // WAL's usual companion: a commit waits for no fsync, only a checkpoint does. It
    // loses no consistency, and this lab simulates no power cut.
    conn.pragma_update(None, "synchronous", "NORMAL")
        .expect("synchronous");
    conn
}
// ANCHOR_END: open

static DATABASES: AtomicU64 = AtomicU64::new(0);

/// A fresh database file in its own folder, removed when dropped.
pub struct Database {
    dir: PathBuf,
}

impl Database {
    /// Creates the schema with `stock` units of [`ITEM`] available.
    pub fn create(stock: i64) -> Database {
        let n = DATABASES.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("boundary-lab03-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("database folder");
        let db = Database { dir };
        let conn = db.connect();
        conn.execute_batch(SCHEMA).expect("schema");
        conn.execute(
            "INSERT INTO inventory VALUES (?1, ?2)",
            params![ITEM, stock],
        )
        .expect("stock");
        db
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join("reservations.db")
    }

    pub fn connect(&self) -> Connection {
        open(&self.path())
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The extended result code of a SQLite error (5 = SQLITE_BUSY, 517 =
/// SQLITE_BUSY_SNAPSHOT), if it is one.
pub fn extended_code(error: &rusqlite::Error) -> Option<i32> {
    match error {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.extended_code),
        _ => None,
    }
}

/// True for SQLITE_BUSY and its extended codes: "not now, try again".
pub fn is_busy(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
}

pub fn describe_error(error: &rusqlite::Error) -> String {
    match extended_code(error) {
        Some(517) => "SQLITE_BUSY_SNAPSHOT (517)".into(),
        Some(5) => "SQLITE_BUSY (5)".into(),
        _ => error.to_string(),
    }
}

/// What runs between two statements of a request. The graded harness lets other
/// requests arrive there; [`Direct`] does nothing.
pub trait Scheduler {
    fn before(&mut self, who: &'static str, sql: &str);
    fn after(&mut self, who: &'static str, sql: &str, failed: bool, outcome: &dyn Fn() -> String);
    /// True when the request's process crashes before sending `sql`: the graded crash
    /// world's choice. Nothing crashes unless a scheduler says so.
    fn crashes(&mut self, _who: &'static str, _sql: &str) -> bool {
        false
    }
}

/// No interleaving: every statement runs at once.
pub struct Direct;

impl Scheduler for Direct {
    fn before(&mut self, _: &'static str, _: &str) {}
    fn after(&mut self, _: &'static str, _: &str, _: bool, _: &dyn Fn() -> String) {}
}

// ANCHOR: session
/// One request's connection. Every statement goes through [`Session::execute`] or
/// [`Session::query_i64`], which are the points where another request may run.
pub struct Session<'a> {
    conn: &'a Connection,
    who: &'static str,
    scheduler: &'a mut dyn Scheduler,
    crashed: bool,
}

impl<'a> Session<'a> {
    pub fn new(conn: &'a Connection, who: &'static str, scheduler: &'a mut dyn Scheduler) -> Self {
        Session {
            conn,
            who,
            scheduler,
            crashed: false,
        }
    }

    /// True once the request's process has crashed: no statement reaches the database
    /// after that, and the harness closes the connection (SQLite rolls back whatever
    /// transaction was open; what was committed stays).
    pub fn crashed(&self) -> bool {
        self.crashed
    }

    /// The crash point before each statement: once crashed, every call fails.
    fn alive(&mut self, sql: &str) -> rusqlite::Result<()> {
        if !self.crashed && self.scheduler.crashes(self.who, sql) {
            self.crashed = true;
        }
        match self.crashed {
            true => Err(rusqlite::Error::InvalidQuery),
            false => Ok(()),
        }
    }

    /// The request's name, e.g. `r1`: use it as the reservation's id.
    pub fn who(&self) -> &'static str {
        self.who
    }

    /// Runs a statement that returns no rows: `BEGIN IMMEDIATE`, `INSERT`, `COMMIT`, …
    pub fn execute(&mut self, sql: &str, params: impl Params) -> rusqlite::Result<usize> {
        self.alive(sql)?;
        self.scheduler.before(self.who, sql);
        let result = self.conn.execute(sql, params);
        self.scheduler
            .after(self.who, sql, result.is_err(), &|| match &result {
                Ok(_) => "ok".into(),
                Err(e) => describe_error(e),
            });
        result
    }

    /// Runs a query that returns one integer (the first column of the first row).
    pub fn query_i64(&mut self, sql: &str, params: impl Params) -> rusqlite::Result<i64> {
        self.alive(sql)?;
        self.scheduler.before(self.who, sql);
        let result = self.conn.query_row(sql, params, |r| r.get(0));
        self.scheduler
            .after(self.who, sql, result.is_err(), &|| match &result {
                Ok(v) => format!("-> {v}"),
                Err(e) => describe_error(e),
            });
        result
    }
}
// ANCHOR_END: session
