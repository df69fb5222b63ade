//! The multiple-choice questions, answered from the observe phase's records.

use super::{CommitTwice, Naive, code_name, facts_for};
use labkit::Observation;
use sim_spanner::Code;

/// The questions about the naive exploration, answered from the same records.
pub(super) fn questions(obs: &mut Observation, naive: &Naive, twice: &[CommitTwice]) {
    let aborted = facts_for(&naive.all, "spanner:commit=rejected (definite)");
    let seen = &naive.seen;
    let settlement_case = match (aborted.rows, aborted.receipts.len()) {
        (1, 1) => "a",
        (1, 2) => "b",
        (2, 2) => "c",
        (0, 1) => "d",
        _ => "?",
    };
    obs.answer(
        "settlement-case",
        settlement_case,
        format!(
            "after one ABORTED commit: {} row(s), {} receipt(s), callback ran {} times",
            aborted.rows,
            aborted.receipts.len(),
            aborted.callback_runs
        ),
    );
    let deadline_truths = match (seen.iter().any(|p| *p), seen.iter().any(|p| !p)) {
        (true, false) => "a",
        (false, true) => "b",
        (true, true) => "c",
        (false, false) => "?",
    };
    obs.answer(
        "deadline-truths",
        deadline_truths,
        format!(
            "{} DEADLINE_EXCEEDED commits seen: {} with the row present, {} without",
            seen.len(),
            seen.iter().filter(|p| **p).count(),
            seen.iter().filter(|p| !**p).count()
        ),
    );
    counts(obs, naive);
    commit_again_question(obs, twice);
}

/// How many one-fault schedules there are, and how many break the naive settlement.
fn counts(obs: &mut Observation, naive: &Naive) {
    let (exploration, matrix) = (&naive.exploration, &naive.matrix);
    let one_fault = exploration.per_level.get(1).copied().unwrap_or(0);
    let one_fault_answer = match one_fault {
        5 => "a",
        9 => "b",
        12 => "c",
        15 => "d",
        _ => "?",
    };
    obs.answer(
        "one-fault-schedules",
        one_fault_answer,
        format!("{one_fault} schedules with exactly one fault"),
    );
    let failing = matrix.rows.iter().filter(|r| r.broken.is_some()).count();
    let failing_answer = match failing {
        0 => "a",
        1..=3 => "b",
        4..=6 => "c",
        _ => "d",
    };
    obs.answer(
        "matrix-failures",
        failing_answer,
        format!(
            "{failing} of {} single faults break an invariant",
            matrix.rows.len()
        ),
    );
}

fn commit_again_question(obs: &mut Observation, twice: &[CommitTwice]) {
    let after_abort = twice
        .iter()
        .find(|t| t.first == Err(Code::Aborted))
        .expect("a schedule whose commit ends ABORTED");
    obs.answer(
        "commit-again-after-aborted",
        match after_abort.again {
            Ok(()) => "a",
            Err(Code::Aborted) => "b",
            Err(Code::DeadlineExceeded) => "c",
            Err(Code::AlreadyExists) => "d",
            Err(_) => "?",
        },
        format!(
            "the second commit of the aborted transaction returned {}",
            code_name(&after_abort.again)
        ),
    );
}
