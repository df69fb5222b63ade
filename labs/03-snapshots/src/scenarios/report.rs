//! The reconciliation report's graded worlds: the report while reservations commit
//! between its statements, and the report of a database an earlier crash left short.

use super::{Protocol, REPORT_STOCK};
use crate::invariants::{check_findings, check_report, sql_violation};
use crate::world::{Database, Direct, ITEM, Scheduler, Session, describe_error};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use rusqlite::{Connection, params};

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

/// The report of a database an earlier crash left short: a reservation process took a
/// unit by one autocommit statement and crashed before its row went in by the next.
/// Of [`REPORT_STOCK`] units, two reservation rows hold 2 and 7 show as available.
pub fn lost_unit(yours: Protocol, sim: &mut Sim) -> Verdict {
    let db = Database::create(REPORT_STOCK);
    let conn = db.connect();
    for id in ["b1", "b2", "b3"] {
        conn.execute(
            "UPDATE inventory SET available = available - 1 WHERE item = ?1",
            [ITEM],
        )
        .map_err(sql_violation)?;
        if id == "b3" {
            sim.event(id, Glyph::Recover, || {
                let truth = "its UPDATE committed alone: a unit is lost".into();
                ("crashed before its INSERT".into(), truth)
            });
            break;
        }
        conn.execute(
            "INSERT INTO reservations VALUES (?1, ?2, 1)",
            params![id, ITEM],
        )
        .map_err(sql_violation)?;
    }
    let totals = {
        let mut direct = Direct;
        let mut session = Session::new(&conn, "report", &mut direct);
        (yours.reconcile)(&mut session)
    };
    let totals = totals.map_err(sql_violation)?;
    check_findings(totals, conn.is_autocommit(), (2, 7))
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

pub(super) fn replay_reconciliation(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| reconciliation(yours, sim))
}

/// The report of the database with a lost unit (no choice: one schedule).
pub fn explore_lost_unit(yours: Protocol) -> Exploration {
    let scope = Scope {
        lab: "03",
        scenario: "lost-unit",
        max_faults: 0,
    };
    fault::explore(scope, |sim| lost_unit(yours, sim))
}

pub(super) fn replay_lost_unit(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| lost_unit(yours, sim))
}
