//! The questions about the run, each answered from the schedules the exploration
//! recorded: one schedule by its faults (in the order they happened), or all of them.

use super::{
    COMMIT_LANDS_LATE, COMMIT_NOT_APPLIED, CRASH_AFTER_CHARGE, CRASH_AFTER_COMMIT, Explored, Runs,
    named_receipt, receipts,
};
use labkit::Observation;

pub(super) fn checks(obs: &mut Observation, runs: &Runs) {
    late_commits(obs, &runs.naive);
    keyed(obs, &runs.keyed_next_day);
}

/// A commit that lands later, alone or with a second fault.
fn late_commits(obs: &mut Observation, naive: &Explored) {
    let crashed = naive.with_faults(&[COMMIT_LANDS_LATE, CRASH_AFTER_CHARGE]);
    obs.ask(
        "The first commit ends DEADLINE_EXCEEDED and is applied later, and the next process crashes right after its charge. Does the settlement row name S1's first receipt?",
        named_receipt(crashed) == Some(1),
    );
}

/// The naive callback charging under `settle-S1`, each new process a day later.
fn keyed(obs: &mut Observation, next_day: &Explored) {
    obs.ask(
        "With the key settle-S1 and each new process a day later, the process crashes right after its first commit, and the next process's commit ends DEADLINE_EXCEEDED without applying. Does S1 end with two receipts?",
        receipts(next_day, &[CRASH_AFTER_COMMIT, COMMIT_NOT_APPLIED]) == 2,
    );
}
