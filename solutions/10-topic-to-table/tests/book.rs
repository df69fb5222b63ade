//! What chapter 10 states of the reference solution, kept true: how many schedules the
//! graded small scope explores with it.

#[path = "../src/pipeline.rs"]
mod pipeline;

use topic_to_table::scenarios::{Protocol, explore_small};

/// The reference solution's transaction bodies.
const SOLUTION: Protocol = topic_to_table::learner!();

#[test]
fn the_chapter_states_the_current_schedule_count() {
    assert_eq!(
        explore_small(SOLUTION, 2).schedules,
        680,
        "update the count in book/src/10-topic-to-table.md"
    );
}
