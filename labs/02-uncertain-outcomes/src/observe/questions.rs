//! The multiple-choice questions, answered from the observe phase's records.

use super::{ABORTED, CHARGE_LANDS_LATE, COMMIT_LANDS_LATE, Runs, named_receipt};
use labkit::Observation;

pub(super) fn questions(obs: &mut Observation, runs: &Runs) {
    aborted_then_late_commit(obs, runs);
    survivors(obs, runs);
    keyed_next_day(obs, runs);
    late_commit_twice(obs, runs);
    late_commit_alone(obs, runs);
    late_charge_alone(obs, runs);
}

/// ABORTED, then the runner's second commit is applied later.
fn aborted_then_late_commit(obs: &mut Observation, runs: &Runs) {
    let facts = runs.naive.with_faults(&[ABORTED, COMMIT_LANDS_LATE]);
    let answer = match (facts.receipts.len(), named_receipt(facts)) {
        (2, Some(2)) => "a",
        (3, Some(3)) => "b",
        (3, Some(2)) => "c",
        (2, Some(1)) => "d",
        _ => "?",
    };
    obs.choose("Without a key, the naive settlement's first commit ends ABORTED, and the runner's second commit ends DEADLINE_EXCEEDED and is applied later. What does S1 end with once the caller is done?",
        answer,
        format!(
            "receipts {}; the row names {:?}; the callback ran {} times",
            facts.receipts.join(", "),
            facts.row_receipt,
            facts.callback_runs
        ),
    );
}

/// How many single faults the naive settlement survives (one receipt, named by the row).
fn survivors(obs: &mut Observation, runs: &Runs) {
    let passed: Vec<&str> = (runs.naive.matrix.rows.iter())
        .filter(|row| row.broken.is_none())
        .map(|row| row.fault.as_str())
        .collect();
    let answer = match passed.len() {
        2 => "a",
        3 => "b",
        4 => "c",
        5 => "d",
        _ => "?",
    };
    obs.choose(
        "How many of the single faults does the naive settlement survive, ending with one receipt that its row names?",
        answer,
        format!("{} survived: {}", passed.len(), passed.join("; ")),
    );
}

/// The keyed callback, each new process a day later.
fn keyed_next_day(obs: &mut Observation, runs: &Runs) {
    let next_day = &runs.keyed_next_day;
    let twice: Vec<&str> = (next_day.facts.iter())
        .filter(|f| f.faults.len() == 1 && f.receipts.len() > 1)
        .map(|f| f.faults[0].as_str())
        .collect();
    let answer = match twice.len() {
        0 => "a",
        3 => "b",
        4 => "c",
        5 => "d",
        _ => "?",
    };
    obs.choose("With the key settle-S1 and each new process a day later, how many of the one-fault schedules end with more than one receipt?",
        answer,
        format!("{} single faults: {}", twice.len(), twice.join("; ")),
    );
}

/// Two commits applied later: the caller's two DEADLINE_EXCEEDED.
fn late_commit_twice(obs: &mut Observation, runs: &Runs) {
    let facts = runs
        .naive
        .with_faults(&[COMMIT_LANDS_LATE, COMMIT_LANDS_LATE]);
    let answer = match facts.row_when_deadline_exceeded.as_slice() {
        [false, false] => "a",
        [false, true] => "b",
        [true, true] => "c",
        [false] => "d",
        _ => "?",
    };
    obs.choose("Without a key, the naive settlement's first commit ends DEADLINE_EXCEEDED and is applied later; in the next process, a commit ends DEADLINE_EXCEEDED and is applied later again. Was the row in the database at the moments the caller saw DEADLINE_EXCEEDED?",
        answer,
        format!(
            "the row at each DEADLINE_EXCEEDED: {:?}",
            facts.row_when_deadline_exceeded
        ),
    );
}

/// A first commit applied later, the schedule's only fault.
fn late_commit_alone(obs: &mut Observation, runs: &Runs) {
    let facts = runs.naive.with_faults(&[COMMIT_LANDS_LATE]);
    let answer = match (facts.callback_runs, facts.receipts.len()) {
        (3, 2) => "a",
        (2, 2) => "b",
        (3, 3) => "c",
        (2, 1) => "d",
        _ => "?",
    };
    obs.choose("Without a key, in the schedule whose only fault is a first commit that ends DEADLINE_EXCEEDED and is applied later, how many times does the naive callback run, and how many receipts does S1 end with?",
        answer,
        format!(
            "the callback ran {} times; receipts {}",
            facts.callback_runs,
            facts.receipts.join(", ")
        ),
    );
}

/// A charge applied later, the schedule's only fault.
fn late_charge_alone(obs: &mut Observation, runs: &Runs) {
    let facts = runs.naive.with_faults(&[CHARGE_LANDS_LATE]);
    let answer = match (facts.receipts.len(), named_receipt(facts)) {
        (1, Some(1)) => "a",
        (2, Some(1)) => "b",
        (3, Some(3)) => "c",
        (2, Some(2)) => "d",
        _ => "?",
    };
    obs.choose("Without a key, in the schedule whose only fault is a charge that times out and is applied later, how many receipts does S1 end with, and which does its row name?",
        answer,
        format!(
            "receipts {}; the row names {:?}",
            facts.receipts.join(", "),
            facts.row_receipt
        ),
    );
}
