//! The figures of chapter 2: two sequence diagrams, and the crash-point matrices the
//! observe phase computes.

use crate::observe::{NAIVE, Variant, explore_naive};
use labkit::figure::Sequence;

/// The settlement case: the runner calls the callback again after ABORTED.
fn retried_callback() -> Sequence {
    Sequence::new(
        "The settlement case: a retried callback charges twice, one row remains",
        &["application", "runner", "processor", "Spanner"],
    )
    .call("application", "runner", "run_transaction(callback)")
    .divider("attempt 1")
    .call("runner", "Spanner", "read settlements/S1: no row")
    .call("runner", "processor", "charge S1 120 (no key)")
    .reply("processor", "runner", "receipt ch_1")
    .call("runner", "Spanner", "commit: insert S1 (receipt ch_1)")
    .reply("Spanner", "runner", "ABORTED (nothing applied)")
    .divider("attempt 2: the runner calls the callback again")
    .call("runner", "Spanner", "read settlements/S1: no row")
    .call("runner", "processor", "charge S1 120 (no key)")
    .reply("processor", "runner", "receipt ch_2")
    .call("runner", "Spanner", "commit: insert S1 (receipt ch_2)")
    .reply("Spanner", "runner", "ok")
    .reply("runner", "application", "committed")
    .note("processor", "two receipts: ch_1, ch_2")
    .note("Spanner", "one row: S1 -> ch_2")
}

/// A key is remembered for a day: the resend of the next day's process is a new charge.
fn key_pruned() -> Sequence {
    Sequence::new(
        "A key is kept for a day: the next day's resend is a new charge",
        &["process 1", "process 2", "processor", "Spanner"],
    )
    .call("process 1", "processor", "charge S1 120, key settle-S1")
    .note("processor", "charged: receipt ch_1")
    .reply("processor", "process 1", "ch_1 (response lost)")
    .call("process 1", "Spanner", "commit: insert S1 (ch_1)")
    .reply("Spanner", "process 1", "DEADLINE_EXCEEDED (not applied)")
    .divider("a day later")
    .call("process 2", "Spanner", "read settlements/S1: no row")
    .call("process 2", "processor", "charge S1 120, key settle-S1")
    .note("processor", "key pruned: charged, receipt ch_2")
    .reply("processor", "process 2", "receipt ch_2")
    .call("process 2", "Spanner", "commit: insert S1 (ch_2)")
    .reply("Spanner", "process 2", "ok")
}

/// The crash-point matrix of one naive variant, under a title.
fn matrix(title: &str, variant: Variant) -> String {
    let explored = explore_naive(variant, 1);
    format!("{title}\n\n{}", explored.matrix.render())
}

/// The figures of chapter 2.
pub fn figures() -> Vec<(&'static str, String)> {
    let keyed_next_day = Variant {
        key: Some("settle-S1"),
        next_process_a_day_later: true,
    };
    vec![
        (
            "02-uncertain-outcomes-retried-callback.svg",
            retried_callback().to_svg(),
        ),
        (
            "02-uncertain-outcomes-key-pruned.svg",
            key_pruned().to_svg(),
        ),
        (
            "02-crash-matrix.txt",
            matrix("The naive settlement, every single fault:", NAIVE),
        ),
        (
            "02-crash-matrix-keyed-next-day.txt",
            matrix(
                "The same code charging under settle-S1, each new process a day later:",
                keyed_next_day,
            ),
        ),
    ]
}
