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
use sim_spanner::IsolationLevel;
use spanner::{Spanner, last_unit_twice, shown};
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
    decision_asks(&mut obs, &o.variations);
    report_asks(&mut obs, &o.reports);
    spanner_asks(&mut obs, &o.spanner);
    questions::questions(&mut obs, &o);
    obs.finish(Some(rusqlite::version().to_string()), summary(&o))
}

/// `separate_check` with another `BEGIN` and another write, `deferred_then_write` with
/// its read before `BEGIN`.
fn decision_asks(obs: &mut Observation, v: &Variations) {
    obs.ask("Suppose the loop in `separate_check` began each request with `BEGIN IMMEDIATE`, and B's availability were written as `available = available - 1` while A's stayed as listed. Would `available(&a)` read 0 when the function returns?", v.immediate_relative_b_available == 0);
    obs.ask("Suppose A's `BEGIN` in `separate_check` moved out of the loop to just before `available(&a)`, as `BEGIN IMMEDIATE`, everything else as listed. Would B's INSERT succeed?", v.a_locks_first_b_insert.is_none());
    obs.ask("Suppose A's `available(&a)` in `deferred_then_write` ran just before its `BEGIN DEFERRED` instead of just after it. Would A's INSERT right after B's reservation succeed?", v.read_before_begin_insert.is_none());
}

fn report_asks(obs: &mut Observation, r: &Reports) {
    obs.ask(
        "In `report` as listed, is `separate_reads_total` larger than the number of units `report` puts on sale?",
        r.separate_reads_total > 10,
    );
    obs.ask(
        "Suppose `report`'s open transaction inserted a row into an audit table right after its first read, everything else as listed. Would B2's reservation go through?",
        r.early_audit.1.is_none(),
    );
}

fn spanner_asks(obs: &mut Observation, s: &Spanner) {
    obs.ask("A single read with the listing's `stale` bound is made 12 seconds after B2's commit. Does it show B2?", s.stale_12s_on == Ok(true));
    obs.ask("A single read whose staleness bound is the listing's `stale` seconds is made 18 seconds after B2's commit and served by the replica furthest behind. Does it show B2?", s.bounded_18s_on_behind == Ok(true));
    obs.ask("Right after B2's commit, a single read asks for a timestamp no older than the listing's `snapshot.read_timestamp()`, and the replica furthest behind serves it. Does it show B2?", s.min_snapshot_timestamp_behind == Ok(true));
    let repeatable = last_unit_twice(IsolationLevel::RepeatableRead);
    obs.ask("Variation: on Spanner, with a stock of one, A and B each run a read-write transaction at REPEATABLE_READ that counts the item's reservations and inserts its own row if there is none; A reads, B reads, A commits, B commits. Does B's row end up in the table beside A's?", repeatable.len() == 2);
}

/// The summary `cargo labs run 03` prints under "Measured", and the raw values.
fn summary(o: &Observed) -> serde_json::Value {
    let (d, r, s) = (&o.decisions, &o.reports, &o.spanner);
    let code = |c: Option<i32>| c.map_or("ok".to_string(), |c| c.to_string());
    let mut table = vec![
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
            "report's audit INSERT, then B2:           {}, {}",
            code(r.early_audit.0),
            code(r.early_audit.1)
        ),
    ];
    table.extend(spanner_table(s));
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

/// The Spanner lines of the summary's table.
fn spanner_table(s: &Spanner) -> Vec<String> {
    vec![
        format!(
            "Spanner, 15 s stale read right after:     {}",
            shown(&s.stale_right_after)
        ),
        format!(
            "Spanner, the same read 20 s later:        {}",
            shown(&s.stale_20s_on)
        ),
        format!(
            "Spanner, read at the commit 61 min later: {}",
            shown(&s.at_commit_61min_on)
        ),
        format!(
            "Spanner, last unit, rows at the default:  [{}]",
            last_unit_twice(IsolationLevel::Serializable).join(", ")
        ),
        format!(
            "Spanner, last unit, at REPEATABLE_READ:   [{}]",
            last_unit_twice(IsolationLevel::RepeatableRead).join(", ")
        ),
    ]
}
