//! Lab 08 reference solution: the learner's crate with `ledger.rs` solved. The observe
//! phase and the harness are the lab's own files, compiled here unchanged.

#[path = "../../../labs/08-append-streams/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/08-append-streams/src/invariants/mod.rs"]
pub mod invariants;
pub mod ledger;
#[path = "../../../labs/08-append-streams/src/observe/mod.rs"]
pub mod observe;
#[path = "../../../labs/08-append-streams/src/scenarios/mod.rs"]
pub mod scenarios;
#[path = "../../../labs/08-append-streams/src/world/mod.rs"]
pub mod world;

/// The chapter shows the reference solution's crash-point matrix from a file, so that the
/// book cannot drift from what the solution does. The lab's own `figures()` links the
/// starter, so this test keeps the solution's matrix current instead:
/// `BLESS=1 cargo test -p solution08-append-streams` rewrites it.
#[cfg(test)]
mod book {
    const MATRIX: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../book/src/figures/08-solution-crash-matrix.txt"
    );

    #[test]
    fn the_chapter_shows_the_solutions_current_crash_matrix() {
        let matrix = crate::figures::matrix_text();
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(MATRIX, &matrix).expect("write the matrix");
        }
        let shown = std::fs::read_to_string(MATRIX).unwrap_or_default();
        assert!(
            shown == matrix,
            "{MATRIX} is out of date: run `BLESS=1 cargo test -p solution08-append-streams`\n{matrix}"
        );
    }

    /// Chapter 8 states how many schedules the reference solution explores.
    #[test]
    fn the_chapter_states_the_current_schedule_counts() {
        use crate::scenarios::explore;
        let counts = [
            explore("ledger", 2).schedules,
            explore("stale-owner", 2).schedules,
            explore("schema", 2).schedules,
            explore("changed-source", 1).schedules,
        ];
        assert_eq!(
            counts,
            [237, 505, 391, 18],
            "update the counts in book/src/08-append-streams.md"
        );
    }
}
