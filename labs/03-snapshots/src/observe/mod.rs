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
    obs.check(
        "a separate availability check before the writes oversells",
        d.rows_after_separate_checks > 1,
    );
    obs.check(
        "a deferred transaction that reads then writes can oversell",
        d.rows_after_deferred > 1,
    );
    obs.check(
        "the losing deferred transaction fails with SQLITE_BUSY_SNAPSHOT",
        d.deferred_insert_code == Some(517),
    );
    obs.check(
        "retrying only the failed statement inside the same transaction succeeds",
        d.statement_retry_code.is_none(),
    );
    obs.check(
        "rolling back and rerunning the whole transaction sees the unit is gone",
        d.rerun_sees_available == 0,
    );
    obs.check(
        "a second BEGIN IMMEDIATE is refused at once with SQLITE_BUSY",
        d.second_immediate_code == Some(5),
    );
}

fn report_checks(obs: &mut Observation, r: &Reports) {
    obs.check(
        "two separate queries of a report see one instant",
        r.separate_reads_total == 10,
    );
    obs.check(
        "two queries inside one read transaction see one instant",
        r.snapshot_total == 10,
    );
    obs.check(
        "a read transaction opened before a commit shows that commit",
        r.open_snapshot_sees_b2,
    );
    obs.check("a new read after the commit shows it", r.fresh_read_sees_b2);
}

fn spanner_checks(obs: &mut Observation, s: &Spanner) {
    obs.check(
        "a 15-second stale read taken 20 seconds after a commit shows it",
        s.stale_20s_later == Ok(true),
    );
    obs.check(
        "a read at a timestamp more than an hour old returns the rows as they were then",
        s.hour_old == Ok(true),
    );
}

/// Another interleaving, a third reader, more requests, other bounds.
fn variations(obs: &mut Observation, o: &Observed) {
    let (d, s) = (&o.decisions, &o.spanner);
    obs.check(
        "a deferred transaction begun before a commit but read after it sees the commit",
        d.begun_before_commit_sees_it,
    );
    obs.check(
        "BEGIN IMMEDIATE succeeds while another connection has a read transaction open",
        d.immediate_beside_reader_code.is_none(),
    );
    obs.check(
        "three immediate requests for two units sell exactly two",
        d.sold_by_immediate_requests == 2,
    );
    obs.check(
        "a stale read-only transaction opened after a commit shows it",
        s.stale_snapshot_after == Ok(true),
    );
    obs.check(
        "a bounded-staleness read right after a commit always shows it",
        s.bounded.iter().all(|read| *read == Ok(true)),
    );
    obs.check(
        "a read-only transaction's second read shows a commit made between its reads",
        s.snapshot_before_and_after.1 == Ok(true),
    );
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
