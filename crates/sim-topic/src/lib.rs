//! A transactional topic modelled on YDB topics with transactions, small enough to read.
//!
//! One [`Ydb`] is one database: a topic (partitions, messages, per-producer sequence numbers,
//! per-consumer committed offsets) and the application's tables live in **one SQLite
//! database**, so a commit that writes messages and rows, or advances an offset and writes
//! rows, is one real SQLite transaction.
//!
//! What is modelled, in YDB's vocabulary (each behaviour is pinned by a test in
//! `tests.rs` that cites the documentation sentence or SDK test it follows):
//!
//! * **Topic, partitions, offsets.** A message gets the next offset of its partition; a
//!   producer always writes to the same partition (`producer_id % partitions`), so its
//!   messages stay in order.
//! * **Producers and sequence numbers.** A message carries `(producer_id, seq_no)`; the
//!   topic keeps each producer's highest written `seq_no`. By default the writer numbers a
//!   message itself, one above that highest number (the Python SDK's `auto_seqno`), so a
//!   message written again by a retried transaction is stored again. A message with an
//!   explicit `seq_no` that is not greater than the highest is skipped (deduplication),
//!   whether or not that exact number was ever written.
//! * **The transactional writer** ([`Tx::write`], the SDK's `tx_writer`): messages are
//!   buffered in the transaction and become visible only when it commits.
//! * **The reader session.** A consumer reads through a live session that keeps its own
//!   read position: each read continues after the previous one, whether or not the
//!   previous messages were committed. A *new* session starts at the consumer's committed
//!   offset, so uncommitted messages come back only after the session ends
//!   ([`Ydb::end_read_session`]): a killed read stream, or a transaction that read through
//!   the session and then rolled back or failed to commit (the SDK reconnects the reader).
//! * **Reading within a transaction** ([`Ydb::receive_batch_with_tx`], as often as needed):
//!   each batch's offset range is attached to the transaction and committed with it. A
//!   transaction whose batch came from a session that has ended since fails before its
//!   commit is sent (`CLIENT_INTERNAL_ERROR`, nothing applied). At commit the ranges of a
//!   partition must continue the consumer's committed offset; otherwise the commit is
//!   `ABORTED` (another transaction committed those offsets first).
//! * **Optimistic locks.** [`Ydb::select`] records the version of the row it read; at commit
//!   every recorded version is checked, and a changed one ends the transaction with
//!   `ABORTED` / "Transaction locks invalidated" (retryable: retry the entire transaction).
//! * **Chaos**, decided by the fault core ([`labkit::fault::Sim`]) so every schedule is
//!   seeded and replayable: a killed connection fails a call with the transport's
//!   `UNAVAILABLE`, and for a call that changes something (a commit, a plain write, a plain
//!   offset commit) that says nothing about whether the server applied it: it sometimes
//!   did. A commit can also be refused with `OVERLOADED` (definite: nothing applied),
//!   aborted because a concurrent writer broke its locks, or end `UNDETERMINED` (applied or
//!   not: the client cannot tell).
//! * **Producer ids.** Deduplication and automatic numbering are per `producer_id`. The
//!   SDK gives a writer a random one unless the application names it
//!   ([`Ydb::random_producer_id`]): a writer restarted under a new id starts a new
//!   sequence, so nothing it writes again is recognised.
//! * **The retry settings** ([`RetrySettings`]): which status codes are retried, with which
//!   backoff, on the simulated clock, as the Python SDK's `ydb/_errors.py` decides: a
//!   transport `UNAVAILABLE` (a broken connection) is retried whatever `idempotent` says,
//!   and only the server's `UNDETERMINED` waits for `idempotent=True`.
//!
//! Simplifications (said again in the chapter):
//!
//! * One process, one SQLite connection; there are no nodes, only the faults a node failure
//!   causes for a client. Time is a logical tick count, never the wall clock.
//! * Application tables have one shape: a two-integer key and a text value
//!   (`k1, k2, value`). Reads inside a transaction see committed rows, not the
//!   transaction's own buffered upserts (the lab never reads what it wrote).
//! * An `UNAVAILABLE` inside a transaction breaks the whole transaction (the SDK's retry
//!   loop then re-runs it from the start), rather than retrying the one query.
//! * One reader session per consumer reads all partitions; there is no partition
//!   rebalancing between readers.
//! * An automatic sequence number is assigned when the transaction commits; the SDK's
//!   writer assigns it when the message is written, continuing from the highest number the
//!   server reported when the writer started. For one writer at a time the numbers are the
//!   same.
//! * Backoffs follow YDB's status table (fast for `ABORTED`, `UNAVAILABLE`,
//!   `UNDETERMINED`); the Python SDK waits with its slow backoff after `ABORTED`,
//!   `UNDETERMINED` and a unary call's `ConnectionLost`. A delay changes when an attempt
//!   runs, not what the retry loop decides.
//! * A response lost on the network reaches the client as `UNAVAILABLE`; the client's own
//!   deadline (`DEADLINE_EXCEEDED`, `issues.DeadlineExceed`, which the SDK does not retry)
//!   is not modelled.
//! * Dropping a [`Tx`] without [`Ydb::commit`] or [`Ydb::rollback`] discards it and tells
//!   nobody: its reader session goes on past what it read until the session ends.

mod chaos;
mod error;
mod message;
mod retry;
mod tx;
mod ydb;

pub use chaos::Chaos;
pub use error::{StatusCode, TLI, YdbError};
pub use message::{Batch, Message, OffsetRange};
pub use retry::RetrySettings;
pub use tx::{CommitInfo, Tx};
pub use ydb::{RANDOM_PRODUCER_IDS_FROM, ServerStats, TOPIC, Ydb};

/// The version of the bundled SQLite library.
pub fn sqlite_version() -> String {
    rusqlite::version().to_string()
}

/// The `p`-th percentile (0–100) of `values` by the nearest-rank method; 0 when empty.
pub fn percentile(values: &[u64], p: u64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

#[cfg(test)]
mod tests;
