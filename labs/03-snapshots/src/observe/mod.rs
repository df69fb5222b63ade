//! The observe phase: a reservation and a reconciliation report on a real SQLite file
//! database in WAL mode. Two or three connections stand for concurrent requests; each
//! schedule is written out statement by statement, so every run does the same thing in
//! the same order. Then reads at a timestamp on the simulated Spanner database. Every
//! verdict is computed from what SQLite or the simulator answered; nothing here holds an
//! answer: `cargo labs run` compares what the run observed with your sealed predictions.
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
    obs.ask("Suppose the loop in `separate_check` began each request with `BEGIN IMMEDIATE`, and B's availability were written as `available = available - 1` while A's stayed as listed. Would `available(&a)` read 0 when the function returns?", o.variations.immediate_relative_b_available == 0);
    obs.ask(
        "In `report` as listed, is `separate_reads_total` larger than the number of units `report` puts on sale?",
        o.reports.separate_reads_total > 10,
    );
    questions::questions(&mut obs, &o);
    obs.finish(Some(rusqlite::version().to_string()), summary(&o))
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
            shown(&s.stale_again)
        ),
        format!(
            "Spanner, read at the commit 61 min later: {}",
            shown(&s.at_commit)
        ),
        format!(
            "Spanner, the stale read 12 s after:       {}",
            shown(&s.stale_12s_on)
        ),
        format!(
            "Spanner, 15 s bound 18 s after, behind:   {}",
            shown(&s.bounded_18s_on_behind)
        ),
        format!(
            "Spanner, no older than snapshot, behind:  {}",
            shown(&s.min_snapshot_timestamp_behind)
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
