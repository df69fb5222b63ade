//! A read-write transaction ([`Tx`]): the reads it locked, and the upserts, messages and
//! offset advances it buffers until [`Ydb::commit`](crate::Ydb::commit); and what a
//! successful commit did ([`CommitInfo`]).

use crate::OffsetRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PendingMessage {
    pub(crate) producer_id: i64,
    /// `None`: the writer numbers the message itself (the SDK's `auto_seqno`).
    pub(crate) seq_no: Option<i64>,
    pub(crate) payload: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowRead {
    pub(crate) table: &'static str,
    pub(crate) key: (i64, i64),
    pub(crate) version: i64,
}

/// A read-write transaction (serializable, optimistic). Reads record row versions; writes,
/// messages and offset advances are buffered and applied together by [`Ydb::commit`](crate::Ydb::commit).
#[derive(Debug, Default)]
pub struct Tx {
    pub(crate) reads: Vec<RowRead>,
    pub(crate) upserts: Vec<(&'static str, (i64, i64), String)>,
    pub(crate) messages: Vec<PendingMessage>,
    /// Offset ranges read within this transaction, per consumer, in reading order.
    pub(crate) offsets: Vec<(&'static str, OffsetRange)>,
    /// Consumers whose reader session this transaction read through, with the session's
    /// number at the time (a session that has ended since fails the commit).
    pub(crate) read_through: Vec<(&'static str, u64)>,
}

impl Tx {
    /// The transactional writer (`tx_writer(tx, path, producer_id=...).write(...)`): the
    /// message is attached to this transaction and becomes visible only when it commits.
    /// The writer numbers it itself (the SDK's default, `auto_seqno`): one above the highest
    /// sequence number the topic holds for `producer_id` when the transaction commits, so a
    /// message written again by a retried transaction is stored again.
    pub fn write(&mut self, producer_id: i64, payload: String) {
        self.messages.push(PendingMessage {
            producer_id,
            seq_no: None,
            payload,
        });
    }

    /// The transactional writer with an explicit sequence number (`auto_seqno=False`): the
    /// topic skips the message when `seq_no` is not above the highest it holds for
    /// `producer_id` (deduplication).
    pub fn write_with_seq_no(&mut self, producer_id: i64, seq_no: i64, payload: String) {
        self.messages.push(PendingMessage {
            producer_id,
            seq_no: Some(seq_no),
            payload,
        });
    }

    /// True when the transaction has nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.upserts.is_empty() && self.messages.is_empty() && self.offsets.is_empty()
    }
}

/// What a successful commit did to the topic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitInfo {
    pub messages_written: usize,
    /// Messages skipped because their `seq_no` was not greater than their producer's
    /// highest written one.
    pub messages_deduplicated: usize,
}
