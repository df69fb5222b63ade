//! Lab 09 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 09`.

use labkit::fault::{self, Sim, Token};
use pending_streams::harness::{
    Ending, batch_scenario, crash_matrix, explore_batch, run_batch, run_batch_with,
};
use pretty_assertions::assert_eq;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_fault_free_batch_commits_once_and_records_the_commit_time,
    a_lost_commit_response_is_settled_by_inspection_not_by_replay,
    no_row_is_lost_or_doubled_when_one_fault_strikes,
    exactly_once_under_every_schedule_with_two_faults,
    the_crash_matrix_has_no_failing_cell,
    every_schedule_replays_identically,
];

fn the_fault_free_batch_commits_once_and_records_the_commit_time() {
    let outcome = run_batch(&mut Sim::fault_free());
    assert_eq!(outcome.violations, vec![]);
    assert_eq!(outcome.ending, Ending::Done);
    assert_eq!(outcome.visible, vec![0, 1, 2, 3, 4]);
    let time = outcome.service_commit_times[0].map(|t| t as i64);
    assert_eq!(outcome.commit_record, Some(("COMMITTED".to_string(), time)));
}

/// The chapter's headline: the group is committed, the response is lost. The coordinator
/// settles it by inspecting the streams (GetWriteStream's commit_time), keeps that commit
/// time, and creates no replacement stream.
fn a_lost_commit_response_is_settled_by_inspection_not_by_replay() {
    let outcome = run_batch_with(&mut Sim::fault_free(), true);
    assert_eq!(outcome.violations, vec![]);
    assert_eq!(
        outcome.streams_per_range,
        vec![("W1".to_string(), 1), ("W2".to_string(), 1)]
    );
    assert_eq!(outcome.visible, vec![0, 1, 2, 3, 4]);
    let time = outcome.service_commit_times[0].map(|t| t as i64);
    assert_eq!(outcome.commit_record, Some(("COMMITTED".to_string(), time)));
}

fn no_row_is_lost_or_doubled_when_one_fault_strikes() {
    let exploration = explore_batch(1);
    println!(
        "{} schedules {:?}",
        exploration.schedules, exploration.per_level
    );
    exploration.assert_ok();
}

fn exactly_once_under_every_schedule_with_two_faults() {
    let exploration = explore_batch(2);
    println!(
        "{} schedules {:?}",
        exploration.schedules, exploration.per_level
    );
    exploration.assert_ok_reaching(2);
}

fn the_crash_matrix_has_no_failing_cell() {
    let matrix = crash_matrix();
    let failing: Vec<String> = matrix
        .rows
        .iter()
        .filter_map(|r| {
            r.broken
                .as_ref()
                .map(|broken| format!("{}: {broken}", r.fault))
        })
        .collect();
    assert_eq!(failing, Vec::<String>::new(), "\n{}", matrix.render());
    assert!(
        matrix
            .rows
            .iter()
            .any(|r| r.fault.contains("BatchCommitWriteStreams")),
        "the lost commit response is in the matrix: {}",
        matrix.render()
    );
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.1@96aff",
        "v2:0.0.0.1@cf404",
        "v2:0.0.0.0.0.0.0.0.0.0.1@31fc0",
        "v2:0.0.0.0.0.0.0.0.0.0.0.0.1@02588",
    ]);
    let checked = fault::check_determinism(&sample, batch_scenario);
    assert_eq!(checked, Ok(sample.len()));
}
