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
use contention::{Calm, aborted_actors, calm_runs, consumer_abort_rows};
use experiments::later_transaction_commits_first;
use labkit::{Observation, Report};
use listings::{
    offset_commit_lost_before_it_applied, plain_write_lost, plain_write_stored_then_aborted,
};
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
        "consumer_aborts_without_faults_named": consumer_abort_rows().into_iter().collect::<Vec<_>>(),
        "one_tx_lost_or_missing": s.lost + r.one_tx.audit.missing.len() as u64,
        "one_tx_offsets_fed_twice": r.one_tx.offsets_fed_twice,
    })
}

/// The pipelines without injected faults.
fn pipelines(obs: &mut Observation, calm: &Calm) {
    let offset_at_read = &calm.offset_at_read;
    obs.ask(
        "In the seed's configuration without injected faults, does the offset-at-read consumer lose any message?",
        offset_at_read.signals.lost > 0 || !offset_at_read.audit.missing.is_empty(),
    );
    obs.ask(
        "In the seed's configuration without injected faults, does the one-transaction run hand any message to the consumer twice?",
        calm.one_tx.signals.redelivered > 0,
    );
}

/// The two printed listings under scripted faults.
fn listings(obs: &mut Observation) {
    let copies = plain_write_lost();
    obs.ask("The plain-writer producer as listed sends a message: its write's connection is killed before the message is stored (UNAVAILABLE), and nothing else fails. Is the message missing from the topic?", copies == 0);
    let sink = offset_commit_lost_before_it_applied();
    obs.ask("The offset-at-read consumer as listed reads 0#1 and 0#2; the connection of its commit_with_ack is killed before the commit is applied (UNAVAILABLE), and the retry loop runs it again. Is 0#1 or 0#2 missing from the sink at the end?", !(sink.contains(&(0, 1)) && sink.contains(&(0, 2))));
}

/// Two transactions on one reader session; redeliveries; retry settings.
fn sessions(obs: &mut Observation) {
    let two = later_transaction_commits_first();
    obs.ask("Through one reader session, T1 reads offsets 0-1 and stays open; T2 then reads offsets 2-3 and commits first. Is T2's commit accepted?", two.later_committed);
    obs.ask(
        "Then T1 commits. Are offsets 0-1 committed?",
        two.earlier_committed,
    );
    let letter = match two.next_read_from {
        Some(0) => "a",
        Some(2) => "b",
        Some(4) => "c",
        _ => "none of these",
    };
    obs.choose(
        "After T1's commit, in the experiment with T1 and T2, a new transaction reads through the consumer. At which offset does its batch start?",
        letter,
        format!("the new transaction read from offset {:?}", two.next_read_from),
    );
    let copies = [true, false].map(copies_after_an_unavailable_commit);
    let letter = match copies {
        [1, 1] => "a",
        [2, 1] => "b",
        [2, 2] => "c",
        [1, 2] => "d",
        _ => "none of these",
    };
    obs.choose("A producer writes its message through tx_writer (auto_seqno) and bumps its hot row in one transaction; its commit is applied but answers UNAVAILABLE, and nothing else fails. How many copies of the message does the topic hold, with RetrySettings(idempotent=True) and with RetrySettings(idempotent=False)?",
        letter,
        format!("copies with idempotent=True, then False: {copies:?}"),
    );
}

/// What the validator counts without faults; the hot rows.
fn counts(obs: &mut Observation, calm: &Calm) {
    let s = &calm.outside.signals;
    let letter = match (s.lost > 0, s.app_duplicates > 0) {
        (true, false) => "a",
        (false, false) => "b",
        (false, true) => "c",
        (true, true) => "d",
    };
    let seen = format!("lost {}, duplicates {}", s.lost, s.app_duplicates);
    obs.choose(
        "In the seed's configuration without injected faults, what does the plain-writer run's validator report?",
        letter,
        seen,
    );
    let aborted = aborted_actors(8);
    let names: Vec<&str> = aborted.iter().copied().collect();
    let letter = match names.as_slice() {
        [] => "a",
        ["consumer"] => "b",
        ["consumer", "p0"] => "d",
        _ if names.len() == 9 => "c",
        _ => "none of these",
    };
    obs.choose("Without injected faults, eight producers with twenty messages each over eight hot rows: whose commits are ABORTED?", letter, format!("aborted: {names:?}"));
}

/// The producer's retries, and an unknown consumer commit, varied.
fn retries(obs: &mut Observation) {
    let (copies, rows) = plain_write_stored_then_aborted();
    let letter = match (copies, rows) {
        (1, 1) => "a",
        (2, 1) => "b",
        (2, 2) => "c",
        _ => "none of these",
    };
    let seen = format!("{copies} copies in the topic, {rows} row(s) in the sink");
    obs.choose("The plain-writer producer as listed: its write is stored, but the connection is killed before the answer (UNAVAILABLE); then its commit is ABORTED, and the retry commits. Once the consumer has read everything, how many copies of the message does the topic hold, and how many sink rows?", letter, seen);
    let in_tx = seq_no_moved_in_the_body(false);
    let plain = seq_no_moved_in_the_body(true);
    let letter = match (in_tx.as_slice(), plain.as_slice()) {
        ([2, 3], [1, 2, 3]) => "a",
        ([1, 2], [1, 2]) => "b",
        ([2, 3], [2, 3]) => "c",
        ([1, 2], [1, 1, 2]) => "d",
        _ => "none of these",
    };
    obs.choose("A producer moves next_seq_no inside the body. Its first commit is ABORTED, the retry commits, then a second message commits. Which seq_nos do the payloads in the topic carry, first when it writes through tx_writer in its transaction, then when it writes with the plain writer as listed?",
        letter,
        format!("the payloads carry {in_tx:?} through tx_writer, {plain:?} with the plain writer"),
    );
    let fed = unknown_commit_taken_for_a_failure();
    let letter = match fed {
        0 => "b",
        1 => "a",
        _ => "c",
    };
    let seen = format!("the validator was fed 0#1 {fed} time(s)");
    obs.choose("A consumer commit of 0#1 and 0#2 is applied but answers UNAVAILABLE, and the retry loop runs the consumer's transaction again. How often does the validator see 0#1?", letter, seen);
    let copies = copies_after_a_restart_with_a_random_producer_id();
    let letter = match copies {
        1 => "a",
        2 => "c",
        _ => "none of these",
    };
    let seen = format!("the topic holds {copies} copies of 0#2");
    obs.choose("Variation: a producer numbers its messages itself (auto_seqno=False) and leaves producer_id at the SDK's default. Its commit of 0#2 is applied but answers UNAVAILABLE, and its process restarts; the new process writes 0#2 again under seq_no 2. How many copies of 0#2 does the topic hold?", letter, seen);
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("topic-to-table");
    let r = runs();
    let calm = calm_runs();
    pipelines(&mut obs, &calm);
    listings(&mut obs);
    sessions(&mut obs);
    counts(&mut obs, &calm);
    retries(&mut obs);
    obs.finish(Some(sim_topic::sqlite_version()), summary(&r, &calm))
}
