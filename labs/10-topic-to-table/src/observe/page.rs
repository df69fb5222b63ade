//! The chapter's table of signals, written by `figures()` into
//! `book/src/figures/10-signals.md`, so the book shows what the observe run measures.

use super::contention::calm_runs;
use super::{OBSERVE_SEED, Runs, runs};
use crate::scenarios::Outcome;

fn row(page: &mut String, signal: &str, meaning: &str, seen: String, expectation: &str) {
    page.push_str(&format!(
        "| {signal} | {meaning} | {seen} | {expectation} |\n"
    ));
}

fn table(outcome: &Outcome) -> String {
    let (s, audit) = (&outcome.signals, &outcome.audit);
    let committed: i64 = outcome.committed.iter().sum();
    let percent = |share: f64| format!("{:.0} %", share * 100.0);
    let mut page = String::from("| signal | meaning | this run | expectation |\n");
    page.push_str("|---|---|---|---|\n");
    let p = &mut page;
    let lost = "forward gaps in a sequence (`topic_lost_errors`)";
    row(p, "lost", lost, s.lost.to_string(), "0");
    let sink = format!("the audit ({committed} committed)");
    let found = format!(
        "{} rows, {} missing, {} twice",
        audit.rows,
        audit.missing.len(),
        audit.duplicated.len()
    );
    row(p, "exactly once in the sink", &sink, found, "each once");
    let tli = "locks invalidated (`topic_tx_tli`)";
    row(p, "aborts", tli, s.aborts.to_string(), "> 0");
    let dup = "seen again by the validator (`topic_duplicates`)";
    row(
        p,
        "duplicates",
        dup,
        s.app_duplicates.to_string(),
        "informational",
    );
    let again = "read again after a rollback";
    row(
        p,
        "redelivered",
        again,
        s.redelivered.to_string(),
        "informational",
    );
    let e2e = "write commit to read commit, ticks";
    let latency = format!("{} / {}", s.e2e_p50, s.e2e_p99);
    row(p, "e2e latency p50 / p99", e2e, latency, "reported");
    let ops = "committed before the retry loop gave up";
    let shares = format!(
        "{} / {}",
        percent(s.read_availability),
        percent(s.write_availability)
    );
    row(p, "read / write availability", ops, shares, "~100 %");
    page
}

/// The signals page: the table of the one-transaction run and the counts around it.
pub fn signals_page() -> String {
    let Runs {
        outside,
        offset_at_read,
        one_tx,
        aborts_one_row,
        aborts_eight_rows,
    } = runs();
    let calm = calm_runs();
    let mut page = format!("Seed `{OBSERVE_SEED:#x}`, one transaction at each end:\n\n");
    page.push_str(&table(&one_tx));
    page.push_str(&format!(
        "\nUnder the same seed the plain writer lost {} messages and its validator counted \
         {} duplicates; the offset committed at read lost {}. With no injected fault at \
         all, the plain writer lost {} and counted {} duplicates, the offset committed at \
         read lost {}, and one transaction at each end lost {} and had {} messages handed \
         out again. Without other faults, eight producers over one hot row met \
         {aborts_one_row} aborts, over eight rows {aborts_eight_rows}.\n",
        outside.signals.lost,
        outside.signals.app_duplicates,
        offset_at_read.signals.lost,
        calm.outside.signals.lost,
        calm.outside.signals.app_duplicates,
        calm.offset_at_read.signals.lost,
        calm.one_tx.signals.lost,
        calm.one_tx.signals.redelivered,
    ));
    page
}
