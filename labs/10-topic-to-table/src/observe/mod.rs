//! The observe phase: the pipeline run three ways under the same seeded chaos and again
//! without injected faults, the hot-row experiment, small experiments on one reader and
//! one commit, and variations the chapter does not walk through. Every verdict below is
//! computed from those runs.

mod contention;
mod experiments;
mod listings;
mod page;
mod protocols;
mod variations;

pub use page::signals_page;
pub use protocols::ONE_TRANSACTION;

use crate::scenarios::{Config, Outcome, aborts_with_hot_keys, seeded_run};
use contention::{Calm, calm_runs};
use experiments::{reads_while_uncommitted, unavailable_commits_applied};
use labkit::{Observation, Report};
use listings::{offset_commit_lost_before_it_applied, plain_write_lost_then_aborted};
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

fn summary(r: &Runs, calm: &Calm) -> serde_json::Value {
    let s = &r.one_tx.signals;
    let c = |o: &Outcome| {
        let s = &o.signals;
        format!(
            "lost {}, duplicates {}, redelivered {}, aborts {}",
            s.lost, s.app_duplicates, s.redelivered, s.aborts
        )
    };
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
        "without_faults_plain_writer": c(&calm.outside),
        "without_faults_offset_at_read": c(&calm.offset_at_read),
        "without_faults_one_tx": c(&calm.one_tx),
    })
}

/// The three pipelines under the same seed, and without injected faults.
fn pipelines(obs: &mut Observation, r: &Runs, calm: &Calm) {
    let outside = &r.outside.signals;
    obs.ask(
        "Under the seed, does the plain-writer run's validator count more duplicates than lost messages?",
        outside.app_duplicates > outside.lost,
    );
    let offset_at_read = &calm.offset_at_read;
    obs.ask(
        "Without injected faults (no killed connection, no commit fault, no lock break) and otherwise as under the seed, does the offset-at-read consumer lose any message?",
        offset_at_read.signals.lost > 0 || !offset_at_read.audit.missing.is_empty(),
    );
    let one_tx = &r.one_tx;
    obs.ask(
        "With one transaction at each end, under the seed, is any message lost?",
        one_tx.signals.lost > 0 || !one_tx.audit.missing.is_empty(),
    );
}

/// The reader session: an open transaction, and two transactions on one session.
fn sessions(obs: &mut Observation) {
    let (first_read, second_read) = reads_while_uncommitted();
    obs.ask("A transaction reads offsets 0-1 and stays open. Does the next read through the same session return 0-1 again?", second_read == first_read);
    let (committed, _next) = second_transaction_on_the_session();
    obs.ask("T1 reads offsets 0-1; while it is open, T2 reads 2-3 through the same session. T1 rolls back, then T2 commits. Are offsets 2-3 committed?", committed);
}

/// Contention alone, and the two printed listings under two faults each.
fn listings(obs: &mut Observation, calm: &Calm) {
    obs.ask(
        "Without injected faults, does the one-transaction run hand any message to the consumer twice?",
        calm.one_tx.signals.redelivered > 0,
    );
    let held = plain_write_lost_then_aborted();
    obs.ask("The plain-writer producer as listed: its write's connection is killed before the message is stored, then its hot-row commit is ABORTED, and the retry commits. Is the message missing from the topic?", !held.contains(&1));
    let sink = offset_commit_lost_before_it_applied();
    obs.ask("The offset-at-read consumer as listed reads 0#1 and 0#2; the connection of its commit_with_ack is killed before the commit is applied (UNAVAILABLE), and the retry loop runs it again. Do both messages reach the sink?", sink == [(0, 1), (0, 2)]);
}

/// Unknown outcomes and sequence numbers.
fn unknowns(obs: &mut Observation, r: &Runs) {
    let unavailable_applied = unavailable_commits_applied();
    obs.ask(
        "Was any consumer commit that answered UNAVAILABLE applied?",
        unavailable_applied.iter().any(|applied| *applied),
    );
    obs.ask(
        "Is any message handed out again after a rollback committed to the sink twice?",
        r.one_tx.offsets_fed_twice > 0,
    );
    let copies = explicit_seq_no_copies();
    obs.ask("With an explicit seq_no (auto_seqno off), a commit is applied but answers UNDETERMINED; the retry commits the same seq_no. Does the topic hold two copies?", copies == 2);
}

/// What the validator counts without faults and under the seed; the hot rows.
fn counts(obs: &mut Observation, r: &Runs, calm: &Calm) {
    let s = &calm.outside.signals;
    let letter = match (s.lost > 0, s.app_duplicates > 0) {
        (true, false) => "a",
        (false, false) => "b",
        (false, true) => "c",
        (true, true) => "d",
    };
    let seen = format!("lost {}, duplicates {}", s.lost, s.app_duplicates);
    obs.choose(
        "Without injected faults, what does the plain-writer run's validator report?",
        letter,
        seen,
    );
    let s = &r.one_tx.signals;
    let letter = match (s.redelivered > 0, s.app_duplicates > 0, s.lost > 0) {
        (true, false, false) => "a",
        (true, true, false) => "b",
        (false, true, false) => "c",
        (true, true, true) => "d",
        _ => "none of these",
    };
    let seen = format!(
        "redelivered {}, duplicates {}, lost {}",
        s.redelivered, s.app_duplicates, s.lost
    );
    obs.choose(
        "Under the seed, which of these counts does the one-transaction run report above zero?",
        letter,
        seen,
    );
    let (one, eight) = (r.aborts_one_row, r.aborts_eight_rows);
    let letter = match eight {
        0 => "c",
        _ if eight > one => "b",
        _ if eight * 2 >= one => "a",
        _ => "d",
    };
    let seen = format!("{one} aborts over one hot row, {eight} over eight");
    obs.choose("Without injected faults, eight producers with twenty messages each: how do the aborts over eight hot rows compare with those over one?", letter, seen);
}

/// The producer's retries, and an unknown consumer commit, varied.
fn retries(obs: &mut Observation) {
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
    let (copies, rows) = retried_producer_copies();
    let letter = match (copies, rows) {
        (1, _) => "a",
        (_, 1) => "c",
        _ => "b",
    };
    let seen = format!("{copies} copies in the topic, {rows} row(s) in the sink");
    obs.choose("A producer commit is applied but answers UNAVAILABLE; the retry is ABORTED; the next retry commits (automatic seq_no). Copies in the topic, rows in the sink?", letter, seen);
    let fed = unknown_commit_taken_for_a_failure();
    let letter = match fed {
        0 => "b",
        1 => "a",
        _ => "c",
    };
    let seen = format!("the validator was fed 0#1 {fed} time(s)");
    obs.choose("A consumer commit of 0#1 and 0#2 is applied but answers UNAVAILABLE; the application takes it for a failure and retries. How often does the validator see 0#1?", letter, seen);
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("topic-to-table");
    let r = runs();
    let calm = calm_runs();
    pipelines(&mut obs, &r, &calm);
    sessions(&mut obs);
    listings(&mut obs, &calm);
    unknowns(&mut obs, &r);
    counts(&mut obs, &r, &calm);
    retries(&mut obs);
    obs.finish(Some(sim_topic::sqlite_version()), summary(&r, &calm))
}
