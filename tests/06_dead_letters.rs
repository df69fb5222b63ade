//! Lab 06 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 06`.
//!
//! Each test explores one graded world (`scenarios/`): the faults it lets happen, up to a
//! budget. Every replay test checks every replay invariant; every reminder test counts
//! each invoice's reminders (`invariants.rs`).

use dead_letters::scenarios::{
    Protocol, REMINDERS_ALL, REMINDERS_CRASHES, REMINDERS_FORWARDING, REMINDERS_LOST_REPLIES,
    REMINDERS_QUIET, REPLAY, REPLAY_CRASHES, REPLAY_EARLY_PULL, REPLAY_LOST_REPLIES,
    REPLAY_STALE_PULLS, REPLAY_STALLS, explore_reminders, explore_replay, reminder_scenario,
    reminder_schedules, replay_scenario, replay_schedules,
};
use labkit::fault;
use pretty_assertions::assert_eq;

/// Your `replay.rs` and `reminders.rs`, as the scenarios take them.
const YOURS: Protocol = dead_letters::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_replay_recovers_the_missing_work_once,
    a_crash_during_the_replay_repeats_nothing,
    a_lost_reply_during_the_replay_repeats_nothing,
    a_pull_that_misses_the_seek_does_not_end_the_replay,
    a_stalled_billing_process_repeats_nothing,
    a_pull_at_once_after_the_seek_finds_the_run_on_record,
    the_replay_holds_every_invariant_under_two_faults,
    the_fault_free_run_sends_five_reminders_per_invoice,
    early_or_late_forwarding_changes_no_count,
    a_crash_changes_no_count,
    a_lost_reply_changes_no_count,
    exactly_five_reminders_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn the_fault_free_replay_recovers_the_missing_work_once() {
    explore_replay(YOURS, &REPLAY, 0).assert_ok();
}

fn a_crash_during_the_replay_repeats_nothing() {
    explore_replay(YOURS, &REPLAY_CRASHES, 1).assert_ok_reaching(1);
}

fn a_lost_reply_during_the_replay_repeats_nothing() {
    explore_replay(YOURS, &REPLAY_LOST_REPLIES, 1).assert_ok_reaching(1);
}

fn a_pull_that_misses_the_seek_does_not_end_the_replay() {
    explore_replay(YOURS, &REPLAY_STALE_PULLS, 1).assert_ok_reaching(1);
}

fn a_stalled_billing_process_repeats_nothing() {
    explore_replay(YOURS, &REPLAY_STALLS, 1).assert_ok_reaching(1);
}

fn a_pull_at_once_after_the_seek_finds_the_run_on_record() {
    // The subscription is live: a billing process may pull what the seek redelivers
    // before the operator's process takes its next step.
    explore_replay(YOURS, &REPLAY_EARLY_PULL, 1).assert_ok_reaching(1);
}

fn the_replay_holds_every_invariant_under_two_faults() {
    explore_replay(YOURS, &REPLAY, 2).assert_ok_reaching(2);
}

fn the_fault_free_run_sends_five_reminders_per_invoice() {
    explore_reminders(YOURS, &REMINDERS_QUIET, 0).assert_ok();
}

fn early_or_late_forwarding_changes_no_count() {
    explore_reminders(YOURS, &REMINDERS_FORWARDING, 1).assert_ok_reaching(1);
}

fn a_crash_changes_no_count() {
    explore_reminders(YOURS, &REMINDERS_CRASHES, 1).assert_ok_reaching(1);
}

fn a_lost_reply_changes_no_count() {
    explore_reminders(YOURS, &REMINDERS_LOST_REPLIES, 1).assert_ok_reaching(1);
}

fn exactly_five_reminders_under_every_schedule_with_two_faults() {
    explore_reminders(YOURS, &REMINDERS_ALL, 2).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    // Every schedule with one fault, replayed from its token: the same timeline twice.
    let sample = replay_schedules(YOURS, &REPLAY, 1);
    let replay = fault::check_determinism(&sample, |sim| replay_scenario(YOURS, sim, &REPLAY));
    assert_eq!(replay, Ok(sample.len()));
    let sample = reminder_schedules(YOURS, &REMINDERS_ALL, 1);
    let reminders =
        fault::check_determinism(&sample, |sim| reminder_scenario(YOURS, sim, &REMINDERS_ALL));
    assert_eq!(reminders, Ok(sample.len()));
}
