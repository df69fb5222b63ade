//! The figures of chapter 9, generated from this code by `cargo labs bless`.

use crate::scenarios::{Protocol, crash_matrix, explore_batch, explore_case};
use labkit::fault::Exploration;
use labkit::figure::Sequence;

/// The book's code column: 86 characters.
const COLUMNS: usize = 86;

/// A crash-point matrix as the chapter shows it.
pub fn matrix_text(yours: Protocol) -> String {
    crash_matrix(yours).render_width(COLUMNS)
}

/// The first failure `cargo labs check 09` reports: the first failing graded test's, in
/// the suite's order (generated, so the book cannot drift from what the check prints).
fn first_failure(yours: Protocol) -> String {
    let explorations: [fn(Protocol) -> Exploration; 6] = [
        |yours| explore_batch(yours, 0),
        |yours| explore_case(yours, "lost-commit"),
        |yours| explore_case(yours, "lost-request"),
        |yours| explore_case(yours, "lost-append"),
        |yours| explore_batch(yours, 1),
        |yours| explore_batch(yours, 2),
    ];
    for explore in explorations {
        if let Some(failure) = explore(yours).failure {
            return format!("{failure:COLUMNS$}\n");
        }
    }
    "every schedule of the batch scenario passes\n".to_string()
}

fn protocol() -> Sequence {
    Sequence::new(
        "Pending streams: one atomic commit, a lost response, recovery by inspection",
        &[
            "coordinator.db",
            "coordinator",
            "Storage Write API",
            "table daily",
        ],
    )
    .call(
        "coordinator",
        "Storage Write API",
        "CreateWriteStream PENDING ×2",
    )
    .call(
        "coordinator",
        "coordinator.db",
        "W1 → s1, W2 → s2 (before any append)",
    )
    .call("coordinator", "Storage Write API", "AppendRows s1@0, s2@0")
    .note("table daily", "nothing visible")
    .call(
        "coordinator",
        "Storage Write API",
        "FinalizeWriteStream s1, s2",
    )
    .call(
        "coordinator",
        "coordinator.db",
        "W1, W2 FINALIZED (row counts)",
    )
    .note("table daily", "still nothing visible")
    .call("coordinator", "coordinator.db", "D1 COMMITTING")
    .call(
        "coordinator",
        "Storage Write API",
        "BatchCommitWriteStreams [s1, s2]",
    )
    .note("Storage Write API", "commits both atomically")
    .reply(
        "Storage Write API",
        "table daily",
        "5 rows visible at commit_time t",
    )
    .lost("Storage Write API", "coordinator", "commit_time t")
    .crash("coordinator", "dies: D1 is COMMITTING")
    .divider("a new process inspects; it does not replay")
    .call("coordinator", "Storage Write API", "GetWriteStream s1, s2")
    .reply("Storage Write API", "coordinator", "commit_time t (both)")
    .call("coordinator", "coordinator.db", "D1 COMMITTED at t")
}

/// The figures of chapter 9; `yours` is the code whose first failure it shows.
pub fn figures(yours: Protocol) -> Vec<(&'static str, String)> {
    vec![
        ("09-pending-commit.svg", protocol().to_svg()),
        ("09-first-failure.txt", first_failure(yours)),
    ]
}
