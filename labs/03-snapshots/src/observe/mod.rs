//! The observe phase: a reservation and a reconciliation report on a real SQLite file
//! database in WAL mode. Two or three connections stand for concurrent requests; each
//! schedule is written out statement by statement, so every run does the same thing in
//! the same order. Then reads at a timestamp on the simulated Spanner database. Every
//! verdict is computed from what SQLite or the simulator answered; the answer keys live
//! in `lab.toml`.
//!
//! The SQLite behaviour each step relies on, from SQLite's documentation:
//!
//! * <https://www.sqlite.org/isolation.html>: a reader on another connection sees only
//!   complete committed transactions.
//! * <https://www.sqlite.org/wal.html>: in WAL mode readers do not block writers and a
//!   writer does not block readers; a read transaction keeps the snapshot it started
//!   with; there is one writer at a time.
//! * <https://www.sqlite.org/lang_transaction.html>: `BEGIN DEFERRED` takes no lock until
//!   the first statement, `BEGIN IMMEDIATE` starts a write transaction at once.
//! * <https://www.sqlite.org/rescode.html#busy_snapshot>: SQLITE_BUSY_SNAPSHOT (517) when
//!   a read transaction cannot become a write transaction because another connection
//!   wrote since its snapshot was taken.
//!
//! The Spanner behaviours are pinned by the tests in `crates/sim-spanner/src/tests.rs`.

mod decisions;
mod questions;
mod report;
mod spanner;
mod sql;

use decisions::Decisions;
use labkit::{Observation, Report};
use report::Reports;
use spanner::{Spanner, shown};

/// Everything the observe phase measured.
pub(crate) struct Observed {
    decisions: Decisions,
    reports: Reports,
    spanner: Spanner,
}

fn failed(e: rusqlite::Error) -> ! {
    panic!("the observe scenario itself failed: {e}")
}

pub fn run() -> Report {
    let o = Observed {
        decisions: decisions::decisions().unwrap_or_else(|e| failed(e)),
        reports: report::reports().unwrap_or_else(|e| failed(e)),
        spanner: spanner::spanner(),
    };
    let mut obs = Observation::new("snapshots");
    decision_checks(&mut obs, &o.decisions);
    report_checks(&mut obs, &o.reports);
    spanner_checks(&mut obs, &o.spanner);
    variations(&mut obs, &o);
    questions::questions(&mut obs, &o);
    obs.finish(Some(rusqlite::version().to_string()), summary(&o))
}

fn decision_checks(obs: &mut Observation, d: &Decisions) {
    obs.ask("One unit left. A and B each read the availability, then each writes its reservation and the availability it computed, in a transaction of its own. Do both reservations end up in the table?", d.rows_after_separate_checks > 1);
    obs.ask("Same unit, but A reads inside BEGIN DEFERRED and tries to write only after B has reserved and committed. Do both reservations end up in the table?", d.rows_after_deferred > 1);
    obs.ask(
        "Is the result of A's INSERT the extended code 517, SQLITE_BUSY_SNAPSHOT?",
        d.deferred_insert_code == Some(517),
    );
    obs.ask("A then runs the same INSERT once more, inside the same transaction. Does the second INSERT succeed?", d.statement_retry_code.is_none());
    obs.ask(
        "A rolls back and runs BEGIN IMMEDIATE and the read again. Does it read 0?",
        d.rerun_sees_available == 0,
    );
    obs.ask("While A holds BEGIN IMMEDIATE, B runs BEGIN IMMEDIATE too (busy_timeout zero). Is B refused at once with SQLITE_BUSY?", d.second_immediate_code == Some(5));
}

fn report_checks(obs: &mut Observation, r: &Reports) {
    obs.ask("Ten units. A report reads the availability, B1 commits a reservation, the report reads the reserved units. Do the two numbers add up to 10?", r.separate_reads_total == 10);
    obs.ask("The same two reads inside one read transaction, with B2 committing between them. Do they add up to 10?", r.snapshot_total == 10);
    obs.ask(
        "Does that open read transaction, asked afterwards, show B2's reservation?",
        r.open_snapshot_sees_b2,
    );
    obs.ask(
        "After the report commits, does a new read show B2's reservation?",
        r.fresh_read_sees_b2,
    );
}

fn spanner_checks(obs: &mut Observation, s: &Spanner) {
    obs.ask("B2's reservation committed on Spanner 20 seconds ago. Does a read with 15 seconds of exact staleness show it?", s.stale_20s_later == Ok(true));
    obs.ask("Sixty-one minutes after B2 committed, does a Spanner read at B2's commit timestamp return the rows as they were at that moment?", s.hour_old == Ok(true));
}

/// Another interleaving, a third reader, more requests, other bounds.
fn variations(obs: &mut Observation, o: &Observed) {
    let (d, s) = (&o.decisions, &o.spanner);
    obs.ask("A runs BEGIN (deferred) and nothing else; B reserves the last unit and commits; then A reads the availability. Does A read 1, the number from before B's commit?", d.begun_before_commit_read == 1);
    obs.ask("R has read inside an open transaction when W runs BEGIN IMMEDIATE (busy_timeout zero). Is W refused with SQLITE_BUSY?", d.immediate_beside_reader_code == Some(5));
    obs.ask("Two units. r1 takes the write lock and reads; r2 and r3 get SQLITE_BUSY and run again, whole, after r1 commits. Are exactly two seats sold?", d.sold_by_immediate_requests == 2);
    obs.ask("B2 commits on Spanner; 5 seconds later a read-only transaction with 15 seconds of exact staleness opens and reads. Does it show B2?", s.stale_snapshot_after == Ok(true));
    obs.ask("Right after B2 commits, a read with a staleness bound of 15 seconds asks for it. Does it show B2 whichever replica serves it?", s.bounded.iter().all(|read| *read == Ok(true)));
    obs.ask("A strong read-only transaction reads B3 (absent), B3 commits, and the same transaction reads B3 again. Does the second read show B3?", s.snapshot_before_and_after.1 == Ok(true));
}

/// The summary `cargo labs run 03` prints under "Measured", and the raw values.
fn summary(o: &Observed) -> serde_json::Value {
    let (d, r, s) = (&o.decisions, &o.reports, &o.spanner);
    let code = |c: Option<i32>| c.map_or("ok".to_string(), |c| c.to_string());
    let table = vec![
        format!(
            "rows after two separate checks of 1 unit: {}",
            d.rows_after_separate_checks
        ),
        format!(
            "rows after the deferred race for 1 unit:  {}",
            d.rows_after_deferred
        ),
        format!(
            "the deferred transaction's INSERT:        {}",
            code(d.deferred_insert_code)
        ),
        format!(
            "the same INSERT again:                    {}",
            code(d.statement_retry_code)
        ),
        format!(
            "a second BEGIN IMMEDIATE:                 {}",
            code(d.second_immediate_code)
        ),
        format!(
            "report total, two separate reads:         {} of 10",
            r.separate_reads_total
        ),
        format!(
            "report total, one read transaction:       {} of 10",
            r.snapshot_total
        ),
        format!(
            "Spanner, 15 s stale read right after:     {}",
            shown(&s.stale_right_after)
        ),
        format!(
            "Spanner, the same read 20 s later:        {}",
            shown(&s.stale_20s_later)
        ),
        format!(
            "Spanner, read at the commit 61 min later: {}",
            shown(&s.hour_old)
        ),
    ];
    serde_json::json!({
        "journal_mode": "wal",
        "busy_timeout_ms": 0,
        "table": table,
        "spanner_b2_commit_timestamp": s.b2_committed_at,
        "spanner_strong_read_right_after": shown(&s.strong_right_after),
        "spanner_snapshot_opened_before": shown(&s.snapshot_opened_before),
        "spanner_seconds_the_future_read_took": s.future_waited,
    })
}
