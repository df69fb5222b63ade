//! The figures of chapter 8, generated from this code by `cargo labs bless`.

use crate::scenarios::{Protocol, crash_matrix, explore, explore_fence};
use labkit::fault::Exploration;
use labkit::figure::Sequence;

/// The book's code column: 86 characters.
const COLUMNS: usize = 86;

/// A crash-point matrix as the chapter shows it.
pub fn matrix_text(yours: Protocol) -> String {
    crash_matrix(yours).render_width(COLUMNS)
}

/// The first failure `cargo labs check 08` reports: the first failing graded test's, in
/// the suite's order (generated, so the book cannot drift from what the check prints).
fn first_failure(yours: Protocol) -> String {
    let explorations: [fn(Protocol) -> Exploration; 5] = [
        |yours| explore(yours, "ledger", 0),
        |yours| explore(yours, "lost-response", 0),
        |yours| explore_fence(yours, "fence-record"),
        |yours| explore_fence(yours, "fence-checkpoint"),
        |yours| explore(yours, "drill", 0),
    ];
    for explore in explorations {
        if let Some(failure) = explore(yours).failure {
            return format!("{failure:COLUMNS$}\n");
        }
    }
    "the starter passes its first five graded tests\n".to_string()
}

fn protocol() -> Sequence {
    let first = Sequence::new(
        "Journal protocol: a lost response, a crash, a proven retry",
        &["source P7", "journal.db", "writer", "Storage Write API"],
    )
    .call(
        "writer",
        "journal.db",
        "lease: owner_epoch 1 → 2 (compare-and-swap)",
    )
    .call("writer", "Storage Write API", "CreateWriteStream COMMITTED")
    .reply("Storage Write API", "writer", "stream s1")
    .call("writer", "journal.db", "stream P7 → s1 (epoch 2)")
    .call("writer", "source P7", "read 1000–1002")
    .call(
        "writer",
        "journal.db",
        "A: s1@0, 3 rows, H(A), PREPARED (epoch 2)",
    )
    .call("writer", "journal.db", "A: PREPARED → SENT (epoch 2)")
    .call(
        "writer",
        "Storage Write API",
        "AppendRows s1 offset 0, rows of A",
    )
    .note("Storage Write API", "appends rows 0–2")
    .lost("Storage Write API", "writer", "OK offset 0")
    .crash("writer", "dies waiting: A is SENT, outcome unknown");
    recovery(first)
}

/// The second half of the protocol figure: a new process proves the retry.
fn recovery(figure: Sequence) -> Sequence {
    figure
        .divider("a new process: read durable state before any network state")
        .call("writer", "journal.db", "lease: owner_epoch 2 → 3")
        .reply("journal.db", "writer", "stream s1; A SENT at s1@0, H(A)")
        .call(
            "writer",
            "source P7",
            "re-read 1000–1002; fingerprint = H(A)?",
        )
        .call(
            "writer",
            "Storage Write API",
            "AppendRows s1 offset 0, the same rows",
        )
        .reply("Storage Write API", "writer", "ALREADY_EXISTS")
        .note(
            "writer",
            "journal proves: same stream, offset, H(A), was sent",
        )
        .call("writer", "journal.db", "A: SENT → CONFIRMED (epoch 3)")
        .call("writer", "journal.db", "checkpoint → 1003 (epoch 3)")
        .call(
            "writer",
            "journal.db",
            "B: s1@3, 2 rows, H(B), PREPARED → SENT",
        )
        .call(
            "writer",
            "Storage Write API",
            "AppendRows s1 offset 3, rows of B",
        )
        .reply("Storage Write API", "writer", "OK offset 3")
        .call(
            "writer",
            "journal.db",
            "B: CONFIRMED; checkpoint → 1005 (epoch 3)",
        )
}

fn stale_owner() -> Sequence {
    let (old, new) = ("writer-1 (epoch 1)", "writer-2 (epoch 2)");
    Sequence::new(
        "Owner fencing: a stale writer wakes up after a takeover",
        &[old, "journal.db", new],
    )
    .call(old, "journal.db", "A PREPARED (epoch 1)")
    .note(old, "pauses (GC, partition, VM freeze)")
    .call(new, "journal.db", "lease: epoch 1 → 2")
    .call(new, "journal.db", "recovers A, writes B, checkpoint 1005")
    .note(old, "wakes up with A in memory")
    .call(old, "journal.db", "A: PREPARED → SENT (epoch 1)?")
    .reply("journal.db", old, "refused: lease epoch is 2")
    .note(old, "stops: no append, no checkpoint")
}

/// The figures of chapter 8; `yours` is the code whose first failure it shows.
pub fn figures(yours: Protocol) -> Vec<(&'static str, String)> {
    vec![
        ("08-journal-protocol.svg", protocol().to_svg()),
        ("08-stale-owner.svg", stale_owner().to_svg()),
        ("08-first-failure.txt", first_failure(yours)),
    ]
}
