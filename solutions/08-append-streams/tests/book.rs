//! What chapter 8 shows of the reference solution, kept true. The chapter shows the
//! solution's crash-point matrix from a file, so that the book cannot drift from what the
//! solution does; the lab's own `figures()` runs the starter, so this test keeps the
//! solution's matrix current instead: `BLESS=1 cargo test -p solution08-append-streams
//! --test book` (or `cargo labs bless`) rewrites it.

#[path = "../src/ledger.rs"]
mod ledger;

use append_streams::scenarios::{Protocol, explore};

/// The reference solution's functions.
const SOLUTION: Protocol = append_streams::learner!();

const MATRIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../book/src/figures/08-solution-crash-matrix.txt"
);

#[test]
fn the_chapter_shows_the_solutions_current_crash_matrix() {
    let matrix = append_streams::figures::matrix_text(SOLUTION);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(MATRIX, &matrix).expect("write the matrix");
    }
    let shown = std::fs::read_to_string(MATRIX).unwrap_or_default();
    assert!(
        shown == matrix,
        "{MATRIX} is out of date: run `cargo labs bless 08`\n{matrix}"
    );
}

/// Chapter 8 states how many schedules the reference solution explores.
#[test]
fn the_chapter_states_the_current_schedule_counts() {
    let counts = [
        explore(SOLUTION, "ledger", 2).schedules,
        explore(SOLUTION, "stale-owner", 2).schedules,
        explore(SOLUTION, "schema", 2).schedules,
        explore(SOLUTION, "changed-source", 1).schedules,
    ];
    assert_eq!(
        counts,
        [237, 505, 391, 18],
        "update the counts in book/src/08-append-streams.md"
    );
}
