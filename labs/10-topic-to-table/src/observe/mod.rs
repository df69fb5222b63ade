//! The observe phase: the pipeline run three ways under the same seeded chaos, the
//! hot-row experiment, small experiments on one reader and one commit, and variations
//! the chapter does not walk through. Every verdict below is computed from those runs.

mod experiments;
mod page;
mod protocols;
mod variations;

pub use page::signals_page;
pub use protocols::ONE_TRANSACTION;

use crate::scenarios::{Config, Outcome, aborts_with_hot_keys, seeded_run};
use experiments::{reads_while_uncommitted, unavailable_commits_applied};
use labkit::{Observation, Report};
use protocols::{CONSUMER_OFFSET_AT_READ, PRODUCER_OUTSIDE};
use variations::*;

/// The seed every observe run uses.
pub const OBSERVE_SEED: u64 = 0xA8C2;

/// The three seeded runs of the observe phase, and the hot-row experiment.
struct Runs {
    outside: Outcome,
    offset_at_read: Outcome,
    one_tx: Outcome,
    aborts_one_row: u64,
    aborts_eight_rows: u64,
}

fn runs() -> Runs {
    let config = Config::CHAOS;
    Runs {
        outside: seeded_run(OBSERVE_SEED, config, PRODUCER_OUTSIDE),
        offset_at_read: seeded_run(OBSERVE_SEED, config, CONSUMER_OFFSET_AT_READ),
        one_tx: seeded_run(OBSERVE_SEED, config, ONE_TRANSACTION),
        aborts_one_row: aborts_with_hot_keys(1, ONE_TRANSACTION),
        aborts_eight_rows: aborts_with_hot_keys(8, ONE_TRANSACTION),
    }
}

/// The lines `cargo labs run` prints under "Measured".
fn table(r: &Runs) -> Vec<String> {
    let line = |name: &str, o: &Outcome| {
        let s = &o.signals;
        format!(
            "{name:<18} lost {:>2}  duplicates {:>3}  redelivered {:>3}  aborts {:>3}  \
             unknown {:>3}",
            s.lost,
            s.app_duplicates,
            s.redelivered,
            s.aborts,
            s.unavailable + s.undetermined
        )
    };
    vec![
        format!("seed {OBSERVE_SEED:#x}, 240 messages, 4 producers, 2 hot rows"),
        line("plain writer", &r.outside),
        line("offset at read", &r.offset_at_read),
        line("one tx at each end", &r.one_tx),
        format!(
            "no other faults, 8 producers: {} aborts over 1 hot row, {} over 8",
            r.aborts_one_row, r.aborts_eight_rows
        ),
    ]
}

fn summary(r: &Runs) -> serde_json::Value {
    let s = &r.one_tx.signals;
    serde_json::json!({
        "table": table(r),
        "seed": format!("{OBSERVE_SEED:#x}"),
        "lost": s.lost,
        "duplicates": s.app_duplicates,
        "redelivered": s.redelivered,
        "aborts_tli": s.aborts,
        "overloaded": s.overloaded,
        "unavailable": s.unavailable,
        "undetermined": s.undetermined,
        "delivered": s.delivered,
        "e2e_latency_p50_ticks": s.e2e_p50,
        "e2e_latency_p99_ticks": s.e2e_p99,
        "sink_rows_audited": r.one_tx.audit.rows,
        "producer_outside_tx_lost": r.outside.signals.lost,
        "offset_at_read_lost": r.offset_at_read.signals.lost,
        "aborts_1_hot_row": r.aborts_one_row,
        "aborts_8_hot_rows": r.aborts_eight_rows,
    })
}

/// The three pipelines under the same seed.
fn pipelines(obs: &mut Observation, r: &Runs) {
    obs.ask(
        "Under the seed, does the producer using the plain writer lose any message?",
        r.outside.signals.lost > 0 || !r.outside.audit.missing.is_empty(),
    );
    obs.ask(
        "With the offset committed at read, does the validator see all 240 messages?",
        r.offset_at_read.signals.lost == 0 && r.offset_at_read.audit.exactly_once(),
    );
    let one_tx = &r.one_tx;
    obs.ask(
        "With one transaction at each end, is any message lost?",
        one_tx.signals.lost > 0 || !one_tx.audit.missing.is_empty(),
    );
}

/// Rollbacks, redeliveries and the reader session.
fn redelivery(obs: &mut Observation, r: &Runs) {
    obs.ask(
        "In that run, is any message handed to the consumer twice?",
        r.one_tx.signals.redelivered > 0,
    );
    let (first_read, second_read) = reads_while_uncommitted();
    obs.ask("A transaction reads offsets 0-1 and stays open. Does the next read through the same session return 0-1 again?", second_read == first_read);
    obs.ask(
        "Is any message handed out again after a rollback committed to the sink twice?",
        r.one_tx.offsets_fed_twice > 0,
    );
}

/// Lock conflicts, the retry loop and unknown outcomes.
fn conflicts(obs: &mut Observation, r: &Runs) {
    let (one_tx, s) = (&r.one_tx, &r.one_tx.signals);
    obs.ask(
        "In the one-transaction run, is any commit ABORTED with locks invalidated?",
        s.aborts > 0,
    );
    obs.ask(
        "Does the audit find every committed message in the sink once?",
        s.aborts > 0 && s.lost == 0 && one_tx.audit.exactly_once() && one_tx.drained,
    );
    obs.ask(
        "Eight producers over eight hot rows instead of one: more aborts?",
        r.aborts_eight_rows > r.aborts_one_row,
    );
    obs.ask(
        "Does an aborted producer commit leave a gap in its seq_nos?",
        s.aborts > 0 && s.lost > 0,
    );
    let unavailable_applied = unavailable_commits_applied();
    obs.ask(
        "Was any consumer commit that answered UNAVAILABLE applied?",
        unavailable_applied.iter().any(|applied| *applied),
    );
}

/// The reader session and the consumer's commit, varied.
fn consumer_variations(obs: &mut Observation) {
    let (committed, next) = second_transaction_on_the_session();
    let letter = match (committed, next) {
        (false, _) => "b",
        (true, 0) => "c",
        (true, _) => "a",
    };
    let seen = format!("T2 committed: {committed}; the next read starts at offset {next}");
    obs.choose("T1 reads offsets 0-1; while it is open, T2 reads 2-3 through the same session. T1 rolls back, then T2 commits. What happens?", letter, seen);
    let fed = unknown_commit_taken_for_a_failure();
    let letter = match fed {
        0 => "b",
        1 => "a",
        _ => "c",
    };
    let seen = format!("the validator was fed 0#1 {fed} time(s)");
    obs.choose("A consumer commit of 0#1 and 0#2 is applied but answers UNAVAILABLE; the application takes it for a failure and retries. How often does the validator see 0#1?", letter, seen);
    let rows = two_consumer_groups();
    let letter = match rows {
        6 => "a",
        12 => "b",
        _ => "c",
    };
    obs.choose("Two consumer groups, each with its own offsets, drain the same six messages into one sink keyed by (writer_id, seq_no). How many rows?",
        letter,
        format!("{rows} rows in the sink"),
    );
}

/// The producer's retries, varied.
fn producer_variations(obs: &mut Observation) {
    let (copies, rows) = retried_producer_copies();
    let letter = match (copies, rows) {
        (1, _) => "a",
        (_, 1) => "c",
        _ => "b",
    };
    let seen = format!("{copies} copies in the topic, {rows} row(s) in the sink");
    obs.choose("A producer commit is applied but answers UNAVAILABLE; the retry is ABORTED; the next retry commits (automatic seq_no). Copies in the topic, rows in the sink?", letter, seen);
    let held = seq_no_moved_in_the_body();
    let letter = match held.as_slice() {
        [2, 3] => "a",
        [1, 2] => "b",
        _ => "c",
    };
    obs.choose("A producer moves next_seq_no inside the body. Its first commit is ABORTED, the retry commits, then a second message commits. Which seq_nos are in the topic?",
        letter,
        format!("the topic holds {held:?}"),
    );
    let copies = explicit_seq_no_copies();
    let letter = match copies {
        2 => "a",
        0 => "b",
        _ => "c",
    };
    let seen = format!("{copies} copies in the topic");
    obs.choose("With an explicit seq_no (auto_seqno off), a commit is applied but answers UNDETERMINED; the retry commits the same seq_no. Copies in the topic?", letter, seen);
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("topic-to-table");
    let r = runs();
    pipelines(&mut obs, &r);
    redelivery(&mut obs, &r);
    conflicts(&mut obs, &r);
    consumer_variations(&mut obs);
    producer_variations(&mut obs);
    obs.finish(Some(sim_topic::sqlite_version()), summary(&r))
}
