//! The observe phase: a naive settlement, run on every schedule with at most one fault.
//!
//! The naive code charges the payment processor inside a Spanner read-write transaction
//! callback, without an idempotency key, and its caller treats every error as "it did not
//! happen" and tries again. The exploration runs it once per schedule (the fault-free one,
//! then each single fault: a crash, an ABORTED commit, a commit or a charge that times out
//! with each of its hidden truths) and records what each schedule left behind. A second,
//! smaller exploration commits with a transaction the application drives itself and,
//! when that commit fails, commits the same transaction again. Every check, every answer
//! and the crash matrix below are computed from those records; the answer keys live in
//! `lab.toml`.

mod commit_twice;
mod naive;
mod questions;

pub use commit_twice::{CommitTwice, commit_twice, explore_commit_twice};
pub use naive::{Facts, S1, explore_naive, naive_scenario, settle_naive};

use labkit::fault::{self, CrashMatrix, Sim};
use labkit::{Observation, Report};
use sim_spanner::{ChargeRequest, Code, PaymentProcessor};

pub(crate) fn code_name(result: &Result<(), Code>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(code) => code.name(),
    }
}

fn passes(matrix: &CrashMatrix, fault: &str) -> bool {
    matrix
        .cell(fault)
        .unwrap_or_else(|| {
            panic!(
                "the crash matrix has no row `{fault}`:\n{}",
                matrix.render()
            )
        })
        .broken
        .is_none()
}

pub(crate) fn facts_for<'a>(all: &'a [Facts], fault: &str) -> &'a Facts {
    all.iter()
        .find(|f| f.faults.len() == 1 && f.faults[0] == fault)
        .unwrap_or_else(|| panic!("no schedule with the single fault `{fault}`"))
}

/// Everything the naive exploration recorded.
pub(crate) struct Naive {
    exploration: fault::Exploration,
    matrix: CrashMatrix,
    all: Vec<Facts>,
    /// For each DEADLINE_EXCEEDED the caller saw: was the row there at that moment?
    seen: Vec<bool>,
}

pub fn run() -> Report {
    let mut obs = Observation::new("uncertain-outcomes");
    let (exploration, matrix, all) = explore_naive();
    let seen: Vec<bool> = all
        .iter()
        .flat_map(|f| f.row_when_deadline_exceeded.iter().copied())
        .collect();
    let naive = Naive {
        exploration,
        matrix,
        all,
        seen,
    };
    retried_callback(&mut obs, &naive);
    deadline_exceeded(&mut obs, &naive);
    crash_matrix(&mut obs, &naive);
    idempotency_keys(&mut obs);
    let twice = explore_commit_twice();
    commit_again(&mut obs, &twice);
    questions::questions(&mut obs, &naive, &twice);
    let summary = summary(&naive, &twice);
    obs.finish(None, summary)
}

/// 1. The commit ends ABORTED once; the runner calls the callback again.
fn retried_callback(obs: &mut Observation, naive: &Naive) {
    // ANCHOR: observe_retried
    let aborted = facts_for(&naive.all, "spanner:commit=rejected (definite)");
    obs.check(
        "the callback runs once per settlement",
        aborted.callback_runs == 1,
    );
    obs.check(
        "the charge inside the callback repeats when the runner retries",
        aborted.receipts.len() == 2,
    );
    obs.check(
        "the row written by the aborted attempt is not in the database",
        aborted.rows == 1 && aborted.row_receipt.as_ref() == aborted.receipts.last(),
    );
    // ANCHOR_END: observe_retried
}

/// 2. DEADLINE_EXCEEDED on commit, over every schedule where the caller saw it.
fn deadline_exceeded(obs: &mut Observation, naive: &Naive) {
    let seen = &naive.seen;
    obs.check(
        "a DEADLINE_EXCEEDED commit was rolled back",
        !seen.is_empty() && seen.iter().all(|present| !present),
    );
    obs.check(
        "a DEADLINE_EXCEEDED commit was applied",
        !seen.is_empty() && seen.iter().all(|present| *present),
    );
    let one_row_two_receipts = naive
        .all
        .iter()
        .any(|f| f.rows == 1 && f.receipts.len() > 1);
    obs.check("one committed row means one receipt", !one_row_two_receipts);
}

/// 3. The crash matrix: each single fault, pass or the invariant it broke.
fn crash_matrix(obs: &mut Observation, naive: &Naive) {
    let cells = [
        (
            "DEADLINE_EXCEEDED on a commit that applied leaves one receipt",
            "spanner:commit=applied, response lost",
        ),
        (
            "DEADLINE_EXCEEDED on a commit not applied leaves one receipt",
            "spanner:commit=not applied",
        ),
        (
            "an ABORTED commit leaves one receipt",
            "spanner:commit=rejected (definite)",
        ),
        (
            "a crash after the commit leaves one receipt",
            "app:after-commit=crash",
        ),
        (
            "a charge timeout with nothing charged leaves one receipt",
            "processor:charge=not applied",
        ),
        (
            "a charge whose response is lost leaves one receipt",
            "processor:charge=applied, response lost",
        ),
    ];
    for (claim, fault) in cells {
        obs.check(claim, passes(&naive.matrix, fault));
    }
}

/// 4. The same retry, with an idempotency key: the first response is lost.
fn idempotency_keys(obs: &mut Observation) {
    // ANCHOR: observe_key
    let mut sim = Sim::replaying(&[1]);
    let mut processor = PaymentProcessor::new();
    let keyed = |key: &str| ChargeRequest {
        reference: S1.id.to_string(),
        amount: S1.amount,
        idempotency_key: Some(key.to_string()),
    };
    let first = processor.charge(&mut sim, keyed("settle-S1"));
    let retry = processor.charge(&mut sim, keyed("settle-S1"));
    let after_retry = processor.search(S1.id).len();
    obs.check(
        "retrying with the same idempotency key returns the first receipt",
        first.is_err() && retry.is_ok() && after_retry == 1,
    );
    processor
        .charge(&mut sim, keyed("settle-S1-again"))
        .expect("fault-free charge");
    obs.check(
        "a new idempotency key for the same intent is a second charge",
        processor.search(S1.id).len() == 2,
    );
    // ANCHOR_END: observe_key
}

/// 5. The same transaction committed again after its commit failed.
fn commit_again(obs: &mut Observation, twice: &[CommitTwice]) {
    let after_deadline: Vec<&CommitTwice> = twice
        .iter()
        .filter(|t| t.first == Err(Code::DeadlineExceeded))
        .collect();
    let (applied, not_applied): (Vec<&CommitTwice>, Vec<&CommitTwice>) =
        after_deadline.iter().partition(|t| t.applied);
    // It tells only if every applied schedule answers differently from every other one.
    let second_commit_tells = !applied.is_empty()
        && !not_applied.is_empty()
        && applied
            .iter()
            .all(|a| not_applied.iter().all(|n| a.again != n.again));
    obs.check(
        "committing the same transaction again after DEADLINE_EXCEEDED tells whether the first commit applied",
        second_commit_tells,
    );
}
fn summary(naive: &Naive, twice: &[CommitTwice]) -> serde_json::Value {
    let (seen, exploration, matrix) = (&naive.seen, &naive.exploration, &naive.matrix);
    let matrix_lines: Vec<String> = matrix.render().lines().map(str::to_string).collect();
    let commit_twice_lines: Vec<String> = twice
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
        "schedules": exploration.schedules,
        "per_fault_count": exploration.per_level,
        "crash_matrix": matrix_lines,
        "deadline_exceeded_seen": seen.len(),
        "commit_twice": commit_twice_lines,
        "scope": "Simulated Spanner read-write transactions (runner with ABORTED retries, \
                  DEADLINE_EXCEEDED with a hidden truth) and a simulated payment processor; \
                  one intent, one client, every schedule with at most one fault.",
    })
}
