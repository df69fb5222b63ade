//! The questions about the run, each answered from the schedules the exploration
//! recorded: one schedule by its faults (in the order they happened), or all of them.

use super::{
    ABORTED, CHARGE_LANDS_LATE, CHARGE_NOT_APPLIED, COMMIT_LANDS_LATE, COMMIT_NOT_APPLIED,
    COMMIT_RESPONSE_LOST, CRASH_AFTER_CHARGE, CRASH_AFTER_COMMIT, CommitTwice, Explored, Runs,
    named_receipt, receipts,
};
use labkit::Observation;
use sim_spanner::Code;

pub(super) fn checks(obs: &mut Observation, runs: &Runs) {
    retried_callback(obs, &runs.naive);
    lucky_reads(obs, &runs.naive);
    late_commits(obs, &runs.naive);
    late_charges(obs, &runs.naive);
    commit_again(obs, &runs.twice);
    keyed(obs, &runs.keyed, &runs.keyed_next_day);
}

/// ABORTED: the runner calls the callback again, and each run charges.
fn retried_callback(obs: &mut Observation, naive: &Explored) {
    obs.ask(
        "The first commit ends ABORTED, and the process crashes right after the runner's second charge. Does S1 end with three receipts?",
        receipts(naive, &[ABORTED, CRASH_AFTER_CHARGE]) == 3,
    );
    obs.ask(
        "The first commit ends ABORTED, and the runner's second commit applies but its response is lost. Does S1 end with two receipts?",
        receipts(naive, &[ABORTED, COMMIT_RESPONSE_LOST]) == 2,
    );
}

/// Schedules in which the row is already there when a later callback run reads it.
fn lucky_reads(obs: &mut Observation, naive: &Explored) {
    let crash_after_commit = naive.with_faults(&[CRASH_AFTER_COMMIT]);
    obs.ask(
        "The process crashes right after its first commit. Does the naive callback run again in the next process?",
        crash_after_commit.callback_runs > 1,
    );
    obs.ask(
        "The process crashes right after its first commit, and the next process's commit ends ABORTED. Does S1 end with more than one receipt?",
        receipts(naive, &[CRASH_AFTER_COMMIT, ABORTED]) > 1,
    );
    obs.ask(
        "The first commit applies but its response is lost, and the same happens to the next process's commit. Does S1 end with one receipt?",
        receipts(naive, &[COMMIT_RESPONSE_LOST, COMMIT_RESPONSE_LOST]) == 1,
    );
}

/// A commit that lands later, alone or with a second fault.
fn late_commits(obs: &mut Observation, naive: &Explored) {
    let late = naive.with_faults(&[COMMIT_LANDS_LATE]);
    obs.ask(
        "In the schedule whose only fault is a first commit that ends DEADLINE_EXCEEDED and is applied later, does the naive callback run exactly twice?",
        late.callback_runs == 2,
    );
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED and is applied later, and the next process crashes right after its charge. Does S1 end with three receipts?",
        receipts(naive, &[COMMIT_LANDS_LATE, CRASH_AFTER_CHARGE]) == 3,
    );
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED and is applied later, and the next process's charge times out without charging. Does S1 end with one receipt?",
        receipts(naive, &[COMMIT_LANDS_LATE, CHARGE_NOT_APPLIED]) == 1,
    );
    let then_crash = naive.with_faults(&[COMMIT_LANDS_LATE, CRASH_AFTER_COMMIT]);
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED and is applied later, and the next process crashes right after its commit. Does the naive callback run four times in all?",
        then_crash.callback_runs == 4,
    );
    let crash_then_late = naive.with_faults(&[CRASH_AFTER_CHARGE, COMMIT_LANDS_LATE]);
    obs.ask(
        "The process crashes right after its first charge, and the next process's commit ends DEADLINE_EXCEEDED and is applied later. Does the settlement row name S1's last receipt?",
        named_receipt(crash_then_late) == Some(crash_then_late.receipts.len()),
    );
}

/// A charge that lands later.
fn late_charges(obs: &mut Observation, naive: &Explored) {
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED without applying, and the next process's charge times out and lands later. Does S1 end with three receipts?",
        receipts(naive, &[COMMIT_NOT_APPLIED, CHARGE_LANDS_LATE]) == 3,
    );
    let late_charge = naive.with_faults(&[CHARGE_LANDS_LATE]);
    obs.ask(
        "In the schedule whose only fault is a charge that times out and lands later, does the settlement row name S1's first receipt?",
        named_receipt(late_charge) == Some(1),
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

/// The naive callback charging under `settle-S1`: the next process a minute later, then
/// a day later.
fn keyed(obs: &mut Observation, keyed: &Explored, next_day: &Explored) {
    obs.ask(
        "With the key settle-S1 and each new process a minute later, does any schedule with up to two faults end with more than one receipt?",
        keyed.facts.iter().any(|f| f.receipts.len() > 1),
    );
    obs.ask(
        "Same key, each new process a day later: the first commit ends ABORTED. Does S1 end with one receipt?",
        receipts(next_day, &[ABORTED]) == 1,
    );
    obs.ask(
        "Same key, a day later: the first commit ends DEADLINE_EXCEEDED and is applied later. Does S1 end with more than one receipt?",
        receipts(next_day, &[COMMIT_LANDS_LATE]) > 1,
    );
    obs.ask(
        "Same key, a day later: the first charge times out and lands later. Does S1 end with one receipt?",
        receipts(next_day, &[CHARGE_LANDS_LATE]) == 1,
    );
    obs.ask(
        "Same key, a day later: the first commit ends ABORTED, and the runner's second charge times out without charging. Does S1 end with one receipt?",
        receipts(next_day, &[ABORTED, CHARGE_NOT_APPLIED]) == 1,
    );
    obs.ask(
        "Same key, a day later: the first charge times out without charging, and the next process's commit ends DEADLINE_EXCEEDED without applying. Does S1 end with two receipts?",
        receipts(next_day, &[CHARGE_NOT_APPLIED, COMMIT_NOT_APPLIED]) == 2,
    );
    obs.ask(
        "Same key, a day later: the first commit ends ABORTED, and the runner's second commit ends DEADLINE_EXCEEDED and is applied later. Does S1 end with one receipt?",
        receipts(next_day, &[ABORTED, COMMIT_LANDS_LATE]) == 1,
    );
    obs.ask(
        "Same key, a day later: the process crashes right after its first commit, and the next process's commit ends DEADLINE_EXCEEDED without applying. Does S1 end with two receipts?",
        receipts(next_day, &[CRASH_AFTER_COMMIT, COMMIT_NOT_APPLIED]) == 2,
    );
}
