//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! One SQLite file database in WAL mode and one connection per concurrent request. No
//! threads and no sleeping: a request runs until its next SQL statement, and before every
//! statement the fault core chooses whether another request arrives *now* and runs —
//! until it answers or fails — before this one goes on. Exploring every such choice
//! covers every way a second or third request can slip between two statements of the
//! first. Every connection has `busy_timeout` zero (rusqlite's default is 5 s), so a
//! request that meets another's write lock gets `SQLITE_BUSY` at once; the harness rolls
//! back whatever it left open and lets it try again later, as a client would.

use crate::reserve::{reconcile, reserve};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation};
use labkit::figure::Sequence;
use rusqlite::{Connection, ErrorCode, Params, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The item every request wants one unit of.
pub const ITEM: &str = "seat-A";
/// Units on sale in the reservation scenario: three requests, two units.
pub const STOCK: i64 = 2;
/// The concurrent requests of the reservation scenario.
pub const REQUESTS: [&str; 3] = ["r1", "r2", "r3"];
/// Units on sale in the reconciliation scenario.
pub const REPORT_STOCK: i64 = 10;
/// A request that failed with SQLITE_BUSY this many times has not been answered.
pub const MAX_ATTEMPTS: u32 = 4;

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

fn describe_error(error: &rusqlite::Error) -> String {
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
}

impl<'a> Session<'a> {
    pub fn new(conn: &'a Connection, who: &'static str, scheduler: &'a mut dyn Scheduler) -> Self {
        Session {
            conn,
            who,
            scheduler,
        }
    }

    /// The request's name, e.g. `r1`: use it as the reservation's id.
    pub fn who(&self) -> &'static str {
        self.who
    }

    /// Runs a statement that returns no rows: `BEGIN IMMEDIATE`, `INSERT`, `COMMIT`, …
    pub fn execute(&mut self, sql: &str, params: impl Params) -> rusqlite::Result<usize> {
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

/// The requests of one schedule: who has arrived, who answered what, who must retry.
struct Requests {
    names: Vec<&'static str>,
    arrived: Vec<bool>,
    attempts: Vec<u32>,
    answers: Vec<Option<Reservation>>,
    retry: Vec<usize>,
    failure: Option<Violation>,
}

/// The graded scheduler: before each statement of the running request, another request
/// that has not arrived yet may arrive and run.
struct Interleaver<'w> {
    conns: &'w [Connection],
    sim: &'w mut Sim,
    requests: &'w mut Requests,
}

const ARRIVES: [&str; 3] = ["r1 arrives now", "r2 arrives now", "r3 arrives now"];

impl Scheduler for Interleaver<'_> {
    fn before(&mut self, who: &'static str, sql: &str) {
        let waiting: Vec<usize> = (0..self.requests.names.len())
            .filter(|&i| !self.requests.arrived[i])
            .collect();
        if waiting.is_empty() {
            return;
        }
        let mut options = vec!["continue"];
        options.extend(waiting.iter().map(|&i| ARRIVES[i]));
        let pick = self.sim.choose("arrival", &options);
        if pick > 0 {
            let other = waiting[pick - 1];
            let name = self.requests.names[other];
            let next = sql.split_whitespace().next().unwrap_or("").to_string();
            self.sim.event(name, Glyph::Fault, || {
                (format!("arrives before {who}'s {next}"), String::new())
            });
            attempt(self.conns, self.sim, self.requests, other);
        }
    }

    fn after(&mut self, who: &'static str, sql: &str, failed: bool, outcome: &dyn Fn() -> String) {
        let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let glyph = if failed { Glyph::Error } else { Glyph::Normal };
        self.sim.event(who, glyph, || (sql, outcome()));
    }
}

/// Runs one attempt of request `i` on its own connection.
fn attempt(conns: &[Connection], sim: &mut Sim, requests: &mut Requests, i: usize) {
    requests.arrived[i] = true;
    requests.attempts[i] += 1;
    let who = requests.names[i];
    let result = {
        let mut nested = Interleaver {
            conns,
            sim: &mut *sim,
            requests: &mut *requests,
        };
        let mut session = Session::new(&conns[i], who, &mut nested);
        reserve(&mut session, 1)
    };
    let left_open = !conns[i].is_autocommit();
    if left_open {
        let _ = conns[i].execute_batch("ROLLBACK");
    }
    match result {
        Ok(answer) => {
            sim.event(who, Glyph::Normal, || {
                (format!("answers {answer:?}"), String::new())
            });
            if left_open {
                requests.failure.get_or_insert(Violation::new(
                    "a request commits or rolls back before it answers",
                    &[format!(
                        "Let {who} answer {answer:?}. Then its transaction was still open: nothing it wrote is committed."
                    )],
                ));
            }
            requests.answers[i] = Some(answer);
        }
        Err(e) if is_busy(&e) => {
            sim.event(who, Glyph::Error, || {
                (
                    format!("fails with {}; rolled back, will retry", describe_error(&e)),
                    String::new(),
                )
            });
            requests.retry.push(i);
        }
        Err(e) => {
            requests.failure.get_or_insert(Violation::new(
                "no unexpected SQL error",
                &[format!("{who} failed with {e}.")],
            ));
        }
    }
}

// ANCHOR: reservations
/// The graded reservation scenario: three requests for one unit each, two units on sale.
pub fn reservations(sim: &mut Sim) -> Verdict {
    let db = Database::create(STOCK);
    let conns: Vec<Connection> = REQUESTS.iter().map(|_| db.connect()).collect();
    let mut requests = Requests {
        names: REQUESTS.to_vec(),
        arrived: vec![false; REQUESTS.len()],
        attempts: vec![0; REQUESTS.len()],
        answers: vec![None; REQUESTS.len()],
        retry: Vec::new(),
        failure: None,
    };
    loop {
        if let Some(i) = requests.arrived.iter().position(|a| !a) {
            attempt(&conns, sim, &mut requests, i);
        } else if !requests.retry.is_empty() {
            let i = requests.retry.remove(0);
            if requests.attempts[i] >= MAX_ATTEMPTS {
                return Err(Violation::new(
                    "every request gets an answer",
                    &[format!(
                        "Let {} fail with SQLITE_BUSY {MAX_ATTEMPTS} times. Then it never answered.",
                        REQUESTS[i]
                    )],
                ));
            }
            attempt(&conns, sim, &mut requests, i);
        } else {
            break;
        }
        if let Some(failure) = requests.failure.take() {
            return Err(failure);
        }
    }
    drop(conns);
    check_reservations(&db.connect(), &requests.answers)
}
// ANCHOR_END: reservations

fn check_reservations(conn: &Connection, answers: &[Option<Reservation>]) -> Verdict {
    let available: i64 = conn
        .query_row(
            "SELECT available FROM inventory WHERE item = ?1",
            [ITEM],
            |r| r.get(0),
        )
        .map_err(sql_violation)?;
    let reserved: i64 = conn
        .query_row("SELECT COALESCE(SUM(qty), 0) FROM reservations", [], |r| {
            r.get(0)
        })
        .map_err(sql_violation)?;
    let confirmed: Vec<&str> = REQUESTS
        .iter()
        .zip(answers)
        .filter(|(_, a)| **a == Some(Reservation::Confirmed))
        .map(|(name, _)| *name)
        .collect();
    if reserved > STOCK {
        return Err(Violation::new(
            "never more reservations than units",
            &[
                format!("Let {STOCK} units be on sale and {} requests each reserve one.", REQUESTS.len()),
                format!("Then {reserved} units are reserved ({} confirmed).", confirmed.join(", ")),
                "Contradiction: each request checked availability before a write it did not make atomic with the check.".into(),
            ],
        ));
    }
    if reserved + available != STOCK {
        return Err(Violation::new(
            "reserved + available = stock",
            &[
                format!("Let the stock be {STOCK}."),
                format!("Then {reserved} are reserved and {available} still show as available."),
                "Contradiction: an update of the availability was computed from a value another request had already changed.".into(),
            ],
        ));
    }
    for (name, answer) in REQUESTS.iter().zip(answers) {
        let rows: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM reservations WHERE id = ?1",
                [name],
                |r| r.get(0),
            )
            .map_err(sql_violation)?;
        let expected = i64::from(*answer == Some(Reservation::Confirmed));
        if rows != expected {
            return Err(Violation::new(
                "a request's answer matches its row",
                &[format!(
                    "Let {name} answer {answer:?}. Then it has {rows} reservation rows, not {expected}."
                )],
            ));
        }
    }
    Ok(())
}

fn sql_violation(e: rusqlite::Error) -> Violation {
    Violation::new("no unexpected SQL error", &[e.to_string()])
}

/// The reconciliation scenario's scheduler: up to two reservations may arrive between
/// the report's statements; each runs whole, as one immediate transaction.
struct Writers<'w> {
    conns: &'w [Connection],
    sim: &'w mut Sim,
    arrived: [bool; 2],
    blocked: Option<String>,
}

const WRITERS: [&str; 2] = ["w1", "w2"];
const WRITER_ARRIVES: [&str; 2] = ["w1 arrives now", "w2 arrives now"];

impl Scheduler for Writers<'_> {
    fn before(&mut self, who: &'static str, sql: &str) {
        let waiting: Vec<usize> = (0..2).filter(|&i| !self.arrived[i]).collect();
        if waiting.is_empty() {
            return;
        }
        let mut options = vec!["continue"];
        options.extend(waiting.iter().map(|&i| WRITER_ARRIVES[i]));
        let pick = self.sim.choose("arrival", &options);
        if pick == 0 {
            return;
        }
        let w = waiting[pick - 1];
        self.arrived[w] = true;
        let next = sql.split_whitespace().next().unwrap_or("").to_string();
        self.sim.event(WRITERS[w], Glyph::Fault, || {
            (format!("arrives before {who}'s {next}"), String::new())
        });
        let result = reserve_one(&self.conns[w], WRITERS[w]);
        self.sim.event(WRITERS[w], Glyph::Normal, || match &result {
            Ok(()) => ("reserves 1 unit, commits".into(), String::new()),
            Err(e) => (
                format!("BEGIN IMMEDIATE: {}", describe_error(e)),
                String::new(),
            ),
        });
        if let Err(e) = result {
            let _ = self.conns[w].execute_batch("ROLLBACK");
            self.blocked.get_or_insert(describe_error(&e));
        }
    }

    fn after(&mut self, who: &'static str, sql: &str, failed: bool, outcome: &dyn Fn() -> String) {
        let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let glyph = if failed { Glyph::Error } else { Glyph::Normal };
        self.sim.event(who, glyph, || (sql, outcome()));
    }
}

/// A correct reservation of one unit, used by the reconciliation scenario's writers.
fn reserve_one(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    conn.execute(
        "INSERT INTO reservations VALUES (?1, ?2, 1)",
        params![id, ITEM],
    )?;
    conn.execute(
        "UPDATE inventory SET available = available - 1 WHERE item = ?1",
        [ITEM],
    )?;
    conn.execute_batch("COMMIT")
}

// ANCHOR: reconciliation
/// The graded reconciliation scenario: the report runs while up to two reservations
/// commit between its statements.
pub fn reconciliation(sim: &mut Sim) -> Verdict {
    let db = Database::create(REPORT_STOCK);
    let report_conn = db.connect();
    let writer_conns = [db.connect(), db.connect()];
    let mut writers = Writers {
        conns: &writer_conns,
        sim,
        arrived: [false; 2],
        blocked: None,
    };
    let totals = {
        let mut session = Session::new(&report_conn, "report", &mut writers);
        reconcile(&mut session)
    };
    let Totals {
        reserved,
        available,
    } = totals.map_err(sql_violation)?;
    if !report_conn.is_autocommit() {
        return Err(Violation::new(
            "the report ends its read transaction",
            &["Let the report return its totals. Then its transaction was still open, pinning an old snapshot.".into()],
        ));
    }
    if let Some(error) = writers.blocked {
        return Err(Violation::new(
            "the report never blocks a reservation",
            &[
                format!("Let a reservation arrive while the report runs. Then its BEGIN IMMEDIATE failed with {error}."),
                "Contradiction: a read-only report took the write lock; in WAL mode a read transaction needs none.".into(),
            ],
        ));
    }
    if reserved + available != REPORT_STOCK {
        return Err(Violation::new(
            "the report's totals agree",
            &[
                format!("Let the stock be {REPORT_STOCK}."),
                format!("Then the report shows {reserved} reserved and {available} available."),
                "Contradiction: its queries read two different instants; a reservation committed between them.".into(),
            ],
        ));
    }
    Ok(())
}
// ANCHOR_END: reconciliation

/// Every schedule of the reservation scenario with up to `max_faults` early arrivals.
pub fn explore_reservations(max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "reservations",
        max_faults,
    };
    fault::explore(scope, reservations)
}

/// Every schedule of the reconciliation scenario (up to two writers arriving).
pub fn explore_reconciliation() -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "reconciliation",
        max_faults: 2,
    };
    fault::explore(scope, reconciliation)
}

fn replay_reservations(token: &Token) -> Replay {
    fault::replay(token, reservations)
}

fn replay_reconciliation(token: &Token) -> Replay {
    fault::replay(token, reconciliation)
}

/// The scenarios `cargo labs replay 03 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("reservations", replay_reservations),
    ("reconciliation", replay_reconciliation),
];

/// The figures of chapter 3.
pub fn figures() -> Vec<(&'static str, String)> {
    let oversell = Sequence::new(
        "A separate check, then the writes: one unit, two reservations",
        &["request A", "reservations.db", "request B"],
    )
    .call("request A", "reservations.db", "SELECT available")
    .reply("reservations.db", "request A", "1")
    .call("request B", "reservations.db", "SELECT available")
    .reply("reservations.db", "request B", "1")
    .call(
        "request B",
        "reservations.db",
        "BEGIN; INSERT B; UPDATE available = 0; COMMIT",
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN; INSERT A; UPDATE available = 0; COMMIT",
    )
    .note("reservations.db", "2 reservations, available 0: oversold");
    let busy_snapshot = Sequence::new(
        "A deferred transaction that reads, then writes (WAL mode)",
        &["request A", "reservations.db", "request B"],
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN DEFERRED; SELECT available",
    )
    .reply("reservations.db", "request A", "1 (snapshot taken)")
    .call(
        "request B",
        "reservations.db",
        "BEGIN IMMEDIATE; INSERT B; UPDATE; COMMIT",
    )
    .call("request A", "reservations.db", "INSERT A")
    .reply("reservations.db", "request A", "SQLITE_BUSY_SNAPSHOT (517)")
    .note(
        "reservations.db",
        "A's snapshot is stale: A rolls back, runs it all again",
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN IMMEDIATE; SELECT available",
    )
    .reply("reservations.db", "request A", "0: sold out")
    .call("request A", "reservations.db", "ROLLBACK");
    let report = Sequence::new(
        "A reconciliation report: two reads, or one snapshot",
        &["report", "reservations.db", "request B"],
    )
    .divider("two separate reads")
    .call("report", "reservations.db", "SELECT available")
    .reply("reservations.db", "report", "10")
    .call("request B", "reservations.db", "reserve 1 unit; COMMIT")
    .call("report", "reservations.db", "SELECT SUM(qty)")
    .reply("reservations.db", "report", "1: totals 11 of 10")
    .divider("one read transaction")
    .call("report", "reservations.db", "BEGIN; SELECT available")
    .reply("reservations.db", "report", "9 (snapshot taken)")
    .call("request B", "reservations.db", "reserve 1 unit; COMMIT")
    .call("report", "reservations.db", "SELECT SUM(qty); COMMIT")
    .reply("reservations.db", "report", "1: totals 10 of 10");
    vec![
        ("03-oversell.svg", oversell.to_svg()),
        ("03-busy-snapshot.svg", busy_snapshot.to_svg()),
        ("03-snapshot-report.svg", report.to_svg()),
    ]
}
