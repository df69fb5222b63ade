//! Lab 07 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 07`.

use file_sets::scenarios::{Scenario, explore_scenario, run_scenario};
use labkit::fault::{self, Token};
use pretty_assertions::assert_eq;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_fault_free_publication_is_accepted_and_reported,
    no_consumer_reports_from_an_incomplete_or_mixed_set,
    a_crashed_publication_can_be_abandoned_without_a_dangling_manifest,
    only_the_publisher_identity_changes_the_manifest,
    every_schedule_replays_identically,
];

/// The exploration bound of every graded scenario: two faults (a switch to the other
/// actor, a crash of the publisher, or both).
const FAULTS: usize = 2;

fn the_fault_free_publication_is_accepted_and_reported() {
    explore_scenario(Scenario::Publish, 0).assert_ok();
    explore_scenario(Scenario::Consume, 0).assert_ok();
}

fn no_consumer_reports_from_an_incomplete_or_mixed_set() {
    for scenario in [Scenario::Publish, Scenario::Consume] {
        let exploration = explore_scenario(scenario, FAULTS);
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
    explore_scenario(Scenario::Abandon, FAULTS).assert_ok();
}

fn only_the_publisher_identity_changes_the_manifest() {
    explore_scenario(Scenario::Analyst, FAULTS).assert_ok();
}

fn every_schedule_replays_identically() {
    // A token names the choices of one scenario, so each has its own sample.
    let samples = [
        (
            Scenario::Publish,
            [
                "v2:",
                "v2:1@d02c6",
                "v2:0.0.1@0e21c",
                "v2:0.1.0.1@266e2",
                "v2:0.0.0.0.1.1@0d1e3",
            ],
        ),
        (
            Scenario::Consume,
            [
                "v2:",
                "v2:1@c0e1e",
                "v2:0.0.1@9fa8f",
                "v2:0.1.0.1@73422",
                "v2:0.1.1@31bd4",
            ],
        ),
        (
            Scenario::Abandon,
            [
                "v2:",
                "v2:1@d4458",
                "v2:0.0.1@840d2",
                "v2:0.1.0.1@bfb34",
                "v2:0.0.1.1@6593f",
            ],
        ),
        (
            Scenario::Analyst,
            [
                "v2:",
                "v2:1@ecff8",
                "v2:0.0.1@2f7c3",
                "v2:0.1.0.1@266e2",
                "v2:0.0.0.0.1.1@41d04",
            ],
        ),
    ];
    assert_eq!(samples.map(|(scenario, _)| scenario), Scenario::ALL);
    for (scenario, sample) in samples {
        let sample = Token::parse_all(&sample);
        let checked = fault::check_determinism(&sample, |sim| run_scenario(sim, scenario));
        assert_eq!(checked, Ok(sample.len()), "scenario {}", scenario.name());
    }
}
