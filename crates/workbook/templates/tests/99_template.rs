//! Lab 99 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 99`.

use labkit::fault::{self, Token};
use template::scenarios::{Protocol, delivery_scenario, delivery_scope, explore_delivery};

/// Your `receive` (`src/receiver.rs`), as the scenarios take it.
const YOURS: Protocol = template::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_run_applies_every_message_once,
    every_message_takes_effect_once_when_responses_are_lost,
    every_schedule_replays_identically,
];

fn the_fault_free_run_applies_every_message_once() {
    explore_delivery(YOURS, 0).assert_ok();
}

fn every_message_takes_effect_once_when_responses_are_lost() {
    explore_delivery(YOURS, 2).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    // Every schedule with up to one fault, each replayed twice.
    let sample: Vec<Token> =
        fault::explore_all(delivery_scope(1), |sim| delivery_scenario(YOURS, sim))
            .runs
            .into_iter()
            .map(|run| run.token)
            .collect();
    let checked = fault::check_determinism(&sample, |sim| delivery_scenario(YOURS, sim));
    assert_eq!(checked, Ok(sample.len()));
}
