//! One run of the pipeline: producers and one consumer interleaved on a logical clock, each
//! transaction inside the SDK's retry loop. Faults stop once the producers are done and the
//! consumer had its chance to meet them ("heal"); the run then drains the topic and ends.

use super::outcome::{Mark, Validator};
use super::{Config, Protocol};
use crate::world::{Batch, CONSUMER, Consumer, Producer, Sim, Tx, Ydb, YdbError};
use sim_topic::StatusCode;
use std::collections::BTreeSet;

/// Steps the producers get to commit every message (a liveness bound).
const PRODUCE_STEP_LIMIT: usize = 200_000;
/// Consumer steps after the producers are done during which faults still happen.
const FAULTY_DRAIN_STEPS: usize = 16;
/// Consumer steps, beyond one per message, that a fault-free drain may take.
const HEALED_DRAIN_SLACK: usize = 32;
pub(super) const WRITE: usize = 0;
pub(super) const READ: usize = 1;

pub(super) enum Open {
    Produce(Tx),
    Consume(Tx, Batch),
}

pub(super) struct Actor {
    pub wake_at: u64,
    pub attempt: u32,
    pub open: Option<Open>,
}

pub(super) struct Run<'a> {
    pub config: Config,
    pub protocol: Protocol,
    pub db: Ydb,
    pub sim: &'a mut Sim,
    pub now: u64,
    pub producers: Vec<Producer>,
    pub commits: Vec<i64>,
    pub consumer: Consumer,
    pub actors: Vec<Actor>,
    pub validator: Validator,
    pub unknown_batch: Option<Batch>,
    pub first_gap_at: Option<u64>,
    pub fed_uncommitted: Option<String>,
    pub fed: BTreeSet<(i64, i64)>,
    pub offsets_fed_twice: u64,
    pub ops_ok: [u64; 2],
    pub ops_given_up: [u64; 2],
    pub marks: Vec<(u64, Mark)>,
}

impl Run<'_> {
    // ANCHOR: retry_loop
    /// The SDK's retry loop, one failed attempt at a time: count the error, then retry
    /// after the backoff the retry settings give, or give up (an availability miss) and
    /// let the application try again later.
    fn fail(&mut self, index: usize, error: YdbError, side: usize) {
        let mark = match error.status {
            StatusCode::Aborted => Mark::Abort,
            _ => Mark::Unavailable,
        };
        self.marks.push((self.now, mark));
        let actor = &mut self.actors[index];
        actor.open = None;
        actor.attempt += 1;
        match self.config.retry.next_delay(&error, actor.attempt) {
            Some(delay) => actor.wake_at = self.now + delay + index as u64 % 3,
            None => {
                self.ops_given_up[side] += 1;
                actor.attempt = 0;
                actor.wake_at = self.now + 32;
            }
        }
    }
    // ANCHOR_END: retry_loop

    fn step_producer(&mut self, index: usize) {
        let actor = self.producers[index].actor;
        match self.actors[index].open.take() {
            None => {
                let mut tx = self.db.begin();
                let producer = &mut self.producers[index];
                producer.now = self.now;
                match (self.protocol.produce)(&mut self.db, self.sim, &mut tx, producer) {
                    Ok(()) => self.stay_open(index, Open::Produce(tx)),
                    Err(error) => {
                        self.db.rollback(self.sim, actor, tx);
                        self.fail(index, error, WRITE);
                    }
                }
            }
            Some(Open::Produce(tx)) => match self.db.commit(self.sim, actor, tx) {
                Ok(_) => {
                    (self.protocol.produced)(&mut self.producers[index]);
                    self.commits[index] += 1;
                    self.succeed(index, WRITE);
                }
                Err(error) => self.fail(index, error, WRITE),
            },
            Some(Open::Consume(..)) => unreachable!("a producer runs producer transactions"),
        }
    }

    fn stay_open(&mut self, index: usize, open: Open) {
        self.actors[index].open = Some(open);
        self.actors[index].wake_at = self.now + 1;
    }

    fn succeed(&mut self, index: usize, side: usize) {
        self.ops_ok[side] += 1;
        self.actors[index].attempt = 0;
        self.actors[index].wake_at = self.now + 1;
    }

    fn step_consumer(&mut self, index: usize) {
        // ANCHOR: unknown_outcome
        if let Some(batch) = self.unknown_batch.take()
            && (self.protocol.applied)(&self.db, &batch)
        {
            self.deliver(&batch);
        }
        // ANCHOR_END: unknown_outcome
        let actor = self.consumer.actor;
        match self.actors[index].open.take() {
            None => self.begin_consume(index),
            Some(Open::Consume(tx, batch)) => match self.db.commit(self.sim, actor, tx) {
                Ok(_) => {
                    self.deliver(&batch);
                    self.succeed(index, READ);
                }
                Err(error) => {
                    // UNAVAILABLE and UNDETERMINED may have committed the batch.
                    if error.status.is_indefinite() {
                        self.unknown_batch = Some(batch);
                    }
                    self.fail(index, error, READ);
                }
            },
            Some(Open::Produce(_)) => unreachable!("the consumer runs consumer transactions"),
        }
    }

    fn begin_consume(&mut self, index: usize) {
        let mut tx = self.db.begin();
        let redelivered_before = self.db.stats().redelivered;
        match (self.protocol.consume)(&mut self.db, self.sim, &mut tx, &self.consumer) {
            Ok(batch) => {
                for _ in redelivered_before..self.db.stats().redelivered {
                    self.marks.push((self.now, Mark::Redelivered));
                }
                if batch.messages.is_empty() {
                    // Nothing to read yet: the empty transaction is dropped; look again
                    // a little later.
                    drop(tx);
                    self.actors[index].wake_at = self.now + 2;
                } else {
                    self.stay_open(index, Open::Consume(tx, batch));
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

    /// Feeds a batch to the validator, noting (from the durable state, which the
    /// validator cannot see) whether its offsets really were committed.
    fn deliver(&mut self, batch: &Batch) {
        let committed = self.db.committed_offsets(CONSUMER);
        let durable = (batch.ranges.iter()).all(|r| committed[r.partition as usize] >= r.to);
        if !durable && self.fed_uncommitted.is_none() {
            self.fed_uncommitted = Some(super::describe_batch(batch, &committed));
        }
        for m in &batch.messages {
            if !self.fed.insert((m.partition, m.offset)) {
                self.offsets_fed_twice += 1;
            }
        }
        let (before, lost_before) = (self.validator.delivered, self.validator.lost);
        self.validator.observe(batch, self.now);
        if lost_before == 0 && self.validator.lost > 0 {
            self.first_gap_at = Some(self.sim.now());
        }
        for _ in before..self.validator.delivered {
            self.marks.push((self.now, Mark::Delivered));
        }
    }

    fn producers_done(&self) -> bool {
        let goal = self.config.messages_per_producer;
        self.commits.iter().all(|c| *c >= goal)
    }

    pub fn drained(&self) -> bool {
        let consumer = self.producers.len();
        if self.actors[consumer].open.is_some() || self.unknown_batch.is_some() {
            return false;
        }
        self.db.committed_offsets(CONSUMER) == self.db.end_offsets()
    }

    /// Runs the actor that wakes first (producers that are done no longer run).
    fn step(&mut self) {
        let consumer = self.producers.len();
        let goal = self.config.messages_per_producer;
        let next = (0..self.actors.len())
            .filter(|&i| i == consumer || self.commits[i] < goal)
            .min_by_key(|&i| (self.actors[i].wake_at, i))
            .expect("the consumer is always runnable");
        self.now = self.now.max(self.actors[next].wake_at);
        if next == consumer {
            self.step_consumer(next);
        } else {
            self.step_producer(next);
        }
    }

    /// Production with faults, a faulty stretch of draining, then a fault-free drain.
    /// Returns whether the producers finished.
    pub fn run(&mut self) -> bool {
        for _ in 0..PRODUCE_STEP_LIMIT {
            if self.producers_done() {
                break;
            }
            self.step();
        }
        if !self.producers_done() {
            return false;
        }
        for _ in 0..FAULTY_DRAIN_STEPS {
            if self.drained() {
                break;
            }
            self.step();
        }
        self.sim.heal();
        let bound = self.commits.iter().sum::<i64>() as usize + HEALED_DRAIN_SLACK;
        for _ in 0..bound {
            if self.drained() {
                break;
            }
            self.step();
        }
        true
    }
}
