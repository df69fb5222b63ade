//! The observe phase: a naive settlement, run on every schedule with up to two faults.
//!
//! The naive code charges the payment processor inside a Spanner read-write transaction
//! callback, and its caller treats every error as "it did not happen" and tries again.
//! The exploration runs it once per schedule (the fault-free one, each single fault, each
//! pair of faults) and records what each schedule left behind; it runs again with a key
//! derived from the intent, with the next process at once and a day later. The processor
//! is then tried on its own with idempotency keys, and a transaction the application
//! drives itself is committed twice. Every check and every answer is computed from those
//! records; the answer keys live in `lab.toml`.

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
pub(crate) const ABORTED: &str = "spanner:commit=rejected (definite)";
pub(crate) const COMMIT_NOT_APPLIED: &str = "spanner:commit=not applied";
pub(crate) const CHARGE_LOST: &str = "processor:charge=applied, response lost";
pub(crate) const CHARGE_LANDS_LATE: &str = "processor:charge=applied later";

/// The key the naive callback is given in the keyed runs.
const KEY: Option<&str> = Some("settle-S1");

/// Everything the observe phase ran.
pub(crate) struct Runs {
    /// The naive settlement, every schedule with up to two faults.
    naive: Explored,
    /// The same code with the key `settle-S1`, the next process at once.
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
        keyed: explore_naive(key_variant(false), 1),
        keyed_next_day: explore_naive(key_variant(true), 1),
        keys: keys::keys(),
        twice: explore_commit_twice(),
        seen,
    };
    let mut obs = Observation::new("uncertain-outcomes");
    retried_callback(&mut obs, &runs);
    deadline_exceeded(&mut obs, &runs);
    crash_matrix(&mut obs, &runs.naive.matrix);
    idempotency_keys(&mut obs, &runs.keys);
    commit_again(&mut obs, &runs.twice);
    variations(&mut obs, &runs);
    questions::questions(&mut obs, &runs);
    obs.finish(None, summary(&runs))
}

/// The commit ends ABORTED once; the runner calls the callback again.
fn retried_callback(obs: &mut Observation, runs: &Runs) {
    // ANCHOR: observe_retried
    let aborted = runs.naive.with_faults(&[ABORTED]);
    obs.ask("After the first commit ends ABORTED, does the runner call the naive callback a second time?", aborted.callback_runs >= 2);
    obs.ask(
        "In that ABORTED schedule, does S1 end with exactly one receipt?",
        aborted.receipts.len() == 1,
    );
    obs.ask(
        "Is anything the aborted attempt wrote to the database still there afterwards?",
        aborted.rows > 1 || aborted.row_receipt.as_ref() == aborted.receipts.first(),
    );
    // ANCHOR_END: observe_retried
}

/// DEADLINE_EXCEEDED on commit, over every one-fault schedule where the caller saw it.
fn deadline_exceeded(obs: &mut Observation, runs: &Runs) {
    let seen = &runs.seen;
    obs.ask("Each time the naive caller saw DEADLINE_EXCEEDED on a commit, was the row absent at that moment?", !seen.is_empty() && seen.iter().all(|present| !present));
    obs.ask(
        "Was the row missing at one of those moments, at least?",
        seen.iter().any(|present| !present),
    );
    let one_row_two_receipts = runs
        .naive
        .facts
        .iter()
        .any(|f| f.faults.len() == 1 && f.rows == 1 && f.receipts.len() > 1);
    obs.ask(
        "Does some one-fault schedule end with one settlement row and two receipts?",
        one_row_two_receipts,
    );
}

/// Whether the crash matrix marks the schedule with the single fault `fault` as a failure
/// (it broke an invariant).
pub(crate) fn marked_as_a_failure(matrix: &CrashMatrix, fault: &str) -> bool {
    matrix
        .cell(fault)
        .unwrap_or_else(|| panic!("the crash matrix has no row `{fault}`"))
        .broken
        .is_some()
}

/// Whether the schedule with the single fault `fault` keeps every invariant: one receipt,
/// named by the row.
pub(crate) fn passes(matrix: &CrashMatrix, fault: &str) -> bool {
    !marked_as_a_failure(matrix, fault)
}

/// Cells of the crash matrix: each single fault, pass or the invariant it broke.
fn crash_matrix(obs: &mut Observation, matrix: &CrashMatrix) {
    obs.ask(
        "The commit applied and only its response was lost. Does the naive retry end with one receipt?",
        passes(matrix, "spanner:commit=applied, response lost"),
    );
    obs.ask(
        "The commit ended DEADLINE_EXCEEDED without applying. Does the naive retry end with one receipt?",
        passes(matrix, COMMIT_NOT_APPLIED),
    );
    obs.ask(
        "Does the crash-point matrix mark the ABORTED commit as a failure?",
        marked_as_a_failure(matrix, ABORTED),
    );
    obs.ask(
        "The process crashes right after the commit. Does the next process end with one receipt?",
        passes(matrix, "app:after-commit=crash"),
    );
    obs.ask(
        "A charge times out without charging anything. Does the retry end with one receipt?",
        passes(matrix, "processor:charge=not applied"),
    );
    obs.ask(
        "A charge goes through but its response is lost. Does the retry end with one receipt?",
        passes(matrix, CHARGE_LOST),
    );
}

/// The processor on its own: a retry under the same key, and under a new key.
fn idempotency_keys(obs: &mut Observation, keys: &keys::Keys) {
    obs.ask("The first response for the key settle-S1 is lost, and the retry sends the same key at once. Does the retry get the first receipt back?", keys.retry_at_once_returned_the_first);
    obs.ask(
        "A retry for S1 goes out under a new key. Does the processor treat it as the same charge?",
        keys.receipts_after_a_new_key == 1,
    );
}

/// The same transaction committed again after its commit ended DEADLINE_EXCEEDED.
/// It tells only if every applied schedule answers differently from every other one.
fn commit_again(obs: &mut Observation, twice: &[CommitTwice]) {
    let after_deadline = twice
        .iter()
        .filter(|t| t.first == Err(Code::DeadlineExceeded));
    let (applied, not_applied): (Vec<&CommitTwice>, Vec<&CommitTwice>) =
        after_deadline.partition(|t| t.applied);
    let second_commit_tells = !applied.is_empty()
        && !not_applied.is_empty()
        && applied
            .iter()
            .all(|a| not_applied.iter().all(|n| a.again != n.again));
    obs.ask("A commit ends DEADLINE_EXCEEDED and the code commits the same transaction object once more. Does that second commit answer differently when the first one had applied?", second_commit_tells);
}

/// Variations: a retry a day later, two faults at once, the naive code with a key.
fn variations(obs: &mut Observation, runs: &Runs) {
    obs.ask("The first response for settle-S1 is lost, and the retry with the same key goes out 25 hours later. Does it get the first receipt back?", runs.keys.retry_a_day_later_returned_the_first);
    let twice_aborted = runs.naive.with_faults(&[ABORTED, ABORTED]);
    obs.ask("The naive settlement's first two commits both end ABORTED. Does S1 end with three receipts?", twice_aborted.receipts.len() == 3);
    let one_receipt =
        |explored: &Explored, fault: &str| explored.with_faults(&[fault]).receipts.len() == 1;
    obs.ask("The naive callback now charges under the key settle-S1. After one ABORTED commit, does S1 end with one receipt?", one_receipt(&runs.keyed, ABORTED));
    obs.ask("Same keyed callback: the charge's response is lost, and the next process runs a minute later. Does S1 end with one receipt?", one_receipt(&runs.keyed, CHARGE_LOST));
    obs.ask("Same keyed callback: the commit ends DEADLINE_EXCEEDED without applying, and the next process runs a day later. Does S1 end with one receipt?", one_receipt(&runs.keyed_next_day, COMMIT_NOT_APPLIED));
    obs.ask("Same keyed callback: the charge times out but lands a moment later, and the next process runs a day later. Does S1 end with one receipt?", one_receipt(&runs.keyed_next_day, CHARGE_LANDS_LATE));
}

pub(crate) fn code_name(result: &Result<(), Code>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(code) => code.name(),
    }
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
        "scope": "Simulated Spanner read-write transactions (runner with ABORTED retries, \
                  DEADLINE_EXCEEDED with a hidden truth) and a simulated payment processor \
                  (idempotency keys kept for a day); one intent, one client.",
    })
}
