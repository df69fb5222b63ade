//! The world lab 10 runs in (complete; you do not edit it): a simulated YDB database with a
//! transactional topic, a `hot` contention table and a `sink` table, all in one SQLite
//! database; producers and one consumer interleaved deterministically on a logical clock;
//! the SDK's retry loop; the seed's validator; and the independent audit.
//!
//! The pipeline takes its transaction bodies from a [`Protocol`]: the graded runs use yours
//! (`pipeline.rs`), the observe phase also runs naive ones.

use labkit::fault::{self, Exploration, Failure, Replay, Scope, Sim, Token, Verdict, Violation};
use labkit::figure::{BarChart, Sequence};
use sim_topic::{Batch, Chaos, RetryPolicy, StatusCode, Tx, Ydb, YdbError, percentile};
use std::cell::RefCell;

/// The contention table: a few hot rows every transaction reads and bumps.
pub const HOT: &str = "hot";
/// The sink table, keyed by `(writer_id, seq_no)`.
pub const SINK: &str = "sink";
/// The consumer (group) name whose offsets the topic keeps.
pub const CONSUMER: &str = "sink-writer";
/// The largest batch a consumer transaction reads.
pub const BATCH: usize = 8;

const PRODUCER_NAMES: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];

/// One producer: a writer id, its next sequence number and the hot row it bumps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// The name in timelines.
    pub actor: &'static str,
    pub writer_id: i64,
    /// The sequence number the next message gets (the first is 1).
    pub next_seq_no: i64,
    /// `writer_id % hot_keys`: the row of `hot` this producer's transactions bump.
    pub hot_key: i64,
    /// The current time on the logical clock, for the message's `write_ts`.
    pub now: u64,
}

/// The consumer: its name and the hot row it bumps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consumer {
    pub actor: &'static str,
    pub reader_id: i64,
    pub hot_key: i64,
}

/// A self-describing payload, as in the seed: `writer_id:seq_no:write_ts:<padding>`.
pub fn encode_payload(writer_id: i64, seq_no: i64, write_ts: u64) -> String {
    format!("{writer_id}:{seq_no}:{write_ts}:pad")
}

/// `(writer_id, seq_no, write_ts)` from a payload, or `None` when it is malformed.
pub fn decode_payload(payload: &str) -> Option<(i64, i64, u64)> {
    let mut parts = payload.split(':');
    let writer_id = parts.next()?.parse().ok()?;
    let seq_no = parts.next()?.parse().ok()?;
    let write_ts = parts.next()?.parse().ok()?;
    Some((writer_id, seq_no, write_ts))
}

/// Reads hot row `key` (taking an optimistic lock on it) and upserts it plus one.
pub fn bump_hot_row(
    db: &mut Ydb,
    sim: &mut Sim,
    actor: &'static str,
    tx: &mut Tx,
    key: i64,
) -> Result<(), YdbError> {
    let value = db.select(sim, actor, tx, HOT, (key, 0))?;
    let value: i64 = value.and_then(|v| v.parse().ok()).unwrap_or(0);
    db.upsert(tx, HOT, (key, 0), (value + 1).to_string());
    Ok(())
}

/// One attempt of a producer transaction's body.
pub type ProduceFn = fn(&mut Ydb, &mut Sim, &mut Tx, &mut Producer) -> Result<(), YdbError>;
/// What a producer does after its transaction committed.
pub type ProducedFn = fn(&mut Producer);
/// One attempt of the consumer transaction's body; returns the batch it read.
pub type ConsumeFn = fn(&mut Ydb, &mut Sim, &mut Tx, &Consumer) -> Result<Batch, YdbError>;

/// The transaction bodies a pipeline runs.
#[derive(Clone, Copy)]
pub struct Protocol {
    pub produce: ProduceFn,
    pub produced: ProducedFn,
    pub consume: ConsumeFn,
}

/// Yours, from `pipeline.rs`.
pub fn learner_protocol() -> Protocol {
    Protocol {
        produce: crate::pipeline::produce,
        produced: crate::pipeline::produced,
        consume: crate::pipeline::consume,
    }
}

/// The size and faults of one pipeline run.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub producers: usize,
    pub messages_per_producer: i64,
    pub hot_keys: i64,
    pub partitions: i64,
    pub chaos: Chaos,
    pub policy: RetryPolicy,
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
        policy: RetryPolicy {
            max_attempts: 10,
            fast_base: 2,
            slow_base: 8,
            idempotent: true,
        },
    };

    /// The seeded chaos run: four producers, 240 messages, two hot rows.
    pub const CHAOS: Config = Config {
        producers: 4,
        messages_per_producer: 60,
        hot_keys: 2,
        partitions: 2,
        chaos: Chaos::ALL,
        policy: RetryPolicy {
            max_attempts: 10,
            fast_base: 2,
            slow_base: 8,
            idempotent: true,
        },
    };
}

/// The seed's signals for one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signals {
    /// Forward gaps in a producer's sequence seen by the validator (`topic_lost_errors`).
    pub lost: u64,
    /// Messages handed to the consumer again after a rolled-back transaction.
    pub redelivered: u64,
    /// Committed batches that held a message the validator had already seen.
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

/// What the independent audit found when it read the whole sink table back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Sink rows read back.
    pub rows: usize,
    /// `(writer_id, seq_no)` committed by a producer but absent from the sink.
    pub missing: Vec<(i64, i64)>,
    /// `(writer_id, seq_no)` present more than once.
    pub duplicated: Vec<(i64, i64)>,
    /// `(writer_id, seq_no)` in the sink that no producer committed.
    pub unexpected: Vec<(i64, i64)>,
}

impl Audit {
    pub fn exactly_once(&self) -> bool {
        self.missing.is_empty() && self.duplicated.is_empty() && self.unexpected.is_empty()
    }
}

/// Counts per window of simulated time, for the plot of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub delivered: u64,
    pub aborts: u64,
    pub unavailable: u64,
    pub redelivered: u64,
}

/// Everything one pipeline run produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub signals: Signals,
    pub audit: Audit,
    /// Sequence numbers each producer committed (what it believes is durable).
    pub committed: Vec<i64>,
    /// The first forward gap the validator saw, in words.
    pub first_gap: Option<String>,
    /// The fault core's clock when the validator saw that gap (to cut long timelines).
    pub first_gap_at: Option<u64>,
    pub windows: Vec<Window>,
    /// The run stopped before every message was delivered (a liveness failure).
    pub stalled: bool,
}

// ANCHOR: validator
/// The seed's validator: per producer, the next expected sequence number, fed only by
/// committed batches.
#[derive(Default)]
struct Validator {
    next_expected: Vec<i64>,
    lost: u64,
    app_duplicates: u64,
    delivered: u64,
    latencies: Vec<u64>,
    first_gap: Option<String>,
}

impl Validator {
    fn observe(&mut self, batch: &Batch, now: u64) {
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
                        "the validator expected producer {writer_id}'s seq_no {} next, but a committed batch held seq_no {seq_no}",
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

enum Open {
    Produce(Tx),
    Consume(Tx, Batch),
}

struct Actor {
    wake_at: u64,
    attempt: u32,
    open: Option<Open>,
}

#[derive(Clone, Copy)]
enum Mark {
    Delivered,
    Abort,
    Unavailable,
    Redelivered,
}

struct Run<'a> {
    config: Config,
    protocol: Protocol,
    db: Ydb,
    sim: &'a mut Sim,
    now: u64,
    producers: Vec<Producer>,
    commits: Vec<i64>,
    consumer: Consumer,
    actors: Vec<Actor>,
    validator: Validator,
    unknown_batch: Option<Batch>,
    first_gap_at: Option<u64>,
    ops_ok: [u64; 2],
    ops_given_up: [u64; 2],
    marks: Vec<(u64, Mark)>,
}

const WRITE: usize = 0;
const READ: usize = 1;
const STEP_LIMIT: usize = 200_000;

impl Run<'_> {
    // ANCHOR: retry_loop
    /// The SDK's retry loop, one failed attempt at a time: count the error, then retry
    /// after the policy's backoff, or give up (an availability miss) and try later.
    fn fail(&mut self, index: usize, error: YdbError, side: usize) {
        match error.status {
            StatusCode::Aborted => self.marks.push((self.now, Mark::Abort)),
            StatusCode::Overloaded | StatusCode::Unavailable | StatusCode::Undetermined => {
                self.marks.push((self.now, Mark::Unavailable))
            }
        }
        let actor = &mut self.actors[index];
        actor.open = None;
        actor.attempt += 1;
        match self.config.policy.next_delay(&error, actor.attempt) {
            Some(delay) => actor.wake_at = self.now + delay + index as u64 % 3,
            None => {
                // The retry loop gave up; the application tries again a little later.
                self.ops_given_up[side] += 1;
                actor.attempt = 0;
                actor.wake_at = self.now + 32;
            }
        }
    }
    // ANCHOR_END: retry_loop

    fn step_producer(&mut self, index: usize) {
        match self.actors[index].open.take() {
            None => {
                let mut tx = self.db.begin();
                let producer = &mut self.producers[index];
                producer.now = self.now;
                match (self.protocol.produce)(&mut self.db, self.sim, &mut tx, producer) {
                    Ok(()) => {
                        self.actors[index].open = Some(Open::Produce(tx));
                        self.actors[index].wake_at = self.now + 1;
                    }
                    Err(error) => {
                        let actor = self.producers[index].actor;
                        self.db.rollback(self.sim, actor, tx);
                        self.fail(index, error, WRITE);
                    }
                }
            }
            Some(Open::Produce(tx)) => {
                let actor = self.producers[index].actor;
                match self.db.commit(self.sim, actor, tx) {
                    Ok(_) => {
                        (self.protocol.produced)(&mut self.producers[index]);
                        self.commits[index] += 1;
                        self.ops_ok[WRITE] += 1;
                        self.actors[index].attempt = 0;
                        self.actors[index].wake_at = self.now + 1;
                    }
                    Err(error) => self.fail(index, error, WRITE),
                }
            }
            Some(Open::Consume(..)) => unreachable!("a producer runs producer transactions"),
        }
    }

    fn step_consumer(&mut self, index: usize) {
        // ANCHOR: unknown_outcome
        if let Some(batch) = self.unknown_batch.take() {
            // The last commit's outcome is unknown: read the durable offsets back. If they
            // moved past the batch, the commit was applied and the batch is validated now.
            let committed = self.db.committed_offsets(CONSUMER);
            if batch
                .ranges
                .iter()
                .all(|r| committed[r.partition as usize] >= r.to)
            {
                self.deliver(&batch);
            }
        }
        // ANCHOR_END: unknown_outcome
        match self.actors[index].open.take() {
            None => {
                let mut tx = self.db.begin();
                let redelivered_before = self.db.stats().redelivered;
                match (self.protocol.consume)(&mut self.db, self.sim, &mut tx, &self.consumer) {
                    Ok(batch) => {
                        for _ in redelivered_before..self.db.stats().redelivered {
                            self.marks.push((self.now, Mark::Redelivered));
                        }
                        let actor = &mut self.actors[index];
                        if batch.messages.is_empty() {
                            actor.wake_at = self.now + 2;
                        } else {
                            actor.open = Some(Open::Consume(tx, batch));
                            actor.wake_at = self.now + 1;
                        }
                    }
                    Err(error) => {
                        // The retry loop rolls the attempt back, which also ends the reader
                        // session it read through: the next attempt reads the batch again.
                        self.db.rollback(self.sim, self.consumer.actor, tx);
                        self.fail(index, error, READ);
                    }
                }
            }
            Some(Open::Consume(tx, batch)) => {
                match self.db.commit(self.sim, self.consumer.actor, tx) {
                    Ok(_) => {
                        self.deliver(&batch);
                        self.actors[index].attempt = 0;
                        self.actors[index].wake_at = self.now + 1;
                    }
                    Err(error) => {
                        // UNAVAILABLE and UNDETERMINED may have committed the batch.
                        if error.status.is_indefinite() {
                            self.unknown_batch = Some(batch);
                        }
                        self.fail(index, error, READ);
                    }
                }
            }
            Some(Open::Produce(_)) => unreachable!("the consumer runs consumer transactions"),
        }
    }

    fn deliver(&mut self, batch: &Batch) {
        let before = self.validator.delivered;
        let lost_before = self.validator.lost;
        self.validator.observe(batch, self.now);
        if lost_before == 0 && self.validator.lost > 0 {
            self.first_gap_at = Some(self.sim.now());
        }
        self.ops_ok[READ] += 1;
        for _ in before..self.validator.delivered {
            self.marks.push((self.now, Mark::Delivered));
        }
    }

    fn producers_done(&self) -> bool {
        self.commits
            .iter()
            .all(|c| *c >= self.config.messages_per_producer)
    }

    fn drained(&self) -> bool {
        let consumer = self.producers.len();
        if self.actors[consumer].open.is_some() || self.unknown_batch.is_some() {
            return false;
        }
        self.db.committed_offsets(CONSUMER) == self.db.end_offsets()
    }

    fn run(&mut self) -> bool {
        for _ in 0..STEP_LIMIT {
            let producers_done = self.producers_done();
            if producers_done && self.drained() {
                return true;
            }
            let consumer = self.producers.len();
            let next = (0..self.actors.len())
                .filter(|&i| i == consumer || self.commits[i] < self.config.messages_per_producer)
                .min_by_key(|&i| (self.actors[i].wake_at, i))
                .expect("the consumer is always runnable");
            self.now = self.now.max(self.actors[next].wake_at);
            if next == consumer {
                self.step_consumer(next);
            } else {
                self.step_producer(next);
            }
        }
        false
    }
}

// ANCHOR: audit
/// Reads the whole sink table back and compares it with what the producers committed.
pub fn audit(db: &Ydb, committed: &[i64]) -> Audit {
    let rows = db.all_rows(SINK);
    let mut count = std::collections::BTreeMap::new();
    for (_, payload) in &rows {
        if let Some((writer_id, seq_no, _)) = decode_payload(payload) {
            *count.entry((writer_id, seq_no)).or_insert(0u32) += 1;
        }
    }
    let mut audit = Audit {
        rows: rows.len(),
        ..Audit::default()
    };
    for (writer_id, last) in committed.iter().enumerate() {
        for seq_no in 1..=*last {
            if !count.contains_key(&(writer_id as i64, seq_no)) {
                audit.missing.push((writer_id as i64, seq_no));
            }
        }
    }
    for (&(writer_id, seq_no), &n) in &count {
        if n > 1 {
            audit.duplicated.push((writer_id, seq_no));
        }
        let known = committed
            .get(writer_id as usize)
            .is_some_and(|last| (1..=*last).contains(&seq_no));
        if !known {
            audit.unexpected.push((writer_id, seq_no));
        }
    }
    audit
}
// ANCHOR_END: audit

const WINDOWS: usize = 10;

/// Runs the pipeline once under `sim`: every producer commits its messages, the consumer
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
    let mut run = Run {
        config,
        protocol,
        db,
        sim,
        now: 0,
        commits: vec![0; producers.len()],
        actors: (0..=producers.len())
            .map(|_| Actor {
                wake_at: 0,
                attempt: 0,
                open: None,
            })
            .collect(),
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
        ops_ok: [0; 2],
        ops_given_up: [0; 2],
        marks: Vec::new(),
    };
    let finished = run.run();
    // A tail that never arrived is a gap too: compare with what each producer committed.
    let committed: Vec<i64> = run.producers.iter().map(|p| p.next_seq_no - 1).collect();
    let mut lost = run.validator.lost;
    for (writer_id, last) in committed.iter().enumerate() {
        let expected = run.validator.next_expected[writer_id];
        if expected <= *last {
            lost += (*last - expected + 1) as u64;
            run.validator.first_gap.get_or_insert_with(|| {
                format!(
                    "producer {writer_id} committed up to seq_no {last}, but the validator never saw seq_no {expected}"
                )
            });
        }
    }
    let stats = run.db.stats();
    let availability = |side: usize| {
        let total = run.ops_ok[side] + run.ops_given_up[side];
        if total == 0 {
            1.0
        } else {
            run.ops_ok[side] as f64 / total as f64
        }
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
    let width = (run.now / WINDOWS as u64).max(1);
    let mut windows = vec![Window::default(); WINDOWS];
    for (at, mark) in &run.marks {
        let w = &mut windows[((at / width) as usize).min(WINDOWS - 1)];
        match mark {
            Mark::Delivered => w.delivered += 1,
            Mark::Abort => w.aborts += 1,
            Mark::Unavailable => w.unavailable += 1,
            Mark::Redelivered => w.redelivered += 1,
        }
    }
    Outcome {
        signals,
        audit: audit(&run.db, &committed),
        committed,
        first_gap: run.validator.first_gap.take(),
        first_gap_at: run.first_gap_at,
        windows,
        stalled: !finished,
    }
}

/// The graded invariants of one run, with a "Let … then … contradiction" explanation.
pub fn check(outcome: &Outcome) -> Verdict {
    let committed = format!(
        "Let the producers commit seq_no 1..=n with n = {:?} (their own count of successful commits).",
        outcome.committed
    );
    if outcome.stalled {
        return Err(Violation::new(
            "the pipeline delivers every committed message (liveness)",
            &[
                committed,
                "Then the consumer should drain the topic once the producers stop.".into(),
                format!(
                    "Contradiction: after {STEP_LIMIT} steps it had delivered {} messages.",
                    outcome.signals.delivered
                ),
            ],
        ));
    }
    if outcome.signals.lost > 0 {
        return Err(Violation::new(
            "no forward gap in any producer's sequence (lost = 0)",
            &[
                committed,
                format!(
                    "Then {}.",
                    outcome.first_gap.as_deref().unwrap_or("a gap was seen")
                ),
                format!(
                    "Contradiction: {} message(s) lost — a sequence number was committed or skipped without its message reaching the sink.",
                    outcome.signals.lost
                ),
            ],
        ));
    }
    let audit = &outcome.audit;
    if !audit.exactly_once() {
        return Err(Violation::new(
            "the sink holds every committed message exactly once (audit)",
            &[
                committed,
                format!(
                    "Then the audit read {} sink rows back: missing {:?}, duplicated {:?}, never committed {:?}.",
                    audit.rows, audit.missing, audit.duplicated, audit.unexpected
                ),
                "Contradiction: the sink is not the committed messages, each once.".into(),
            ],
        ));
    }
    Ok(())
}

/// The graded exhaustive scope, as a scenario: [`Config::SMALL`] with your protocol.
pub fn small_scope(sim: &mut Sim) -> Verdict {
    check(&run_pipeline(sim, Config::SMALL, learner_protocol()))
}

/// Every schedule of [`Config::SMALL`] with up to `max_faults` faults.
pub fn explore_small(max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "10",
        scenario: "small",
        max_faults,
    };
    fault::explore(scope, small_scope)
}

/// The fault probability of the seeded chaos run: one choice in eight is a fault.
pub const CHAOS_RATE: (u64, u64) = (1, 8);
/// The seed of the graded chaos run.
pub const CHAOS_SEED: u64 = 0x10;

/// One seeded run that only observes: the outcome, whatever it is (no shrinking).
pub fn seeded_run(seed: u64, config: Config, protocol: Protocol) -> Outcome {
    let scope = Scope {
        lab: "10",
        scenario: "observe",
        max_faults: usize::MAX,
    };
    let outcome = RefCell::new(None);
    fault::random(scope, seed, 1, CHAOS_RATE, |sim| {
        outcome.replace(Some(run_pipeline(sim, config, protocol)));
        Ok(())
    });
    outcome.into_inner().unwrap_or_default()
}

/// One seeded chaos run with `protocol`: its outcome and, when an invariant broke, the
/// failure report (timeline, explanation, replay command). The report shows the fault-free
/// schedule when that fails too (it is the simplest), the seeded one otherwise; a run this
/// long is not shrunk, to keep the graded run fast.
pub fn chaos_run(seed: u64, config: Config, protocol: Protocol) -> (Outcome, Option<Failure>) {
    let scope = Scope {
        lab: "10",
        scenario: "chaos",
        max_faults: usize::MAX,
    };
    let outcome = RefCell::new(None);
    let seeded = fault::run_seeded(seed, CHAOS_RATE, |sim| {
        outcome.replace(Some(run_pipeline(sim, config, protocol)));
        Ok(())
    });
    let outcome = outcome.into_inner().expect("one run");
    let scenario = |sim: &mut Sim| check(&run_pipeline(sim, config, protocol));
    let failure = check(&outcome).err().map(|violation| {
        let fault_free = fault::replay(&Token::fault_free(), scenario);
        let (token, replayed) = if fault_free.verdict.is_err() {
            (Token::fault_free(), fault_free)
        } else {
            let replayed = fault::replay(&seeded.token, scenario);
            (seeded.token, replayed)
        };
        // A run this long has a long timeline: keep the events up to the first gap (when
        // there is one), and of those the last ones.
        let gap_at = replayed_gap_at(&token, config, protocol);
        let mut events: Vec<_> = replayed
            .events
            .into_iter()
            .filter(|e| gap_at.is_none_or(|at| e.tick <= at))
            .collect();
        let cut = events.len().saturating_sub(TIMELINE_TAIL);
        events.drain(..cut);
        Failure {
            scope,
            token,
            faults: replayed.faults,
            violation: replayed.verdict.err().unwrap_or(violation),
            events,
        }
    });
    (outcome, failure)
}

/// How many timeline lines a chaos-run failure shows.
const TIMELINE_TAIL: usize = 40;

fn replayed_gap_at(token: &Token, config: Config, protocol: Protocol) -> Option<u64> {
    let mut sim = Sim::replaying(token.path());
    run_pipeline(&mut sim, config, protocol).first_gap_at
}

fn replay_small(token: &Token) -> Replay {
    fault::replay(token, small_scope)
}

fn replay_chaos(token: &Token) -> Replay {
    fault::replay(token, |sim| {
        check(&run_pipeline(sim, Config::CHAOS, learner_protocol()))
    })
}

/// The scenarios `replay` accepts.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] =
    &[("small", replay_small), ("chaos", replay_chaos)];

/// Aborts in a fault-free run (lock conflicts only) of [`Config::CHAOS`]'s size with
/// `hot_keys` hot rows and eight producers.
pub fn aborts_with_hot_keys(hot_keys: i64, protocol: Protocol) -> u64 {
    let config = Config {
        producers: 8,
        messages_per_producer: 20,
        hot_keys,
        chaos: Chaos::NONE,
        ..Config::CHAOS
    };
    run_pipeline(&mut Sim::fault_free(), config, protocol)
        .signals
        .aborts
}

/// The first failure of the small scope with the learner's code, as the chapter shows it
/// (generated, so the book cannot drift from what `cargo labs check 10` prints).
fn first_small_failure() -> String {
    match explore_small(2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the small scope passes\n".to_string(),
    }
}

/// The book's figures: the protocol, the signals over a seeded chaos run, aborts against
/// the number of hot rows, and the starter's first failure.
pub fn figures() -> Vec<(&'static str, String)> {
    let protocol = Sequence::new(
        "Exactly once from topic to table",
        &["producer tx", "hot[k]", "topic", "consumer tx", "sink"],
    )
    .divider("producer: retry_tx until commit")
    .call("producer tx", "hot[k]", "SELECT val (optimistic lock)")
    .call("producer tx", "hot[k]", "UPSERT val + 1")
    .call("producer tx", "topic", "tx_writer.write(w:seq:ts)")
    .reply("topic", "producer tx", "COMMIT: message + row, or neither")
    .note("producer tx", "seq_no += 1 only after Ok")
    .divider("consumer: retry_tx until commit")
    .call("consumer tx", "topic", "receive_batch_with_tx")
    .reply("topic", "consumer tx", "next batch of the read session")
    .call("consumer tx", "sink", "UPSERT (writer_id, seq_no)")
    .call("consumer tx", "hot[k]", "SELECT + UPSERT val + 1")
    .reply("topic", "consumer tx", "COMMIT: offset + rows, or neither")
    .crash("consumer tx", "ABORTED / OVERLOADED / UNAVAILABLE")
    .note(
        "consumer tx",
        "a new read session starts at the committed offset",
    )
    .to_svg();

    let outcome = seeded_run(
        crate::observe::OBSERVE_SEED,
        Config::CHAOS,
        reference_protocol(),
    );
    let windows = &outcome.windows;
    let series = |name: &str, f: fn(&Window) -> u64| {
        (
            name.to_string(),
            windows.iter().map(|w| f(w) as f64).collect::<Vec<f64>>(),
        )
    };
    let width = (outcome.signals.ticks / windows.len() as u64).max(1);
    let signals = BarChart {
        title: format!(
            "Seeded chaos run: lost {}, e2e p50 {} / p99 {} ticks, availability {:.0} % write / {:.0} % read",
            outcome.signals.lost,
            outcome.signals.e2e_p50,
            outcome.signals.e2e_p99,
            outcome.signals.write_availability * 100.0,
            outcome.signals.read_availability * 100.0
        ),
        y_label: "events per window".into(),
        categories: (0..windows.len())
            .map(|i| format!("t{}", i as u64 * width))
            .collect(),
        series: vec![
            series("delivered", |w| w.delivered),
            series("aborts (TLI)", |w| w.aborts),
            series("failed / unknown", |w| w.unavailable),
            series("redelivered", |w| w.redelivered),
        ],
    }
    .to_svg();

    let keys = [1, 2, 4, 8];
    let aborts = BarChart {
        title: "Aborts by hot rows".into(),
        y_label: "ABORTED (locks invalidated)".into(),
        categories: keys.iter().map(|k| k.to_string()).collect(),
        series: vec![(
            "8 producers".into(),
            keys.iter()
                .map(|k| aborts_with_hot_keys(*k, reference_protocol()) as f64)
                .collect(),
        )],
    }
    .to_svg();
    vec![
        ("10-protocol.svg", protocol),
        ("10-signals.svg", signals),
        ("10-aborts-by-hot-rows.svg", aborts),
        ("10-signals.md", crate::observe::signals_page()),
        ("10-first-failure.txt", first_small_failure()),
    ]
}

/// The observe phase's one-transaction protocol (the figures use it too, so they do not
/// depend on the state of your `pipeline.rs`).
pub fn reference_protocol() -> Protocol {
    crate::observe::ONE_TRANSACTION
}
