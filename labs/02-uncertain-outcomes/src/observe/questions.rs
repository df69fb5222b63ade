//! The multiple-choice questions, answered from the observe phase's records.

use super::{ABORTED, CHARGE_LOST, Runs, code_name};
use labkit::Observation;
use sim_spanner::{Code, ProcessorError};

pub(super) fn questions(obs: &mut Observation, runs: &Runs) {
    settlement_case(obs, runs);
    counts(obs, runs);
    commit_again(obs, runs);
    two_faults(obs, runs);
    keyed_next_day(obs, runs);
    shared_key(obs, runs);
    other_fault_points(obs, runs);
}

fn settlement_case(obs: &mut Observation, runs: &Runs) {
    let aborted = runs.naive.with_faults(&[ABORTED]);
    let answer = match (aborted.rows, aborted.receipts.len()) {
        (1, 1) => "a",
        (2, 2) => "b",
        (1, 2) => "c",
        (0, 1) => "d",
        _ => "?",
    };
    obs.choose("The naive settlement of S1 runs, and its first commit ends ABORTED. What exists once the caller is done?",
        answer,
        format!(
            "after one ABORTED commit: {} row(s), {} receipt(s), callback ran {} times",
            aborted.rows,
            aborted.receipts.len(),
            aborted.callback_runs
        ),
    );
}

/// How many one-fault schedules there are, and how many break the naive settlement.
fn counts(obs: &mut Observation, runs: &Runs) {
    let one_fault = runs.naive.exploration.per_level[1];
    let answer = match one_fault {
        4 => "a",
        9 => "b",
        13 => "c",
        _ => "?",
    };
    obs.choose(
        "How many schedules of the naive settlement have exactly one fault?",
        answer,
        format!("{one_fault} schedules with exactly one fault"),
    );
    let matrix = &runs.naive.matrix;
    let failing = matrix.rows.iter().filter(|r| r.broken.is_some()).count();
    let answer = match failing {
        0 => "a",
        1..=2 => "b",
        3..=5 => "c",
        _ => "d",
    };
    obs.choose(
        "Of those one-fault schedules, how many break an invariant of the naive settlement?",
        answer,
        format!(
            "{failing} of {} single faults break an invariant",
            matrix.rows.len()
        ),
    );
}

fn commit_again(obs: &mut Observation, runs: &Runs) {
    let after_abort = runs
        .twice
        .iter()
        .find(|t| t.first == Err(Code::Aborted))
        .expect("a schedule whose commit ends ABORTED");
    let answer = match after_abort.again {
        Ok(()) => "a",
        Err(Code::Aborted) => "b",
        Err(Code::DeadlineExceeded) => "c",
        Err(Code::AlreadyExists) => "d",
        Err(_) => "?",
    };
    obs.choose("A transaction the application drives itself (begin, buffer S1's pending row, commit) gets ABORTED from its commit. The code calls commit once more on the same transaction object. What does that second commit return?",
        answer,
        format!(
            "the second commit of the aborted transaction returned {}",
            code_name(&after_abort.again)
        ),
    );
}

/// An ABORTED commit, then a lost charge response in the runner's retry.
fn two_faults(obs: &mut Observation, runs: &Runs) {
    let facts = runs.naive.with_faults(&[ABORTED, CHARGE_LOST]);
    let receipts = facts.receipts.len();
    let answer = match receipts {
        1 => "a",
        2 => "b",
        3 => "c",
        4 => "d",
        _ => "?",
    };
    obs.choose("Two faults: the naive settlement's first commit ends ABORTED, and the next charge's response is lost. The caller settles again in new processes until it is done. How many receipts does S1 end with?",
        answer,
        format!("{receipts} receipts for S1: {}", facts.receipts.join(", ")),
    );
}

/// The naive code with a key, each new process a day later: how many single faults
/// still end with two receipts.
fn keyed_next_day(obs: &mut Observation, runs: &Runs) {
    let facts = &runs.keyed_next_day.facts;
    let twice: Vec<&str> = facts
        .iter()
        .filter(|f| f.faults.len() == 1 && f.receipts.len() > 1)
        .map(|f| f.faults[0].as_str())
        .collect();
    let answer = match twice.len() {
        0 => "a",
        1 => "b",
        2..=3 => "c",
        _ => "d",
    };
    obs.choose("The naive callback now charges under the key settle-S1, and each new process starts a day after the last one stopped. Of its one-fault schedules, how many end with two receipts?",
        answer,
        format!(
            "{} single faults end with two receipts: {}",
            twice.len(),
            twice.join("; ")
        ),
    );
}

/// S2's charge under the key S1's charge used first.
fn shared_key(obs: &mut Observation, runs: &Runs) {
    let keys = &runs.keys;
    let answer = match (&keys.shared_key, keys.receipts_after_shared_key) {
        (Err(ProcessorError::IdempotencyKeyReused), 1) => "a",
        (Ok(reference), 2) if reference == "S2" => "b",
        (Ok(reference), 1) if reference == "S1" => "c",
        _ => "d",
    };
    let seen = match &keys.shared_key {
        Ok(reference) => format!("a receipt for {reference}"),
        Err(e) => e.to_string(),
    };
    obs.choose("S1 (120) and S2 (80) are charged under one key, settle, that does not name the intent. S1's charge goes through. What happens to S2's charge?",
        answer,
        format!(
            "S2's charge got {seen}; the processor holds {} receipt(s)",
            keys.receipts_after_shared_key
        ),
    );
}

/// The three single faults no check names: a late commit, a crash right after the
/// charge, a late charge.
fn other_fault_points(obs: &mut Observation, runs: &Runs) {
    let broken = |fault: &str| super::marked_as_a_failure(&runs.naive.matrix, fault);
    let late_commit = broken("spanner:commit=applied later");
    let crash = broken("app:after-charge=crash");
    let late_charge = broken(super::CHARGE_LANDS_LATE);
    let answer = match (late_commit, crash, late_charge) {
        (true, true, true) => "a",
        (false, false, false) => "b",
        (false, true, false) => "c",
        (false, true, true) => "d",
        _ => "?",
    };
    obs.choose("Three single faults no check asks about: a commit that lands late, a crash right after the charge, and a charge that lands late. Which of them break the naive settlement?",
        answer,
        format!(
            "broken: late commit {late_commit}, crash after the charge {crash}, late charge {late_charge}"
        ),
    );
}
