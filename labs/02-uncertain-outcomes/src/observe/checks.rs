//! The questions about the run, each answered from the schedules the exploration
//! recorded: one schedule by its faults (in the order they happened), or all of them.

use super::{
    ABORTED, CHARGE_LANDS_LATE, CHARGE_NOT_APPLIED, COMMIT_LANDS_LATE, COMMIT_NOT_APPLIED,
    COMMIT_RESPONSE_LOST, CRASH_AFTER_CHARGE, CRASH_AFTER_COMMIT, Explored, Runs, named_receipt,
    receipts,
};
use labkit::Observation;

pub(super) fn checks(obs: &mut Observation, runs: &Runs) {
    retried_callback(obs, &runs.naive);
    lucky_reads(obs, &runs.naive);
    late_commits(obs, &runs.naive);
    late_charges(obs, &runs.naive);
    keyed(obs, &runs.keyed, &runs.keyed_next_day);
}

/// ABORTED: the runner calls the callback again, and each run charges.
fn retried_callback(obs: &mut Observation, naive: &Explored) {
    obs.ask(
        "The first commit ends ABORTED, and the process crashes right after the runner's second charge. Does S1 end with three receipts?",
        receipts(naive, &[ABORTED, CRASH_AFTER_CHARGE]) == 3,
    );
}

/// Schedules in which the row is already there when a later callback run reads it.
fn lucky_reads(obs: &mut Observation, naive: &Explored) {
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
        "In the schedule whose only fault is a first commit that ends DEADLINE_EXCEEDED and is applied later, does the naive callback run more than twice?",
        late.callback_runs > 2,
    );
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED and is applied later, and the next process's charge times out without charging. Does S1 end with one receipt?",
        receipts(naive, &[COMMIT_LANDS_LATE, CHARGE_NOT_APPLIED]) == 1,
    );
}

/// A charge that lands later.
fn late_charges(obs: &mut Observation, naive: &Explored) {
    let late_charge = naive.with_faults(&[CHARGE_LANDS_LATE]);
    obs.ask(
        "In the schedule whose only fault is a charge that times out and lands later, does the settlement row name S1's first receipt?",
        named_receipt(late_charge) == Some(1),
    );
}

/// The naive callback charging under `settle-S1`: the next process a minute later, then
/// a day later.
fn keyed(obs: &mut Observation, keyed: &Explored, next_day: &Explored) {
    obs.ask(
        "With the key settle-S1 and each new process a minute later, does every schedule with up to two faults end with one receipt?",
        keyed.facts.iter().all(|f| f.receipts.len() == 1),
    );
    obs.ask(
        "With the key settle-S1 and each new process a day later, the process crashes right after its first commit, and the next process's commit ends DEADLINE_EXCEEDED without applying. Does S1 end with two receipts?",
        receipts(next_day, &[CRASH_AFTER_COMMIT, COMMIT_NOT_APPLIED]) == 2,
    );
}
