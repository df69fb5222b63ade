//! Lab 06 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 06`.

use dead_letters::invariants::{ALL_REPLAY_INVARIANTS, ReplayInvariant};
use dead_letters::scenarios::{
    explore_reminders, explore_replay, reminder_scenario, replay_scenario,
};
use labkit::fault::{self, Token};
use pretty_assertions::assert_eq;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_fault_free_replay_recovers_the_missing_work_once,
    the_replay_applies_every_effect_exactly_once_under_one_fault,
    the_replay_tells_recovery_from_duplication_under_one_fault,
    the_replay_records_its_run_and_completes_only_when_done,
    the_replay_holds_every_invariant_under_two_faults,
    the_fault_free_run_sends_five_reminders,
    exactly_five_reminders_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn the_fault_free_replay_recovers_the_missing_work_once() {
    explore_replay(0, &ALL_REPLAY_INVARIANTS).assert_ok();
}

fn the_replay_applies_every_effect_exactly_once_under_one_fault() {
    explore_replay(1, &[ReplayInvariant::EveryEffectOnce]).assert_ok();
}

fn the_replay_tells_recovery_from_duplication_under_one_fault() {
    explore_replay(1, &[ReplayInvariant::RecoveryToldFromDuplication]).assert_ok();
}

fn the_replay_records_its_run_and_completes_only_when_done() {
    explore_replay(1, &[ReplayInvariant::CompletionCriteria]).assert_ok();
}

fn the_replay_holds_every_invariant_under_two_faults() {
    explore_replay(2, &ALL_REPLAY_INVARIANTS).assert_ok_reaching(2);
}

fn the_fault_free_run_sends_five_reminders() {
    explore_reminders(0).assert_ok();
}

fn exactly_five_reminders_under_every_schedule_with_two_faults() {
    explore_reminders(2).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:1@f977d",
        "v2:0.1@b8133",
        "v2:0.0.1.0.1@3b556",
        "v2:0.0.0.0.0.1@2b9e8",
    ]);
    let replay =
        fault::check_determinism(&sample, |sim| replay_scenario(sim, &ALL_REPLAY_INVARIANTS));
    assert_eq!(replay, Ok(sample.len()));
    let sample = Token::parse_all(&[
        "v2:",
        "v2:1@6d857",
        "v2:0.1@ad4ec",
        "v2:0.0.1.0.1@cec56",
        "v2:0.0.0.0.0.1@c7a71",
    ]);
    let reminders = fault::check_determinism(&sample, reminder_scenario);
    assert_eq!(reminders, Ok(sample.len()));
}
