//! Reading: the consumer's committed offsets, its reader session (which reads on past
//! what is committed until it ends), reads within a transaction or plain, and the plain
//! offset commit.

use super::Ydb;
use crate::chaos::CallFault;
use crate::message::describe;
use crate::{Batch, Message, OffsetRange, Tx, YdbError};
use labkit::fault::{Glyph, Sim};
use rusqlite::{OptionalExtension, params};

impl Ydb {
    pub(super) fn committed_offset(&self, consumer: &str, partition: i64) -> i64 {
        self.conn
            .prepare_cached(
                "SELECT committed FROM topic_consumer_offsets WHERE consumer = ?1 AND partition = ?2",
            )
            .expect("prepare offset")
            .query_row(params![consumer, partition], |r| r.get(0))
            .optional()
            .expect("read offset")
            .unwrap_or(0)
    }

    /// The consumer's committed offset for each partition: durable state a client may read
    /// back (e.g. to learn whether a commit with an unknown outcome was applied).
    pub fn committed_offsets(&self, consumer: &str) -> Vec<i64> {
        (0..self.partitions)
            .map(|p| self.committed_offset(consumer, p))
            .collect()
    }

    /// Where the consumer's reader session reads next, per partition: its own position
    /// while a session is live, the committed offset when a new session would start.
    pub fn read_positions(&self, consumer: &'static str) -> Vec<i64> {
        (0..self.partitions)
            .map(|p| self.read_position(consumer, p))
            .collect()
    }

    fn read_position(&self, consumer: &'static str, partition: i64) -> i64 {
        self.sessions
            .get(&(consumer, partition))
            .copied()
            .unwrap_or_else(|| self.committed_offset(consumer, partition))
    }

    /// Ends the consumer's reader session (a reconnect): the next read starts a new session
    /// at the committed offset, so every uncommitted message comes back. The SDK does this
    /// when the read stream breaks and when a transaction that read through the session
    /// rolls back or fails to commit.
    pub fn end_read_session(&mut self, sim: &mut Sim, actor: &'static str, consumer: &'static str) {
        let live: Vec<(&'static str, i64)> = self
            .sessions
            .keys()
            .filter(|(c, _)| *c == consumer)
            .copied()
            .collect();
        if live.is_empty() {
            return;
        }
        for key in live {
            self.sessions.remove(&key);
        }
        *self.session_number.entry(consumer).or_insert(0) += 1;
        self.stats.read_sessions_ended += 1;
        sim.event(actor, Glyph::Normal, || {
            (
                format!("{consumer}: read session ends"),
                "a new session starts at the committed offset".into(),
            )
        });
    }

    /// Messages of every partition from the session's read positions, at most `max` in all;
    /// the session moves past them, committed or not.
    fn read_from_session(&mut self, consumer: &'static str, max: usize) -> Batch {
        let mut batch = Batch::default();
        for partition in 0..self.partitions {
            let left = max - batch.messages.len();
            if left == 0 {
                break;
            }
            let from = self.read_position(consumer, partition);
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT offset, producer_id, seq_no, payload FROM topic_messages
                     WHERE partition = ?1 AND offset >= ?2 ORDER BY offset LIMIT ?3",
                )
                .expect("prepare read");
            let messages: Vec<Message> = stmt
                .query_map(params![partition, from, left as i64], |r| {
                    Ok(Message {
                        partition,
                        offset: r.get(0)?,
                        producer_id: r.get(1)?,
                        seq_no: r.get(2)?,
                        payload: r.get(3)?,
                    })
                })
                .expect("read messages")
                .collect::<Result<_, _>>()
                .expect("read messages");
            self.sessions.insert((consumer, partition), from);
            if let Some(last) = messages.last() {
                let to = last.offset + 1;
                let handed = self.handed_out.entry((consumer, partition)).or_insert(0);
                self.stats.redelivered += (from.max(0)..to).filter(|o| *o < *handed).count() as u64;
                *handed = (*handed).max(to);
                self.sessions.insert((consumer, partition), to);
                batch.ranges.push(OffsetRange {
                    partition,
                    from,
                    to,
                });
                batch.messages.extend(messages);
            }
        }
        batch
    }

    /// `receive_batch_with_tx`: reads up to `max` messages through the consumer's reader
    /// session and attaches their offset range to `tx`, so the advance commits (or rolls
    /// back) with the transaction's table writes. A transaction may read several batches.
    pub fn receive_batch_with_tx(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &mut Tx,
        consumer: &'static str,
        max: usize,
    ) -> Result<Batch, YdbError> {
        if let Err(error) = self.read_call(sim, actor, "receive_batch_with_tx") {
            // The read stream broke: its session is gone.
            self.end_read_session(sim, actor, consumer);
            return Err(error);
        }
        let batch = self.read_from_session(consumer, max);
        sim.event(actor, Glyph::Normal, || {
            (
                format!("receive_batch_with_tx: {}", describe(&batch)),
                String::new(),
            )
        });
        let session = (consumer, self.session_of(consumer));
        if !tx.read_through.contains(&session) {
            tx.read_through.push(session);
        }
        tx.offsets
            .extend(batch.ranges.iter().map(|range| (consumer, *range)));
        Ok(batch)
    }

    pub(super) fn session_of(&self, consumer: &'static str) -> u64 {
        self.session_number.get(consumer).copied().unwrap_or(0)
    }

    /// `receive_batch`: a plain (non-transactional) read of up to `max` messages through
    /// the consumer's reader session. The committed offset moves only with
    /// [`Ydb::commit_with_ack`].
    pub fn receive_batch(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        consumer: &'static str,
        max: usize,
    ) -> Result<Batch, YdbError> {
        if let Err(error) = self.read_call(sim, actor, "receive_batch") {
            self.end_read_session(sim, actor, consumer);
            return Err(error);
        }
        let batch = self.read_from_session(consumer, max);
        sim.event(actor, Glyph::Normal, || {
            (
                format!("receive_batch: {}", describe(&batch)),
                String::new(),
            )
        });
        Ok(batch)
    }

    /// A plain offset commit (`reader.commit_with_ack(batch)`), outside any transaction. It
    /// travels on the reader's stream: a killed connection answers `UNAVAILABLE`, applied or
    /// not, and ends the reader session.
    pub fn commit_with_ack(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        consumer: &'static str,
        batch: &Batch,
    ) -> Result<(), YdbError> {
        let fault = self.effect_call(sim);
        if fault != CallFault::KilledNotApplied {
            for range in &batch.ranges {
                self.conn
                    .prepare_cached(
                        "INSERT INTO topic_consumer_offsets (consumer, partition, committed)
                         VALUES (?1, ?2, ?3) ON CONFLICT (consumer, partition)
                         DO UPDATE SET committed = max(committed, excluded.committed)",
                    )
                    .expect("prepare offset commit")
                    .execute(params![consumer, range.partition, range.to])
                    .expect("commit offset");
            }
        }
        let line = format!("commit_with_ack: {}", describe(batch));
        let answer = self.answer_effect(sim, actor, fault, (line, ""), "offsets committed");
        if answer.is_err() {
            self.end_read_session(sim, actor, consumer);
        }
        answer
    }
}
