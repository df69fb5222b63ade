//! What chapter 9 shows of the reference solution, kept true. The chapter shows the
//! solution's crash-point matrix from a file, so that the book cannot drift from what the
//! solution does; the lab's own `figures()` runs the starter, so this test keeps the
//! solution's matrix current instead: `BLESS=1 cargo test -p solution09-pending-streams
//! --test book` (or `cargo labs bless`) rewrites it.

#[path = "../src/coordinator.rs"]
mod coordinator;

use pending_streams::scenarios::{Protocol, explore_batch};

/// The reference solution's `run_coordinator`.
const SOLUTION: Protocol = pending_streams::learner!();

const MATRIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../book/src/figures/09-solution-crash-matrix.txt"
);

#[test]
fn the_chapter_shows_the_solutions_current_crash_matrix() {
    let matrix = pending_streams::figures::matrix_text(SOLUTION);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(MATRIX, &matrix).expect("write the matrix");
    }
    let shown = std::fs::read_to_string(MATRIX).unwrap_or_default();
    assert!(
        shown == matrix,
        "{MATRIX} is out of date: run `cargo labs bless 09`\n{matrix}"
    );
}

/// Chapter 9 states how many schedules the reference solution explores.
#[test]
fn the_chapter_states_the_current_schedule_counts() {
    let counts = [
        explore_batch(SOLUTION, 1).schedules,
        explore_batch(SOLUTION, 2).schedules,
    ];
    assert_eq!(
        counts,
        [22, 252],
        "update the counts in book/src/09-pending-streams.md"
    );
}
