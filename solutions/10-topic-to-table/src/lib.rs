//! Lab 10 reference solution: the learner's crate with `pipeline.rs` solved. The observe
//! phase and the harness are the lab's own files, compiled here unchanged.

#[path = "../../../labs/10-topic-to-table/src/harness.rs"]
pub mod harness;
#[path = "../../../labs/10-topic-to-table/src/observe.rs"]
pub mod observe;
pub mod pipeline;

/// Chapter 10 states how many schedules the graded small scope explores with the reference
/// solution; this keeps the number true.
#[cfg(test)]
mod book {
    #[test]
    fn the_chapter_states_the_current_schedule_count() {
        assert_eq!(
            crate::harness::explore_small(2).schedules,
            668,
            "update the count in book/src/10-topic-to-table.md"
        );
    }
}
