//! Lab 07 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 07`.

use file_sets::scenarios::{Protocol, Scenario, explore_scenario, run_scenario};
use labkit::fault::{self, Token};
use pretty_assertions::assert_eq;

/// Your bindings and functions (`src/publication.rs`), as the scenarios take them.
const YOURS: Protocol = file_sets::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    the_fault_free_publication_is_accepted_and_reported,
    no_consumer_reports_from_an_incomplete_or_mixed_set,
    a_crashed_publication_can_be_abandoned_without_a_dangling_manifest,
    only_the_publisher_identity_changes_the_manifest,
    a_second_publisher_never_rolls_the_manifest_back,
    every_schedule_replays_identically,
];

/// The exploration bound of every graded scenario: two faults (a switch to another
/// actor, a crash of the publisher, or both).
const FAULTS: usize = 2;

fn the_fault_free_publication_is_accepted_and_reported() {
    explore_scenario(YOURS, Scenario::Publish, 0).assert_ok();
    explore_scenario(YOURS, Scenario::Consume, 0).assert_ok();
}

fn no_consumer_reports_from_an_incomplete_or_mixed_set() {
    for scenario in [Scenario::Publish, Scenario::Consume] {
        let exploration = explore_scenario(YOURS, scenario, FAULTS);
        // The bound is real: two-fault schedules ran, and the scope stays small.
        exploration.assert_ok_reaching(2);
        assert!(
            exploration.schedules < 50_000,
            "{} schedules",
            exploration.schedules
        );
    }
}

fn a_crashed_publication_can_be_abandoned_without_a_dangling_manifest() {
    explore_scenario(YOURS, Scenario::Abandon, FAULTS).assert_ok();
}

fn only_the_publisher_identity_changes_the_manifest() {
    explore_scenario(YOURS, Scenario::Analyst, FAULTS).assert_ok();
}

fn a_second_publisher_never_rolls_the_manifest_back() {
    explore_scenario(YOURS, Scenario::Race, FAULTS).assert_ok_reaching(2);
}

/// Sample tokens of every scenario (a token names the choices of one scenario, so each
/// has its own): the fault-free run, single faults, two faults.
const SAMPLES: [(Scenario, [&str; 5]); 5] = [
    (
        Scenario::Publish,
        [
            "v2:",
            "v2:0.0.0.0.0.0.0.1@ef174",
            "v2:0.0.0.0.0.0.0.0.1.0.0.0.0.0.1@582d0",
            "v2:0.0.0.1.1@ac99d",
            "v2:1.1@4461e",
        ],
    ),
    (
        Scenario::Consume,
        [
            "v2:",
            "v2:0.0.2@c6a25",
            "v2:0.0.1@9fa8f",
            "v2:0.1.0.1@73422",
            "v2:1.1@83b63",
        ],
    ),
    (
        Scenario::Abandon,
        [
            "v2:",
            "v2:0.0.1@840d2",
            "v2:0.1.0.0.1@fb269",
            "v2:0.1.1@d0f69",
            "v2:1.1@34a02",
        ],
    ),
    (
        Scenario::Analyst,
        [
            "v2:",
            "v2:0.0.0.0.0.0.0.1@10cae",
            "v2:0.0.0.0.0.0.0.0.1.0.0.0.0.0.1@a2706",
            "v2:0.0.0.1.1@add72",
            "v2:1.1@529f4",
        ],
    ),
    (
        Scenario::Race,
        [
            "v2:",
            "v2:0.0.0.0.0.0.0.1@07599",
            "v2:0.0.0.0.0.0.0.0.1.0.0.0.0.0.1@6636f",
            "v2:0.0.0.1.0.0.0.0.0.0.0.0.1@16e16",
            "v2:1.1@385e1",
        ],
    ),
];

fn every_schedule_replays_identically() {
    assert_eq!(SAMPLES.map(|(scenario, _)| scenario), Scenario::ALL);
    for (scenario, sample) in SAMPLES {
        let sample = Token::parse_all(&sample);
        let checked = fault::check_determinism(&sample, |sim| run_scenario(YOURS, sim, scenario));
        assert_eq!(checked, Ok(sample.len()), "scenario {}", scenario.name());
    }
}
