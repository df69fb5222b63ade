//! The observe phase: a reservation and a reconciliation report on a real SQLite file
//! database in WAL mode. Two connections stand for two concurrent requests; the
//! interleaving is written out statement by statement (an explicit schedule), so every
//! run does the same thing in the same order. Every verdict is computed from what SQLite
//! answered; the answer keys live in `lab.toml`.
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
//! The second half runs reads at a timestamp on the simulated Spanner database of
//! chapter 2 (`sim_spanner`), whose clock is the fault core's logical clock, one tick a
//! second; its documented behaviours are pinned by the tests in
//! `crates/sim-spanner/src/tests.rs`.

mod spanner;
mod sqlite;

use labkit::{Observation, Report};
use spanner::{StaleReads, shown, spanner_reads};
use sqlite::{Observed, schedules};

pub fn run() -> Report {
    let o = schedules().unwrap_or_else(|e| panic!("the observe scenario itself failed: {e}"));
    let spanner = spanner_reads();
    let mut obs = Observation::new("snapshots");
    sqlite_checks(&mut obs, &o);
    spanner_checks(&mut obs, &spanner);
    questions(&mut obs, &o, &spanner);
    let summary = summary(&o, &spanner);
    obs.finish(Some(rusqlite::version().to_string()), summary)
}

fn sqlite_checks(obs: &mut Observation, o: &Observed) {
    obs.check(
        "a separate availability check before the writes oversells",
        o.rows_after_separate_checks > 1,
    );
    obs.check(
        "a deferred transaction that reads then writes can oversell",
        o.rows_after_deferred > 1,
    );
    obs.check(
        "the losing deferred transaction fails with SQLITE_BUSY_SNAPSHOT",
        o.deferred_loser_code == Some(517),
    );
    obs.check(
        "retrying only the failed statement inside the same transaction succeeds",
        o.statement_retry_code.is_none(),
    );
    obs.check(
        "rolling back and rerunning the whole transaction sees the unit is gone",
        o.rerun_sees_available == 0,
    );
    obs.check(
        "a second BEGIN IMMEDIATE is refused at once with SQLITE_BUSY",
        o.second_immediate_code == Some(5),
    );
    obs.check(
        "two separate queries of a report see one instant",
        o.separate_reads_total == 10,
    );
    obs.check(
        "two queries inside one read transaction see one instant",
        o.snapshot_total == 10,
    );
    obs.check(
        "a read transaction opened before a commit shows that commit",
        o.stale_snapshot_sees_b,
    );
    obs.check("a new read after the commit shows it", o.fresh_read_sees_b);
}

fn spanner_checks(obs: &mut Observation, spanner: &StaleReads) {
    obs.check(
        "a 15-second stale read taken 20 seconds after a commit shows it",
        spanner.stale_20s_later == Ok(true),
    );
    obs.check(
        "a read at a timestamp more than an hour old returns the rows as they were then",
        spanner.hour_old == Ok(true),
    );
}

fn questions(obs: &mut Observation, o: &Observed, spanner: &StaleReads) {
    let rows = o.rows_after_separate_checks;
    obs.answer(
        "oversell-count",
        match rows {
            1 => "a",
            2 => "b",
            0 => "c",
            _ => "?",
        },
        format!("{rows} reservation rows for 1 unit"),
    );
    obs.answer(
        "deferred-loser-code",
        match o.deferred_loser_code {
            Some(5) => "a",
            Some(517) => "b",
            None => "c",
            Some(_) => "d",
        },
        format!("the losing write got {:?}", o.deferred_loser_code),
    );
    let total = o.separate_reads_total;
    obs.answer(
        "report-gap",
        match total {
            10 => "a",
            11 => "b",
            9 => "c",
            _ => "d",
        },
        format!("reserved + available = {total} of 10"),
    );

    obs.answer(
        "future-read-timestamp",
        match (&spanner.future, spanner.future_waited) {
            (Err(_), _) => "a",
            (Ok(_), 10) => "b",
            (Ok(_), 0) => "c",
            (Ok(_), _) => "d",
        },
        format!(
            "the read {} after {} s on the clock",
            shown(&spanner.future),
            spanner.future_waited
        ),
    );
}

fn summary(o: &Observed, spanner: &StaleReads) -> serde_json::Value {
    serde_json::json!({
        "journal_mode": "wal",
        "busy_timeout_ms": 0,
        "rows_after_separate_checks": o.rows_after_separate_checks,
        "rows_after_deferred": o.rows_after_deferred,
        "deferred_loser_extended_code": o.deferred_loser_code,
        "statement_retry_extended_code": o.statement_retry_code,
        "second_begin_immediate_extended_code": o.second_immediate_code,
        "report_total_separate_reads": o.separate_reads_total,
        "report_total_one_snapshot": o.snapshot_total,
        "spanner": {
            "b2_commit_timestamp": spanner.b2_committed_at,
            "strong_read_right_after_the_commit": shown(&spanner.strong_right_after),
            "exact_staleness_15s_right_after_the_commit": shown(&spanner.stale_right_after),
            "read_only_transaction_opened_before_the_commit": shown(&spanner.snapshot_opened_before),
            "exact_staleness_15s_20s_later": shown(&spanner.stale_20s_later),
            "read_at_the_commit_timestamp_61_minutes_later": shown(&spanner.hour_old),
            "read_at_a_timestamp_10s_ahead": shown(&spanner.future),
            "seconds_the_future_read_took": spanner.future_waited,
        },
    })
}
