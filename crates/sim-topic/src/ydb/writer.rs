//! Writing: the plain (non-transactional) write, and the append every message goes
//! through, which numbers it or deduplicates it by its producer's sequence numbers.

use super::Ydb;
use crate::YdbError;
use crate::chaos::CallFault;
use crate::message::describe_payload;
use crate::tx::PendingMessage;
use labkit::fault::Sim;
use rusqlite::{OptionalExtension, params};

impl Ydb {
    /// A plain (non-transactional) topic write (`writer.write_with_ack(...)`), acknowledged
    /// on its own; the writer numbers the message itself (`auto_seqno`). A killed
    /// connection answers `UNAVAILABLE`, written or not.
    pub fn write(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        producer_id: i64,
        payload: String,
    ) -> Result<(), YdbError> {
        self.plain_write(sim, actor, producer_id, None, payload)
    }

    /// [`Ydb::write`] with an explicit sequence number (`auto_seqno=False`), deduplicated.
    pub fn write_with_seq_no(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        producer_id: i64,
        seq_no: i64,
        payload: String,
    ) -> Result<(), YdbError> {
        self.plain_write(sim, actor, producer_id, Some(seq_no), payload)
    }

    fn plain_write(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        producer_id: i64,
        seq_no: Option<i64>,
        payload: String,
    ) -> Result<(), YdbError> {
        let fault = self.effect_call(sim);
        let mut written = false;
        let message_text = payload.clone();
        if fault != CallFault::KilledNotApplied {
            let message = PendingMessage {
                producer_id,
                seq_no,
                payload,
            };
            let sql = self.conn.unchecked_transaction().expect("begin write");
            written = self.append(&message);
            sql.commit().expect("commit write");
            if !written {
                self.stats.deduplicated += 1;
            }
        }
        let what = if written {
            "message written"
        } else {
            "message skipped (seq_no not above the producer's highest)"
        };
        let line = format!("write {}: ok", describe_payload(producer_id, &message_text));
        self.answer_effect(sim, actor, fault, (line, what), what)
    }

    /// Appends one message unless its `seq_no` is not greater than its producer's highest
    /// written one. Runs inside the caller's SQLite transaction.
    pub(super) fn append(&self, message: &PendingMessage) -> bool {
        let max_seq_no: Option<i64> = self
            .conn
            .prepare_cached("SELECT max_seq_no FROM topic_producers WHERE producer_id = ?1")
            .expect("prepare producer")
            .query_row(params![message.producer_id], |r| r.get(0))
            .optional()
            .expect("read producer");
        let seq_no = match message.seq_no {
            None => max_seq_no.unwrap_or(0) + 1,
            Some(seq_no) if max_seq_no.is_some_and(|max| seq_no <= max) => return false,
            Some(seq_no) => seq_no,
        };
        let partition = self.partition_of(message.producer_id);
        self.conn
            .prepare_cached(
                "INSERT INTO topic_messages (partition, offset, producer_id, seq_no, payload)
                 SELECT ?1, COALESCE(MAX(offset) + 1, 0), ?2, ?3, ?4
                 FROM topic_messages WHERE partition = ?1",
            )
            .expect("prepare append")
            .execute(params![
                partition,
                message.producer_id,
                seq_no,
                message.payload
            ])
            .expect("append message");
        self.conn
            .prepare_cached(
                "INSERT INTO topic_producers (producer_id, max_seq_no) VALUES (?1, ?2)
                 ON CONFLICT (producer_id) DO UPDATE SET max_seq_no = excluded.max_seq_no",
            )
            .expect("prepare producer update")
            .execute(params![message.producer_id, seq_no])
            .expect("update producer");
        true
    }
}
