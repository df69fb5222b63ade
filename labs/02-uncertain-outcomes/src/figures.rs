//! The figures of chapter 2, drawn as sequence diagrams.

use labkit::figure::Sequence;

/// The settlement case: the runner calls the callback again after ABORTED.
fn retried_callback() -> Sequence {
    Sequence::new(
        "The settlement case: a retried callback charges twice, one row remains",
        &["application", "runner", "processor", "Spanner"],
    )
    .call("application", "runner", "run_transaction(callback)")
    .divider("attempt 1")
    .call("runner", "Spanner", "read settlements/S7: no row")
    .call("runner", "processor", "charge S7 120 (no key)")
    .reply("processor", "runner", "receipt ch_1")
    .call("runner", "Spanner", "commit: insert S7 (receipt ch_1)")
    .reply("Spanner", "runner", "ABORTED (nothing applied)")
    .divider("attempt 2: the runner calls the callback again")
    .call("runner", "Spanner", "read settlements/S7: no row")
    .call("runner", "processor", "charge S7 120 (no key)")
    .reply("processor", "runner", "receipt ch_2")
    .call("runner", "Spanner", "commit: insert S7 (receipt ch_2)")
    .reply("Spanner", "runner", "ok, commit timestamp 1")
    .reply("runner", "application", "committed")
    .note("processor", "two receipts: ch_1, ch_2")
    .note("Spanner", "one row: S7 -> ch_2")
}

/// One shape that passes: intent first, one key, look before resending.
fn recovery() -> Sequence {
    Sequence::new(
        "Recovery by the original identity: intent first, one key, look before resending",
        &["application", "Spanner", "processor"],
    )
    .call(
        "application",
        "Spanner",
        "commit: insert S1 pending, key settle-S1",
    )
    .reply("Spanner", "application", "ok")
    .call("application", "processor", "charge S1 120, key settle-S1")
    .note("processor", "charges: receipt ch_1")
    .lost("processor", "application", "receipt ch_1")
    .crash("application", "timeout, then the process crashes")
    .divider("next process: locate the original identity")
    .call("application", "Spanner", "read settlements/S1")
    .reply("Spanner", "application", "pending, key settle-S1")
    .call("application", "processor", "search receipts for S1")
    .reply("processor", "application", "[ch_1, key settle-S1]")
    .call("application", "Spanner", "commit: S1 settled, receipt ch_1")
    .lost("Spanner", "application", "DEADLINE_EXCEEDED")
    .call("application", "Spanner", "read settlements/S1")
    .reply("Spanner", "application", "settled, receipt ch_1: done")
}

/// The figures of chapter 2.
pub fn figures() -> Vec<(&'static str, String)> {
    vec![
        (
            "02-uncertain-outcomes-retried-callback.svg",
            retried_callback().to_svg(),
        ),
        ("02-uncertain-outcomes-recovery.svg", recovery().to_svg()),
    ]
}
