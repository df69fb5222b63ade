//! The multiple-choice questions, answered from the observe phase's records.

use super::{
    ABORTED, CHARGE_LANDS_LATE, CHARGE_NOT_APPLIED, COMMIT_LANDS_LATE, COMMIT_RESPONSE_LOST,
    CRASH_AFTER_COMMIT, Runs, named_receipt, receipts,
};
use labkit::Observation;
use std::collections::BTreeSet;

pub(super) fn questions(obs: &mut Observation, runs: &Runs) {
    aborted_then_late_commit(obs, runs);
    keyed_late_commit(obs, runs);
    survivors(obs, runs);
    deadline_exceeded_seen(obs, runs);
    keyed_next_day(obs, runs);
    key_experiments(obs, runs);
    late_commit_twice(obs, runs);
}

/// ABORTED, then the runner's second commit is applied later.
fn aborted_then_late_commit(obs: &mut Observation, runs: &Runs) {
    let facts = runs.naive.with_faults(&[ABORTED, COMMIT_LANDS_LATE]);
    let answer = match (facts.receipts.len(), named_receipt(facts)) {
        (2, Some(2)) => "a",
        (3, Some(3)) => "b",
        (4, Some(4)) => "c",
        (3, Some(2)) => "d",
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

/// The keyed callback, the next process a minute later: a commit applied later.
fn keyed_late_commit(obs: &mut Observation, runs: &Runs) {
    let facts = runs.keyed.with_faults(&[COMMIT_LANDS_LATE]);
    let answer = match (facts.callback_runs, facts.receipts.len()) {
        (3, 1) => "a",
        (2, 1) => "b",
        (3, 2) => "c",
        (1, 1) => "d",
        _ => "?",
    };
    obs.choose("With the key settle-S1 and the next process a minute later, the first commit ends DEADLINE_EXCEEDED and is applied later. How many times does the callback run, and how many receipts does S1 end with?",
        answer,
        format!(
            "the callback ran {} times; receipts {}",
            facts.callback_runs,
            facts.receipts.join(", ")
        ),
    );
}

/// The single faults the naive settlement survives (one receipt, named by the row).
fn survivors(obs: &mut Observation, runs: &Runs) {
    let passed: BTreeSet<&str> = (runs.naive.matrix.rows.iter())
        .filter(|row| row.broken.is_none())
        .map(|row| row.fault.as_str())
        .collect();
    let set = |faults: &[&'static str]| faults.iter().copied().collect::<BTreeSet<&str>>();
    let lucky = [CRASH_AFTER_COMMIT, CHARGE_NOT_APPLIED];
    let answer = if passed == set(&[CHARGE_NOT_APPLIED]) {
        "a"
    } else if passed == set(&lucky) {
        "b"
    } else if passed == set(&[&lucky[..], &[COMMIT_RESPONSE_LOST, COMMIT_LANDS_LATE]].concat()) {
        "c"
    } else if passed == set(&[&lucky[..], &[COMMIT_RESPONSE_LOST]].concat()) {
        "d"
    } else {
        "?"
    };
    obs.choose(
        "Which single faults does the naive settlement survive, ending with one receipt that its row names?",
        answer,
        format!("passed: {}", Vec::from_iter(passed).join("; ")),
    );
}

/// Every DEADLINE_EXCEEDED the naive caller saw in a one-fault schedule.
fn deadline_exceeded_seen(obs: &mut Observation, runs: &Runs) {
    let there = runs.seen.iter().filter(|present| **present).count();
    let answer = match (runs.seen.len(), there) {
        (3, 1) => "a",
        (3, 2) => "b",
        (3, 0) => "c",
        (1, 0) => "d",
        _ => "?",
    };
    obs.choose("Over the naive settlement's one-fault schedules, how often does the caller see DEADLINE_EXCEEDED on a commit, and how often is the row already there at that moment?",
        answer,
        format!(
            "DEADLINE_EXCEEDED seen {} times, the row there {there} times",
            runs.seen.len()
        ),
    );
}

/// The keyed callback, each new process a day later.
fn keyed_next_day(obs: &mut Observation, runs: &Runs) {
    let next_day = &runs.keyed_next_day;
    let answer = match receipts(next_day, &[ABORTED, CHARGE_LANDS_LATE]) {
        1 => "a",
        2 => "b",
        3 => "c",
        _ => "?",
    };
    obs.choose("With the key settle-S1 and each new process a day later, the first commit ends ABORTED, and the runner's second charge times out and lands later. How many receipts does S1 end with?",
        answer,
        format!(
            "receipts {}",
            next_day.with_faults(&[ABORTED, CHARGE_LANDS_LATE]).receipts.join(", ")
        ),
    );
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

/// The processor on its own: which experiments leave a second receipt.
fn key_experiments(obs: &mut Observation, runs: &Runs) {
    let keys = &runs.keys;
    let second = [
        keys.receipts_after_a_resend_at_once > 1,
        keys.receipts_after_a_resend_a_day_later > 1,
        keys.receipts_after_a_new_key > 1,
        keys.receipts_after_shared_key > 1,
    ];
    let answer = match second {
        [false, false, false, false] => "a",
        [false, false, true, false] => "b",
        [false, true, true, false] => "c",
        [false, true, true, true] => "d",
        _ => "?",
    };
    let shared = match &keys.shared_key {
        Ok(reference) => format!("a receipt for {reference}"),
        Err(e) => e.to_string(),
    };
    obs.choose("The processor is also tried on its own: (1) S1's charge under settle-S1 loses its response and the same request goes out again at once; (2) the same, with the resend 25 hours later; (3) S1 is charged again under a new key; (4) S2 (80) is charged under the key settle, which S1 (120) used first. How many of the four end with a second receipt?",
        answer,
        format!(
            "receipts: {} at once, {} 25 hours later, {} under a new key; S2's charge got {shared}",
            keys.receipts_after_a_resend_at_once,
            keys.receipts_after_a_resend_a_day_later,
            keys.receipts_after_a_new_key
        ),
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
