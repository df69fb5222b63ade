//! The graded scenarios. No threads and no sleeping: a request runs until its next SQL
//! statement, and before every statement the fault core chooses whether another request
//! arrives *now* and runs — until it answers or fails — before this one goes on.
//! Exploring every such choice covers every way a second or third request can slip
//! between two statements of the first. A request that gets `SQLITE_BUSY` is rolled back
//! by the harness and tries again later, as a client would.

use crate::invariants::{check_report, check_reservations, sql_violation};
use crate::world::{
    Database, ITEM, Reservation, Scheduler, Session, Totals, describe_error, is_busy,
};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation};
use rusqlite::{Connection, params};

/// Units on sale in the reservation scenario: three requests, two units.
pub const STOCK: i64 = 2;
/// The concurrent requests of the reservation scenario.
pub const REQUESTS: [&str; 3] = ["r1", "r2", "r3"];
/// Units on sale in the reconciliation scenario.
pub const REPORT_STOCK: i64 = 10;
/// Your functions from `reserve.rs`, as the graded worlds call them (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub reserve: fn(&mut Session, i64) -> rusqlite::Result<Reservation>,
    pub reconcile: fn(&mut Session) -> rusqlite::Result<Totals>,
}

/// A request that failed with SQLITE_BUSY this many times has not been answered.
pub const MAX_ATTEMPTS: u32 = 4;

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
    yours: Protocol,
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
            attempt(self.yours, self.conns, self.sim, self.requests, other);
        }
    }

    fn after(&mut self, who: &'static str, sql: &str, failed: bool, outcome: &dyn Fn() -> String) {
        let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let glyph = if failed { Glyph::Error } else { Glyph::Normal };
        self.sim.event(who, glyph, || (sql, outcome()));
    }
}

/// Runs one attempt of request `i` on its own connection.
fn attempt(
    yours: Protocol,
    conns: &[Connection],
    sim: &mut Sim,
    requests: &mut Requests,
    i: usize,
) {
    requests.arrived[i] = true;
    requests.attempts[i] += 1;
    let who = requests.names[i];
    let result = {
        let mut nested = Interleaver {
            yours,
            conns,
            sim: &mut *sim,
            requests: &mut *requests,
        };
        let mut session = Session::new(&conns[i], who, &mut nested);
        (yours.reserve)(&mut session, 1)
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
                        "Let {who} answer {answer:?}. Then its transaction was still open when it answered: it still held what it had begun (a snapshot, perhaps the write lock), and nothing it wrote was committed."
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
pub fn reservations(yours: Protocol, sim: &mut Sim) -> Verdict {
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
            attempt(yours, &conns, sim, &mut requests, i);
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
            attempt(yours, &conns, sim, &mut requests, i);
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
pub fn reconciliation(yours: Protocol, sim: &mut Sim) -> Verdict {
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
        (yours.reconcile)(&mut session)
    };
    let totals = totals.map_err(sql_violation)?;
    check_report(totals, report_conn.is_autocommit(), writers.blocked)
}
// ANCHOR_END: reconciliation

/// Every schedule of the reservation scenario with up to `max_faults` early arrivals.
pub fn explore_reservations(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "reservations",
        max_faults,
    };
    fault::explore(scope, |sim| reservations(yours, sim))
}

/// Every schedule of the reconciliation scenario with up to `max_faults` writers
/// arriving (two is all there are).
pub fn explore_reconciliation(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "reconciliation",
        max_faults,
    };
    fault::explore(scope, |sim| reconciliation(yours, sim))
}

fn replay_reservations(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| reservations(yours, sim))
}

fn replay_reconciliation(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| reconciliation(yours, sim))
}

/// The scenarios `cargo labs replay 03 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("reservations", replay_reservations),
    ("reconciliation", replay_reconciliation),
];
