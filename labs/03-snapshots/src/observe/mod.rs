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
mod variations;

use decisions::Decisions;
use labkit::{Observation, Report};
use report::Reports;
use spanner::{Spanner, shown};
use variations::Variations;

/// Everything the observe phase measured.
pub(crate) struct Observed {
    decisions: Decisions,
    variations: Variations,
    reports: Reports,
    spanner: Spanner,
}

fn failed(e: rusqlite::Error) -> ! {
    panic!("the observe scenario itself failed: {e}")
}

pub fn run() -> Report {
    let o = Observed {
        decisions: decisions::decisions().unwrap_or_else(|e| failed(e)),
        variations: variations::variations().unwrap_or_else(|e| failed(e)),
        reports: report::reports().unwrap_or_else(|e| failed(e)),
        spanner: spanner::spanner(),
    };
    let mut obs = Observation::new("snapshots");
    separate_check_asks(&mut obs, &o);
    deferred_asks(&mut obs, &o);
    report_asks(&mut obs, &o.reports);
    spanner_asks(&mut obs, &o.spanner);
    questions::questions(&mut obs, &o);
    obs.finish(Some(rusqlite::version().to_string()), summary(&o))
}

/// `separate_check` as listed, then with another write, another `BEGIN`, a third
/// request.
fn separate_check_asks(obs: &mut Observation, o: &Observed) {
    let (d, v) = (&o.decisions, &o.variations);
    obs.ask(
        "When `separate_check` returns, does `available(&a)` read 0?",
        d.available_after_separate_checks == 0,
    );
    obs.ask("Suppose A's `set_available` in `separate_check` were replaced by `UPDATE inventory SET available = available - 1`, B's left as listed. Would the availability end at 0?", v.relative_write_available == 0);
    obs.ask("Suppose the loop's `BEGIN` in `separate_check` were `BEGIN IMMEDIATE`. Would the table end with two reservation rows?", v.immediate_writes_rows == 2);
    obs.ask("Give `separate_check` two units and a third request C that reads the availability just after B commits, then writes its reservation and its `saw - 1` after A. Does the availability end at 0?", v.third_request_available == 0);
}

/// `deferred_then_write` as listed, then with two units and without A's read.
fn deferred_asks(obs: &mut Observation, o: &Observed) {
    let (d, v) = (&o.decisions, &o.variations);
    obs.ask(
        "In `deferred_then_write` as listed, is A's first INSERT refused with plain SQLITE_BUSY (5)?",
        d.deferred_insert_code == Some(5),
    );
    obs.ask(
        "In `deferred_then_write` as listed, does A's second INSERT succeed?",
        d.statement_retry_code.is_none(),
    );
    obs.ask("Suppose `deferred_then_write` started with two units instead of one. Would A's first INSERT succeed?", v.two_units_insert.is_none());
    obs.ask("Suppose A's `available(&a)` line were removed from `deferred_then_write`, so that A's first statement after `BEGIN DEFERRED` is the INSERT. Would that INSERT succeed?", v.insert_first_code.is_none());
}

fn report_asks(obs: &mut Observation, r: &Reports) {
    obs.ask(
        "In `report` as listed, is `separate_reads_total` 11?",
        r.separate_reads_total == 11,
    );
    obs.ask("Suppose the open transaction in `report` began with `BEGIN IMMEDIATE`. Would B2's `reserve_whole` succeed?", r.immediate_report_b2.is_none());
    obs.ask(
        "In `report` as listed, does `count_b2` inside the open transaction return 1?",
        r.open_snapshot_sees_b2,
    );
    obs.ask("Suppose the open transaction in `report`, after its two reads and before its COMMIT, inserted its total into an audit table. Would that INSERT succeed?", r.audit_insert.is_none());
    obs.ask("Suppose B2's `reserve_whole` ran between the open transaction's `BEGIN` and its first read in `report`. Would `count_b2` inside the transaction return 1?", r.b2_before_first_read_seen);
}

fn spanner_asks(obs: &mut Observation, s: &Spanner) {
    obs.ask("Suppose the Spanner listing's `sim.advance(20)` were `sim.advance(10)`. Would `stale_20s_later` show B2?", s.stale_10s_later == Ok(true));
    obs.ask("At the point of `stale_20s_later`, a read with a staleness bound of 15 s is served by the replica furthest behind. Does it show B2?", s.bounded_20s_later_behind == Ok(true));
    obs.ask("Right after B2's commit, a single read asks for a timestamp no older than B2's commit timestamp, and the replica furthest behind serves it. Does it show B2?", s.min_read_timestamp_behind == Ok(true));
    obs.ask("Right after B2's commit, a read-only transaction with 15 s of exact staleness opens and reads B2; 20 s later it reads B2 again. Does the second read show B2?", s.stale_snapshot_twice.1 == Ok(true));
    obs.ask("At the point of `hour_old`, a read-only transaction with 30 minutes of exact staleness opens and reads B2. Does it show B2?", s.half_hour_stale_an_hour_later == Ok(true));
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
            r.snapshot_total()
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
        "spanner_read_10_s_ahead": shown(&s.future),
        "spanner_seconds_the_future_read_took": s.future_waited,
    })
}
