//! The graded scenarios. No threads and no sleeping: a request runs until its next SQL
//! statement, and before every statement the fault core chooses whether another request
//! arrives *now* and runs — until it answers or fails — before this one goes on.
//! Exploring every such choice covers every way a second or third request can slip
//! between two statements of the first. A request that gets `SQLITE_BUSY` is rolled back
//! by the harness and tries again later, as a client would.

use crate::invariants::check_reservations;
use crate::world::{Database, Reservation, Scheduler, Session, Totals, describe_error, is_busy};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation};
use rusqlite::Connection;

mod report;
#[cfg(test)]
mod tests;

pub use report::{explore_lost_unit, explore_reconciliation, lost_unit, reconciliation};

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
    /// The crash world: no early arrivals; a process may crash before a statement.
    crashes: bool,
    /// Which process crashed, before which statement.
    crashed: Option<String>,
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
        if waiting.is_empty() || self.requests.crashes {
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

    fn crashes(&mut self, who: &'static str, sql: &str) -> bool {
        if !self.requests.crashes || self.requests.crashed.is_some() {
            return false;
        }
        if self.sim.choose("crash", &["go on", "the process crashes"]) == 0 {
            return false;
        }
        let next = sql.split_whitespace().next().unwrap_or("").to_string();
        let crash = format!("{who}'s process crashed before its {next}");
        self.sim
            .event(who, Glyph::Fault, || (crash.clone(), String::new()));
        self.requests.crashed = Some(crash);
        true
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
    let (result, crashed) = {
        let mut nested = Interleaver {
            yours,
            conns,
            sim: &mut *sim,
            requests: &mut *requests,
        };
        let mut session = Session::new(&conns[i], who, &mut nested);
        let result = (yours.reserve)(&mut session, 1);
        (result, session.crashed())
    };
    // What is left open is rolled back (a crashed process's connection closes: SQLite
    // rolls back its open transaction).
    let left_open = !conns[i].is_autocommit() && conns[i].execute_batch("ROLLBACK").is_ok();
    if crashed {
        return resend_after_crash(sim, requests, i);
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

/// A crashed request's connection has closed; its client sends the request again.
fn resend_after_crash(sim: &mut Sim, requests: &mut Requests, i: usize) {
    sim.event(requests.names[i], Glyph::Recover, || {
        let truth = "its open transaction rolled back; what it committed stays".into();
        ("the client sends the request again".into(), truth)
    });
    requests.retry.push(i);
}

// ANCHOR: reservations
/// The graded reservation scenario: three requests for one unit each, two units on sale.
pub fn reservations(yours: Protocol, sim: &mut Sim) -> Verdict {
    reservations_in(yours, sim, false)
}
// ANCHOR_END: reservations

/// The crash world: the requests arrive one after another, and the fault core may crash
/// a request's process before any of its statements; its client sends it again.
pub fn crashed_reservations(yours: Protocol, sim: &mut Sim) -> Verdict {
    reservations_in(yours, sim, true)
}

fn reservations_in(yours: Protocol, sim: &mut Sim, crashes: bool) -> Verdict {
    let db = Database::create(STOCK);
    let conns: Vec<Connection> = REQUESTS.iter().map(|_| db.connect()).collect();
    let mut requests = Requests {
        names: REQUESTS.to_vec(),
        arrived: vec![false; REQUESTS.len()],
        attempts: vec![0; REQUESTS.len()],
        answers: vec![None; REQUESTS.len()],
        retry: Vec::new(),
        failure: None,
        crashes,
        crashed: None,
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
                        "Let {} fail (SQLITE_BUSY or a crash) {MAX_ATTEMPTS} times. Then it never answered.",
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
    check_reservations(&db.connect(), &requests.answers, requests.crashed)
}

/// Every schedule of the reservation scenario with up to `max_faults` early arrivals.
pub fn explore_reservations(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "reservations",
        max_faults,
    };
    fault::explore(scope, |sim| reservations(yours, sim))
}

/// Every schedule of the crash world with up to `max_faults` crashes.
pub fn explore_crashes(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "crashes",
        max_faults,
    };
    fault::explore(scope, |sim| crashed_reservations(yours, sim))
}

fn replay_reservations(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| reservations(yours, sim))
}

fn replay_crashes(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| crashed_reservations(yours, sim))
}

/// The scenarios `cargo labs replay 03 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("reservations", replay_reservations),
    ("crashes", replay_crashes),
    ("reconciliation", report::replay_reconciliation),
    ("lost-unit", report::replay_lost_unit),
];
