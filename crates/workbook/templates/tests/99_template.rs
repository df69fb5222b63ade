//! Lab 99 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 99`.

use labkit::fault::{self, Token};
use template::scenarios::{delivery_scenario, delivery_scope, explore_delivery};

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_run_applies_every_message_once,
    every_message_takes_effect_once_when_responses_are_lost,
    every_schedule_replays_identically,
];

fn the_fault_free_run_applies_every_message_once() {
    explore_delivery(0).assert_ok();
}

fn every_message_takes_effect_once_when_responses_are_lost() {
    explore_delivery(2).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    // Every schedule with up to one fault, each replayed twice.
    let sample: Vec<Token> = fault::explore_all(delivery_scope(1), delivery_scenario)
        .runs
        .into_iter()
        .map(|run| run.token)
        .collect();
    let checked = fault::check_determinism(&sample, delivery_scenario);
    assert_eq!(checked, Ok(sample.len()));
}
