//! The observe phase: a naive settlement, run on every schedule with up to two faults.
//!
//! The naive code charges the payment processor inside a Spanner read-write transaction
//! callback, and its caller treats every error as "it did not happen" and tries again.
//! The exploration runs it once per schedule (the fault-free one, each single fault, each
//! pair of faults) and records what each schedule left behind; it runs again with a key
//! derived from the intent, with the next process at once and a day later. The processor
//! is then tried on its own with idempotency keys, and a transaction the application
//! drives itself is committed twice. Every check and every answer is computed from those
//! records; nothing here holds an answer: `cargo labs run` compares what the run
//! observed with your sealed predictions.

mod checks;
mod commit_twice;
mod keys;
mod naive;
mod questions;

pub use commit_twice::{CommitTwice, commit_twice, explore_commit_twice};
pub use naive::{Explored, Facts, NAIVE, S1, Variant, explore_naive, naive_scenario, settle_naive};

use labkit::fault::CrashMatrix;
use labkit::{Observation, Report};
use sim_spanner::Code;

/// The single faults, as the crash matrix names them.
pub(crate) const ABORTED: &str = "spanner:commit=ABORTED";
pub(crate) const COMMIT_NOT_APPLIED: &str = "spanner:commit=not applied";
pub(crate) const COMMIT_LANDS_LATE: &str = "spanner:commit=applied later";
pub(crate) const CRASH_AFTER_COMMIT: &str = "app:after-commit=crash";
pub(crate) const CRASH_AFTER_CHARGE: &str = "app:after-charge=crash";
pub(crate) const CHARGE_LANDS_LATE: &str = "processor:charge=applied later";

/// The key the naive callback is given in the keyed runs.
const KEY: Option<&str> = Some("settle-S1");

/// Everything the observe phase ran.
pub(crate) struct Runs {
    /// The naive settlement, every schedule with up to two faults.
    naive: Explored,
    /// The same code with the key `settle-S1`, the next process at once, every schedule
    /// with up to two faults.
    keyed: Explored,
    /// With the key, each new process a day after the last one stopped.
    keyed_next_day: Explored,
    keys: keys::Keys,
    twice: Vec<CommitTwice>,
    /// For each DEADLINE_EXCEEDED the naive caller saw in a one-fault schedule: was the
    /// row there at that moment?
    seen: Vec<bool>,
}

fn key_variant(next_day: bool) -> Variant {
    Variant {
        key: KEY,
        next_process_a_day_later: next_day,
    }
}

pub fn run() -> Report {
    let naive = explore_naive(NAIVE, 2);
    let seen = naive
        .facts
        .iter()
        .filter(|f| f.faults.len() == 1)
        .flat_map(|f| f.row_when_deadline_exceeded.iter().copied())
        .collect();
    let runs = Runs {
        naive,
        keyed: explore_naive(key_variant(false), 2),
        keyed_next_day: explore_naive(key_variant(true), 2),
        keys: keys::keys(),
        twice: explore_commit_twice(),
        seen,
    };
    let mut obs = Observation::new("uncertain-outcomes");
    checks::checks(&mut obs, &runs);
    questions::questions(&mut obs, &runs);
    obs.finish(None, summary(&runs))
}

/// How many receipts S1 ends with in the schedule whose faults are exactly `faults`.
pub(crate) fn receipts(explored: &Explored, faults: &[&str]) -> usize {
    explored.with_faults(faults).receipts.len()
}

/// Which of S1's receipts (1 for the first the processor issued) the row names.
pub(crate) fn named_receipt(facts: &Facts) -> Option<usize> {
    let named = facts.row_receipt.as_ref()?;
    facts
        .receipts
        .iter()
        .position(|r| r == named)
        .map(|i| i + 1)
}

pub(crate) fn code_name(result: &Result<(), Code>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(code) => code.name(),
    }
}

/// What the processor did with keys on its own, one line per experiment.
fn key_lines(keys: &keys::Keys) -> Vec<String> {
    let shared = match &keys.shared_key {
        Ok(reference) => format!("a receipt for {reference}"),
        Err(e) => e.to_string(),
    };
    vec![
        format!(
            "a lost response, resent at once under the same key: {} receipt(s)",
            keys.receipts_after_a_resend_at_once
        ),
        format!(
            "the same, resent 25 hours later: {} receipt(s)",
            keys.receipts_after_a_resend_a_day_later
        ),
        format!(
            "charged again under a new key: {} receipt(s)",
            keys.receipts_after_a_new_key
        ),
        format!(
            "S2 (80) under the key S1 (120) used first: {shared}, {} receipt(s) in all",
            keys.receipts_after_shared_key
        ),
    ]
}

fn summary(runs: &Runs) -> serde_json::Value {
    let lines =
        |m: &CrashMatrix| -> Vec<String> { m.render().lines().map(str::to_string).collect() };
    let commit_twice_lines: Vec<String> = runs
        .twice
        .iter()
        .map(|t| {
            let row = if t.applied { "present" } else { "absent" };
            match t.first {
                Ok(()) => format!("{}: first commit ok (row {row})", t.fault),
                Err(_) => format!(
                    "{}: first commit {} (row {row}), the same transaction again {}",
                    t.fault,
                    code_name(&t.first),
                    code_name(&t.again)
                ),
            }
        })
        .collect();
    serde_json::json!({
        "schedules_per_fault_count": runs.naive.exploration.per_level,
        "crash_matrix": lines(&runs.naive.matrix),
        "crash_matrix_with_a_key": lines(&runs.keyed.matrix),
        "crash_matrix_with_a_key_next_process_a_day_later": lines(&runs.keyed_next_day.matrix),
        "deadline_exceeded_seen": runs.seen.len(),
        "commit_twice": commit_twice_lines,
        "key_experiments": key_lines(&runs.keys),
        "scope": "Simulated Spanner read-write transactions (runner with ABORTED retries, \
                  DEADLINE_EXCEEDED with a hidden truth) and a simulated payment processor \
                  (idempotency keys kept for a day); one intent, one client.",
    })
}
