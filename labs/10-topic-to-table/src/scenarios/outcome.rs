//! What one pipeline run produced: the signals of the load test, the validator that feeds
//! them, and the final state the invariants read.

use super::run::{Actor, READ, Run, WRITE};
use super::{Config, Protocol};
use crate::invariants::{Audit, audit};
use crate::world::{Batch, CONSUMER, Consumer, HOT, Producer, SINK, Sim, Ydb, decode_payload};
use sim_topic::percentile;
use std::collections::BTreeSet;

const PRODUCER_NAMES: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];

const WINDOWS: usize = 10;

/// The load test's signals for one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signals {
    /// Forward gaps in a producer's sequence seen by the validator (`topic_lost_errors`).
    pub lost: u64,
    /// Messages handed to the consumer again after a rolled-back transaction.
    pub redelivered: u64,
    /// Messages the validator saw again in a committed batch (`topic_duplicates`).
    pub app_duplicates: u64,
    /// "Transaction locks invalidated" aborts (`topic_tx_tli`).
    pub aborts: u64,
    /// Commits refused with `OVERLOADED` (nothing applied).
    pub overloaded: u64,
    /// Calls that failed `UNAVAILABLE` (a killed connection; a commit may have applied).
    pub unavailable: u64,
    pub undetermined: u64,
    /// Messages the validator accepted.
    pub delivered: u64,
    /// Write-commit → read-commit latency, in ticks.
    pub e2e_p50: u64,
    pub e2e_p99: u64,
    /// Share of producer operations that committed before the retry loop gave up.
    pub write_availability: f64,
    /// Share of consumer operations that committed before the retry loop gave up.
    pub read_availability: f64,
    /// Ticks of simulated time the run took.
    pub ticks: u64,
}

/// Counts per window of simulated time, for the plot of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub delivered: u64,
    pub aborts: u64,
    pub unavailable: u64,
    pub redelivered: u64,
}

/// What happened when, for the windows.
#[derive(Clone, Copy)]
pub(super) enum Mark {
    Delivered,
    Abort,
    Unavailable,
    Redelivered,
}

/// Everything one pipeline run produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub signals: Signals,
    pub audit: Audit,
    /// Per producer, the messages whose transaction committed (the commit returned `Ok`):
    /// producer `i` committed sequence numbers `1..=committed[i]`.
    pub committed: Vec<i64>,
    /// The first forward gap the validator saw, in words.
    pub first_gap: Option<String>,
    /// The fault core's clock when the validator saw that gap (to cut long timelines).
    pub first_gap_at: Option<u64>,
    /// The first batch the validator was fed although its offsets were not committed.
    pub fed_uncommitted: Option<String>,
    /// Offsets the validator was fed twice (a committed batch committed again).
    pub offsets_fed_twice: u64,
    pub windows: Vec<Window>,
    /// Every producer committed every message before the step limit.
    pub producers_finished: bool,
    /// After the faults stopped, the consumer committed every offset of the topic.
    pub drained: bool,
    /// The consumer's committed offsets and the topic's end offsets, per partition, at
    /// the end of the run.
    pub committed_offsets: Vec<i64>,
    pub end_offsets: Vec<i64>,
}

// ANCHOR: validator
/// The load test's validator: per producer, the next expected sequence number, fed only
/// with batches whose commit returned (or was found applied).
#[derive(Default)]
pub(super) struct Validator {
    pub next_expected: Vec<i64>,
    pub lost: u64,
    pub app_duplicates: u64,
    pub delivered: u64,
    pub latencies: Vec<u64>,
    pub first_gap: Option<String>,
}

impl Validator {
    pub fn observe(&mut self, batch: &Batch, now: u64) {
        for message in &batch.messages {
            let Some((writer_id, seq_no, write_ts)) = decode_payload(&message.payload) else {
                continue;
            };
            let Some(expected) = self.next_expected.get_mut(writer_id as usize) else {
                continue;
            };
            if seq_no > *expected {
                self.lost += (seq_no - *expected) as u64;
                self.first_gap.get_or_insert_with(|| {
                    format!(
                        "the validator expected producer {writer_id}'s seq_no {} next, \
                         but a committed batch held seq_no {seq_no}",
                        *expected
                    )
                });
            } else if seq_no < *expected {
                self.app_duplicates += 1;
                continue;
            }
            *expected = seq_no + 1;
            self.delivered += 1;
            self.latencies.push(now.saturating_sub(write_ts));
        }
    }
}
// ANCHOR_END: validator

/// A tail that never reached the validator is a gap too: what each producer committed
/// beyond the validator's next expected number.
pub(super) fn tail_gaps(validator: &mut Validator, committed: &[i64]) -> u64 {
    let mut lost = 0;
    for (writer_id, last) in committed.iter().enumerate() {
        let expected = validator.next_expected[writer_id];
        if expected <= *last {
            lost += (*last - expected + 1) as u64;
            validator.first_gap.get_or_insert_with(|| {
                format!(
                    "producer {writer_id} committed up to seq_no {last}, but the validator \
                     never saw seq_no {expected}"
                )
            });
        }
    }
    lost
}

pub(super) fn windows(marks: &[(u64, Mark)], ticks: u64) -> Vec<Window> {
    let width = (ticks / WINDOWS as u64).max(1);
    let mut windows = vec![Window::default(); WINDOWS];
    for (at, mark) in marks {
        let w = &mut windows[((at / width) as usize).min(WINDOWS - 1)];
        match mark {
            Mark::Delivered => w.delivered += 1,
            Mark::Abort => w.aborts += 1,
            Mark::Unavailable => w.unavailable += 1,
            Mark::Redelivered => w.redelivered += 1,
        }
    }
    windows
}

/// Runs the pipeline once under `sim`: the producers commit their messages, the consumer
/// drains the topic into the sink, then the audit reads the sink back.
pub fn run_pipeline(sim: &mut Sim, config: Config, protocol: Protocol) -> Outcome {
    let mut db = Ydb::in_memory(config.partitions, config.chaos);
    db.create_table(HOT);
    db.create_table(SINK);
    let producers: Vec<Producer> = (0..config.producers)
        .map(|i| Producer {
            actor: PRODUCER_NAMES[i % PRODUCER_NAMES.len()],
            writer_id: i as i64,
            next_seq_no: 1,
            hot_key: i as i64 % config.hot_keys,
            now: 0,
        })
        .collect();
    let actors = (0..=producers.len()).map(|_| Actor {
        wake_at: 0,
        attempt: 0,
        open: None,
    });
    let mut run = Run {
        config,
        protocol,
        db,
        sim,
        now: 0,
        commits: vec![0; producers.len()],
        actors: actors.collect(),
        producers,
        consumer: Consumer {
            actor: "consumer",
            reader_id: 0,
            hot_key: 0,
        },
        validator: Validator {
            next_expected: vec![1; config.producers],
            ..Validator::default()
        },
        unknown_batch: None,
        first_gap_at: None,
        fed_uncommitted: None,
        fed: BTreeSet::new(),
        offsets_fed_twice: 0,
        ops_ok: [0; 2],
        ops_given_up: [0; 2],
        marks: Vec::new(),
    };
    let producers_finished = run.run();
    outcome(run, producers_finished)
}

fn outcome(mut run: Run, producers_finished: bool) -> Outcome {
    let committed = run.commits.clone();
    let lost = run.validator.lost + tail_gaps(&mut run.validator, &committed);
    let stats = run.db.stats();
    let availability = |side: usize| {
        let total = run.ops_ok[side] + run.ops_given_up[side];
        let share = run.ops_ok[side] as f64 / total.max(1) as f64;
        if total == 0 { 1.0 } else { share }
    };
    let signals = Signals {
        lost,
        redelivered: stats.redelivered,
        app_duplicates: run.validator.app_duplicates,
        aborts: stats.locks_invalidated,
        overloaded: stats.overloaded,
        unavailable: stats.unavailable,
        undetermined: stats.undetermined,
        delivered: run.validator.delivered,
        e2e_p50: percentile(&run.validator.latencies, 50),
        e2e_p99: percentile(&run.validator.latencies, 99),
        write_availability: availability(WRITE),
        read_availability: availability(READ),
        ticks: run.now,
    };
    Outcome {
        windows: windows(&run.marks, run.now),
        audit: audit(&run.db, &committed),
        drained: run.drained(),
        committed_offsets: run.db.committed_offsets(CONSUMER),
        end_offsets: run.db.end_offsets(),
        signals,
        committed,
        first_gap: run.validator.first_gap.take(),
        first_gap_at: run.first_gap_at,
        fed_uncommitted: run.fed_uncommitted.take(),
        offsets_fed_twice: run.offsets_fed_twice,
        producers_finished,
    }
}
