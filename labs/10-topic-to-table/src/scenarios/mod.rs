//! The graded worlds (complete; you do not edit them): the pipeline run with your
//! transaction bodies under the deterministic scheduler and the SDK's retry loop, the
//! explorations and seeded runs the graded suite makes, and the scenarios
//! `cargo labs replay 10` accepts.
//!
//! The pipeline takes its transaction bodies from a [`Protocol`]: the graded runs use
//! yours (`pipeline.rs`, which the lab's binary and graded suite hand over with
//! [`learner!`](crate::learner)); the observe phase also runs naive ones.

mod direct;
mod outcome;
mod run;

pub use direct::{
    consumer_retry, declined_transaction, explore_direct, producer_retry, unknown_commit,
};
pub use outcome::{Outcome, Signals, Window, run_pipeline};

use crate::invariants::check;
use crate::world::{Batch, Consumer, Producer, Sim, Tx, Ydb, YdbError};
use labkit::fault::{self, Exploration, Failure, Replay, Scope, Token, Verdict};
use sim_topic::{Chaos, RetrySettings};
use std::cell::RefCell;

/// One attempt of a producer transaction's body.
pub type ProduceFn = fn(&mut Ydb, &mut Sim, &mut Tx, &mut Producer) -> Result<(), YdbError>;
/// What a producer does after its transaction committed.
pub type ProducedFn = fn(&mut Producer);
/// One attempt of the consumer transaction's body; returns the batch it read.
pub type ConsumeFn = fn(&mut Ydb, &mut Sim, &mut Tx, &Consumer) -> Result<Batch, YdbError>;
/// After a consumer commit with an unknown outcome: was the batch committed?
pub type AppliedFn = fn(&Ydb, &Batch) -> bool;

/// The transaction bodies a pipeline runs, and how it settles an unknown commit.
#[derive(Clone, Copy)]
pub struct Protocol {
    pub produce: ProduceFn,
    pub produced: ProducedFn,
    pub consume: ConsumeFn,
    pub applied: AppliedFn,
}

/// The size and faults of one pipeline run.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub producers: usize,
    pub messages_per_producer: i64,
    pub hot_keys: i64,
    pub partitions: i64,
    pub chaos: Chaos,
    pub retry: RetrySettings,
}

impl Config {
    /// The graded exhaustive scope: one producer with two messages, one consumer, one hot
    /// row they share, every kind of fault.
    pub const SMALL: Config = Config {
        producers: 1,
        messages_per_producer: 2,
        hot_keys: 1,
        partitions: 1,
        chaos: Chaos::ALL,
        retry: RETRY,
    };

    /// The seeded chaos run: four producers, 240 messages, two hot rows.
    pub const CHAOS: Config = Config {
        producers: 4,
        messages_per_producer: 60,
        hot_keys: 2,
        partitions: 2,
        chaos: Chaos::ALL,
        retry: RETRY,
    };
}

/// The load test's retry settings: `RetrySettings(idempotent=True)`.
const RETRY: RetrySettings = RetrySettings {
    max_retries: 10,
    fast_backoff: 2,
    slow_backoff: 8,
    idempotent: true,
};

/// A batch in an explanation: its messages, its offsets and the committed offsets.
pub(crate) fn describe_batch(batch: &Batch, committed: &[i64]) -> String {
    let messages: Vec<String> = (batch.messages.iter())
        .map(|m| match crate::world::decode_payload(&m.payload) {
            Some((writer, seq_no, _)) => format!("{writer}#{seq_no}"),
            None => format!("offset {}", m.offset),
        })
        .collect();
    let ranges: Vec<String> = (batch.ranges.iter())
        .map(|r| format!("p{}[{}..{})", r.partition, r.from, r.to))
        .collect();
    format!(
        "{} at {} while the committed offsets were {committed:?}",
        messages.join(" "),
        ranges.join(" ")
    )
}

/// The graded exhaustive scope, as a scenario: [`Config::SMALL`] with your protocol.
pub fn small_scope(yours: Protocol, sim: &mut Sim) -> Verdict {
    check(&run_pipeline(sim, Config::SMALL, yours))
}

/// Every schedule of [`Config::SMALL`] with up to `max_faults` faults.
pub fn explore_small(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "10",
        scenario: "small",
        max_faults,
    };
    fault::explore(scope, |sim| small_scope(yours, sim))
}

/// The fault probability of the seeded chaos run: one choice in eight is a fault.
pub const CHAOS_RATE: (u64, u64) = (1, 8);
/// The seed of the graded chaos run.
pub const CHAOS_SEED: u64 = 0x10;

/// One seeded run that only observes: the outcome, whatever it is.
pub fn seeded_run(seed: u64, config: Config, protocol: Protocol) -> Outcome {
    let outcome = RefCell::new(None);
    // About 900 choices, well within the fault core's default limit.
    fault::run_seeded(seed, CHAOS_RATE, |sim| {
        outcome.replace(Some(run_pipeline(sim, config, protocol)));
        Ok(())
    });
    outcome.into_inner().unwrap_or_default()
}

/// What a graded chaos test checks of a run.
pub type Invariant = fn(&Outcome) -> Verdict;

/// One seeded chaos run with `protocol`: its outcome and, when `invariant` broke, the
/// failure report (timeline, explanation, replay command). The report shows the fault-free
/// schedule when that fails too (it is the simplest), the seeded one otherwise; a run this
/// long is not shrunk, to keep the graded run fast.
pub fn chaos_run(
    seed: u64,
    config: Config,
    protocol: Protocol,
    invariant: Invariant,
) -> (Outcome, Option<Failure>) {
    let outcome = RefCell::new(None);
    let scenario = |sim: &mut Sim| {
        let run = run_pipeline(sim, config, protocol);
        let verdict = invariant(&run);
        outcome.replace(Some(run));
        verdict
    };
    let seeded = fault::run_seeded(seed, CHAOS_RATE, scenario);
    let failure =
        (seeded.verdict.err()).map(|v| chaos_failure(seeded.token, v, config, protocol, invariant));
    (outcome.take().unwrap_or_default(), failure)
}

/// The report of a failed chaos run: the fault-free schedule when it fails too, else the
/// seeded one; its timeline cut to the events up to the first gap, and of those the last.
fn chaos_failure(
    seeded: Token,
    violation: fault::Violation,
    config: Config,
    protocol: Protocol,
    invariant: Invariant,
) -> Failure {
    let scenario = |sim: &mut Sim| invariant(&run_pipeline(sim, config, protocol));
    let fault_free = fault::replay(&Token::fault_free(), scenario);
    let same = |v: &fault::Violation| v.invariant == violation.invariant;
    let (token, replayed) = if fault_free.verdict.as_ref().is_err_and(same) {
        (Token::fault_free(), fault_free)
    } else {
        (seeded.clone(), fault::replay(&seeded, scenario))
    };
    let gap_at = replayed_gap_at(&token, config, protocol);
    let mut events: Vec<_> = (replayed.events.into_iter())
        .filter(|e| gap_at.is_none_or(|at| e.tick <= at))
        .collect();
    events.drain(..events.len().saturating_sub(TIMELINE_TAIL));
    Failure {
        scope: Scope {
            lab: "10",
            scenario: "chaos",
            max_faults: usize::MAX,
        },
        token: replayed.ran,
        faults: replayed.faults,
        violation: replayed.verdict.err().unwrap_or(violation),
        events,
    }
}

/// How many timeline lines a chaos-run failure shows.
const TIMELINE_TAIL: usize = 40;

fn replayed_gap_at(token: &Token, config: Config, protocol: Protocol) -> Option<u64> {
    let mut sim = Sim::replaying(token.path());
    run_pipeline(&mut sim, config, protocol).first_gap_at
}

fn replay_small(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| small_scope(yours, sim))
}

fn replay_chaos(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| check(&run_pipeline(sim, Config::CHAOS, yours)))
}

/// The scenarios `replay` accepts.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("small", replay_small),
    ("chaos", replay_chaos),
    ("producer", |yours, t| {
        fault::replay(t, |sim| producer_retry(yours, sim))
    }),
    ("declined", |yours, t| {
        fault::replay(t, |sim| declined_transaction(yours, sim))
    }),
    ("consumer", |yours, t| {
        fault::replay(t, |sim| consumer_retry(yours, sim))
    }),
    ("unknown", |yours, t| {
        fault::replay(t, |sim| unknown_commit(yours, sim))
    }),
];

/// Aborts in a fault-free run (lock conflicts only) of eight producers, 20 messages each,
/// with `hot_keys` hot rows.
pub fn aborts_with_hot_keys(hot_keys: i64, protocol: Protocol) -> u64 {
    let config = Config {
        producers: 8,
        messages_per_producer: 20,
        hot_keys,
        chaos: Chaos::NONE,
        ..Config::CHAOS
    };
    let outcome = run_pipeline(&mut Sim::fault_free(), config, protocol);
    outcome.signals.aborts
}
