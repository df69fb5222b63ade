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

use labkit::fault::{Glyph, Sim};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::fmt;

/// The status codes this simulator returns: YDB's own operation statuses, and the gRPC
/// transport's `UNAVAILABLE` for a connection that broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusCode {
    /// 400040. Retryable: retry the entire transaction. Nothing was applied.
    Aborted,
    /// Status 400060, retryable with a slow backoff, idempotent or not: the request was
    /// refused before it ran (a shard's queue was full). Nothing was applied.
    Overloaded,
    /// The transport's gRPC code 14: the connection broke, and the server may or may not
    /// have applied the call. YDB's table calls it conditionally retryable; the Python SDK
    /// retries it whatever `idempotent` says (as `issues.Unavailable` on a stream,
    /// `issues.ConnectionLost` on a unary call).
    Unavailable,
    /// 400170, a status the server answers: it could not determine the outcome.
    /// Conditionally retryable: the SDK retries it only when the call is idempotent.
    Undetermined,
    /// The SDK's own `ClientInternalError`: the client failed the transaction before it
    /// sent the commit (a batch it read belongs to a reader session that has since ended).
    /// Nothing was applied; retryable with a fast backoff.
    ClientInternalError,
}

impl StatusCode {
    pub fn name(self) -> &'static str {
        match self {
            StatusCode::Aborted => "ABORTED",
            StatusCode::Overloaded => "OVERLOADED",
            StatusCode::Unavailable => "UNAVAILABLE",
            StatusCode::Undetermined => "UNDETERMINED",
            StatusCode::ClientInternalError => "CLIENT_INTERNAL_ERROR",
        }
    }

    /// True when the status says nothing about whether the call was applied.
    pub fn is_indefinite(self) -> bool {
        matches!(self, StatusCode::Unavailable | StatusCode::Undetermined)
    }
}

/// An error from the simulated server: a status code and its issue text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YdbError {
    pub status: StatusCode,
    pub issue: &'static str,
}

/// The issue text YDB puts in an `ABORTED` caused by a lock conflict.
pub const TLI: &str = "Transaction locks invalidated";

impl YdbError {
    /// True for the optimistic-lock conflict ("TLI").
    pub fn is_locks_invalidated(&self) -> bool {
        self.status == StatusCode::Aborted && self.issue == TLI
    }
}

impl fmt::Display for YdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status.name(), self.issue)
    }
}

impl std::error::Error for YdbError {}

/// Which faults the simulated cluster injects. Each enabled kind adds options to the fault
/// core's choices; a disabled kind adds none, so a fault-free run makes no choices at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chaos {
    /// Queries, topic reads, plain writes and plain offset commits can fail `UNAVAILABLE`
    /// (a connection killed); for a plain write or offset commit, sometimes after it was
    /// applied.
    pub kill_connections: bool,
    /// Commits can be refused (`OVERLOADED`), fail `UNAVAILABLE` (the connection broke) or
    /// end `UNDETERMINED` (the server could not tell): both applied or not.
    pub commit_faults: bool,
    /// A concurrent writer can break a transaction's locks just before it commits.
    pub lock_breaks: bool,
}

impl Chaos {
    pub const NONE: Chaos = Chaos {
        kill_connections: false,
        commit_faults: false,
        lock_breaks: false,
    };
    pub const ALL: Chaos = Chaos {
        kill_connections: true,
        commit_faults: true,
        lock_breaks: true,
    };
}

/// One message as a reader sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub partition: i64,
    pub offset: i64,
    pub producer_id: i64,
    pub seq_no: i64,
    pub payload: String,
}

/// A range of offsets `[from, to)` of one partition, read by a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetRange {
    pub partition: i64,
    pub from: i64,
    pub to: i64,
}

/// A batch of messages and the offsets it covers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub messages: Vec<Message>,
    pub ranges: Vec<OffsetRange>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct PendingMessage {
    producer_id: i64,
    /// `None`: the writer numbers the message itself (the SDK's `auto_seqno`).
    seq_no: Option<i64>,
    payload: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct RowRead {
    table: &'static str,
    key: (i64, i64),
    version: i64,
}

/// A read-write transaction (serializable, optimistic). Reads record row versions; writes,
/// messages and offset advances are buffered and applied together by [`Ydb::commit`].
#[derive(Debug, Default)]
pub struct Tx {
    reads: Vec<RowRead>,
    upserts: Vec<(&'static str, (i64, i64), String)>,
    messages: Vec<PendingMessage>,
    /// Offset ranges read within this transaction, per consumer, in reading order.
    offsets: Vec<(&'static str, OffsetRange)>,
    /// Consumers whose reader session this transaction read through, with the session's
    /// number at the time (a session that has ended since fails the commit).
    read_through: Vec<(&'static str, u64)>,
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

/// Counters the server keeps (what a dashboard would show).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    pub commits: u64,
    pub locks_invalidated: u64,
    /// Commits refused with `OVERLOADED`.
    pub overloaded: u64,
    /// Calls that failed `UNAVAILABLE` (a killed connection), applied or not.
    pub unavailable: u64,
    pub undetermined: u64,
    /// Messages handed to a consumer again after an earlier delivery was rolled back.
    pub redelivered: u64,
    pub deduplicated: u64,
    /// Reader sessions that ended (the next one starts at the committed offset).
    pub read_sessions_ended: u64,
    /// Commits the client failed before sending them (`CLIENT_INTERNAL_ERROR`).
    pub client_errors: u64,
}

const COMMIT_ALL: [&str; 7] = [
    "ok",
    "a concurrent writer breaks the locks",
    "OVERLOADED (refused, not applied)",
    "UNAVAILABLE (connection lost, applied)",
    "UNAVAILABLE (connection lost, not applied)",
    "UNDETERMINED (applied; the server cannot tell)",
    "UNDETERMINED (not applied)",
];
const COMMIT_FAULTS: [CommitFault; 7] = [
    CommitFault::None,
    CommitFault::BreakLocks,
    CommitFault::Overloaded,
    CommitFault::UnavailableApplied,
    CommitFault::UnavailableNotApplied,
    CommitFault::UndeterminedApplied,
    CommitFault::UndeterminedNotApplied,
];
const READ_CALL: [&str; 2] = ["ok", "UNAVAILABLE (connection killed)"];
const EFFECT_CALL: [&str; 3] = [
    "ok",
    "UNAVAILABLE (connection killed, not applied)",
    "UNAVAILABLE (connection killed, applied)",
];

/// What the fault core decided for one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CommitFault {
    None,
    BreakLocks,
    Overloaded,
    UnavailableApplied,
    UnavailableNotApplied,
    UndeterminedApplied,
    UndeterminedNotApplied,
}

impl CommitFault {
    /// The error the client sees after the commit was applied, if any.
    fn after_applied(self) -> Option<YdbError> {
        match self {
            CommitFault::UnavailableApplied => Some(UNAVAILABLE_COMMIT),
            CommitFault::UndeterminedApplied => Some(UNDETERMINED_COMMIT),
            _ => None,
        }
    }
}

const UNAVAILABLE_COMMIT: YdbError = YdbError {
    status: StatusCode::Unavailable,
    issue: "connection lost during commit",
};
const UNDETERMINED_COMMIT: YdbError = YdbError {
    status: StatusCode::Undetermined,
    issue: "commit outcome unknown",
};

/// What the fault core decided for one plain call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CallFault {
    None,
    KilledNotApplied,
    KilledApplied,
}

/// The simulated database: topic, offsets and tables in one SQLite connection.
pub struct Ydb {
    conn: Connection,
    partitions: i64,
    chaos: Chaos,
    stats: ServerStats,
    /// (consumer, partition) -> one past the highest offset ever handed out.
    handed_out: BTreeMap<(&'static str, i64), i64>,
    /// The live reader sessions: (consumer, partition) -> the next offset the session
    /// delivers. Absent: no session yet, the next one starts at the committed offset.
    sessions: BTreeMap<(&'static str, i64), i64>,
    /// Per consumer, how many of its reader sessions have ended: the number of the live
    /// (or next) session.
    session_number: BTreeMap<&'static str, u64>,
    /// The last producer id [`Ydb::random_producer_id`] handed out.
    last_random_producer_id: i64,
}

/// The first producer id a writer without one of its own gets: far from the small ids an
/// application names its producers with, as a random UUID would be.
pub const RANDOM_PRODUCER_IDS_FROM: i64 = 1 << 40;

/// The topic's path, for timelines.
pub const TOPIC: &str = "/Root/testdb/slo_topic_tx";

impl Ydb {
    /// A fresh in-memory database with a topic of `partitions` partitions.
    pub fn in_memory(partitions: i64, chaos: Chaos) -> Ydb {
        let conn = Connection::open_in_memory().expect("open in-memory SQLite");
        Ydb::with_connection(conn, partitions, chaos)
    }

    /// A database on an existing connection (a file, for durability experiments).
    pub fn with_connection(conn: Connection, partitions: i64, chaos: Chaos) -> Ydb {
        assert!(partitions > 0, "a topic has at least one partition");
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS topic_messages (
                 partition INTEGER NOT NULL, offset INTEGER NOT NULL,
                 producer_id INTEGER NOT NULL, seq_no INTEGER NOT NULL, payload TEXT NOT NULL,
                 PRIMARY KEY (partition, offset));
             CREATE TABLE IF NOT EXISTS topic_producers (
                 producer_id INTEGER PRIMARY KEY, max_seq_no INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS topic_consumer_offsets (
                 consumer TEXT NOT NULL, partition INTEGER NOT NULL, committed INTEGER NOT NULL,
                 PRIMARY KEY (consumer, partition));",
        )
        .expect("create the topic's tables");
        Ydb {
            conn,
            partitions,
            chaos,
            stats: ServerStats::default(),
            handed_out: BTreeMap::new(),
            sessions: BTreeMap::new(),
            session_number: BTreeMap::new(),
            last_random_producer_id: RANDOM_PRODUCER_IDS_FROM - 1,
        }
    }

    /// Creates an application table `name (k1, k2, value, version)`.
    pub fn create_table(&mut self, name: &'static str) {
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "table names are plain identifiers"
        );
        self.conn
            .execute_batch(&format!(
                "CREATE TABLE IF NOT EXISTS {name} (
                     k1 INTEGER NOT NULL, k2 INTEGER NOT NULL, value TEXT NOT NULL,
                     version INTEGER NOT NULL, PRIMARY KEY (k1, k2));"
            ))
            .expect("create table");
    }

    pub fn partitions(&self) -> i64 {
        self.partitions
    }

    /// The producer id a writer gets when the application names none: the SDK's default is
    /// a random one (`producer_id = uuid.uuid4().hex`), new for every writer, so a process
    /// that restarts with the default starts a new `(topic, producer_id)` pair, with no
    /// highest sequence number to deduplicate against. Here it is a fresh id no writer has
    /// used (deterministic, as every choice in the simulator is).
    pub fn random_producer_id(&mut self) -> i64 {
        self.last_random_producer_id += 1;
        self.last_random_producer_id
    }

    /// The partition a producer writes to.
    pub fn partition_of(&self, producer_id: i64) -> i64 {
        producer_id.rem_euclid(self.partitions)
    }

    pub fn stats(&self) -> ServerStats {
        self.stats
    }

    /// The SQLite connection, for independent audits that read tables back.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Starts a serializable read-write transaction.
    pub fn begin(&self) -> Tx {
        Tx::default()
    }

    /// A call that changes nothing (a query, a topic read): it answers, or its connection
    /// is killed.
    fn read_call(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        what: &str,
    ) -> Result<(), YdbError> {
        if self.chaos.kill_connections && sim.choose("ydb:call", &READ_CALL) == 1 {
            self.stats.unavailable += 1;
            sim.event(actor, Glyph::Error, || {
                (
                    format!("{what}: UNAVAILABLE"),
                    "connection killed; the open transaction is gone".into(),
                )
            });
            return Err(KILLED);
        }
        Ok(())
    }

    /// A call that changes something on its own (a plain write, a plain offset commit):
    /// when its connection is killed, the client cannot tell whether it was applied.
    fn effect_call(&mut self, sim: &mut Sim) -> CallFault {
        if !self.chaos.kill_connections {
            return CallFault::None;
        }
        match sim.choose("ydb:call", &EFFECT_CALL) {
            0 => CallFault::None,
            1 => CallFault::KilledNotApplied,
            _ => CallFault::KilledApplied,
        }
    }

    fn row(&self, table: &str, key: (i64, i64)) -> Option<(String, i64)> {
        self.conn
            .prepare_cached(&format!(
                "SELECT value, version FROM {table} WHERE k1 = ?1 AND k2 = ?2"
            ))
            .expect("prepare select")
            .query_row(params![key.0, key.1], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .expect("select row")
    }

    /// `SELECT value FROM table WHERE key`: reads the committed row and records its version
    /// as an optimistic lock of `tx`.
    pub fn select(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &mut Tx,
        table: &'static str,
        key: (i64, i64),
    ) -> Result<Option<String>, YdbError> {
        self.read_call(sim, actor, "SELECT")?;
        let found = self.row(table, key);
        let version = found.as_ref().map_or(0, |(_, v)| *v);
        tx.reads.push(RowRead {
            table,
            key,
            version,
        });
        Ok(found.map(|(value, _)| value))
    }

    /// `UPSERT INTO table`: buffered in `tx`, applied at commit.
    pub fn upsert(&self, tx: &mut Tx, table: &'static str, key: (i64, i64), value: String) {
        tx.upserts.push((table, key, value));
    }

    fn committed_offset(&self, consumer: &str, partition: i64) -> i64 {
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

    fn session_of(&self, consumer: &'static str) -> u64 {
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

    /// What the client sees of a plain call, and the timeline line beside it: `ok` is the
    /// line (client, truth) when it answers, `client` names the call when it does not.
    fn answer_effect(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        fault: CallFault,
        ok: (String, &'static str),
        applied: &'static str,
    ) -> Result<(), YdbError> {
        let (ok_line, ok_truth) = ok;
        match fault {
            CallFault::None => {
                sim.event(actor, Glyph::Normal, || (ok_line, ok_truth.into()));
                Ok(())
            }
            CallFault::KilledApplied | CallFault::KilledNotApplied => {
                self.stats.unavailable += 1;
                let truth = if fault == CallFault::KilledApplied {
                    format!("connection killed after it was applied ({applied})")
                } else {
                    "connection killed; not applied".to_string()
                };
                sim.event(actor, Glyph::Indefinite, || {
                    let call = ok_line.trim_end_matches(": ok");
                    (format!("{call}: UNAVAILABLE"), truth)
                });
                Err(KILLED)
            }
        }
    }

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
    fn append(&self, message: &PendingMessage) -> bool {
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

    fn commit_fault(&self, sim: &mut Sim, tx: &Tx) -> CommitFault {
        let locks = self.chaos.lock_breaks && !tx.reads.is_empty();
        let faults = self.chaos.commit_faults;
        // The options this commit can meet, in COMMIT_ALL's order (option 0 is "ok").
        let offered: Vec<usize> = (0..COMMIT_ALL.len())
            .filter(|&i| match i {
                0 => true,
                1 => locks,
                _ => faults,
            })
            .collect();
        if offered.len() == 1 {
            return CommitFault::None;
        }
        let labels: Vec<&'static str> = offered.iter().map(|&i| COMMIT_ALL[i]).collect();
        COMMIT_FAULTS[offered[sim.choose("ydb:commit", &labels)]]
    }

    /// Commits `tx`: checks its locks and offsets, then applies its upserts, messages and
    /// offset advances in one SQLite transaction — or none of them. Any error ends the
    /// reader sessions `tx` read through (the SDK reconnects them), so their uncommitted
    /// messages come back.
    pub fn commit(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: Tx,
    ) -> Result<CommitInfo, YdbError> {
        let result = match self.expired_session(&tx) {
            Some(consumer) => Err(self.fail_expired(sim, actor, consumer)),
            None => self.try_commit(sim, actor, &tx),
        };
        if result.is_err() {
            for (consumer, _) in &tx.read_through {
                self.end_read_session(sim, actor, consumer);
            }
        }
        result
    }

    /// Rolls `tx` back: nothing of it is applied, and the reader sessions it read through
    /// end, as the SDK's retry loop does after a failed attempt.
    pub fn rollback(&mut self, sim: &mut Sim, actor: &'static str, tx: Tx) {
        if tx.read_through.is_empty() {
            return;
        }
        sim.note(actor, || "ROLLBACK".into());
        for (consumer, _) in &tx.read_through {
            self.end_read_session(sim, actor, consumer);
        }
    }

    /// A consumer whose reader session `tx` read through has ended since: the batch's
    /// offsets belong to a session that no longer exists.
    fn expired_session(&self, tx: &Tx) -> Option<&'static str> {
        tx.read_through
            .iter()
            .find(|(consumer, session)| self.session_of(consumer) != *session)
            .map(|(consumer, _)| *consumer)
    }

    /// The SDK fails a transaction whose batch belongs to an ended reader session before it
    /// sends the commit: nothing is applied.
    fn fail_expired(&mut self, sim: &mut Sim, actor: &'static str, consumer: &str) -> YdbError {
        self.stats.client_errors += 1;
        sim.event(actor, Glyph::Error, || {
            (
                "COMMIT: CLIENT_INTERNAL_ERROR".into(),
                format!("{consumer}'s read session ended after the read; commit not sent"),
            )
        });
        YdbError {
            status: StatusCode::ClientInternalError,
            issue: "Topic reader partition session expired before tx commit",
        }
    }

    fn try_commit(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &Tx,
    ) -> Result<CommitInfo, YdbError> {
        let fault = self.commit_fault(sim, tx);
        match fault {
            CommitFault::Overloaded => {
                self.stats.overloaded += 1;
                sim.event(actor, Glyph::Error, || {
                    (
                        "COMMIT: OVERLOADED".into(),
                        "refused before it ran; nothing applied".into(),
                    )
                });
                return Err(YdbError {
                    status: StatusCode::Overloaded,
                    issue: "a shard's queue is full",
                });
            }
            CommitFault::UnavailableNotApplied => {
                self.stats.unavailable += 1;
                sim.event(actor, Glyph::Indefinite, || {
                    (
                        "COMMIT: UNAVAILABLE".into(),
                        "connection lost before the commit ran; not applied".into(),
                    )
                });
                return Err(UNAVAILABLE_COMMIT);
            }
            CommitFault::UndeterminedNotApplied => {
                self.stats.undetermined += 1;
                sim.event(actor, Glyph::Indefinite, || {
                    ("COMMIT: UNDETERMINED".into(), "not applied".into())
                });
                return Err(UNDETERMINED_COMMIT);
            }
            CommitFault::BreakLocks => {
                // A concurrent transaction (the breaker) writes the first row this one read:
                // a real write, so the lock check below finds the changed version.
                let read = &tx.reads[0];
                // (A row that did not exist yet is created with the value "0".)
                self.conn
                    .execute(
                        &format!(
                            "INSERT INTO {} (k1, k2, value, version) VALUES (?1, ?2, '0', 1)
                             ON CONFLICT (k1, k2) DO UPDATE SET version = version + 1",
                            read.table
                        ),
                        params![read.key.0, read.key.1],
                    )
                    .expect("breaker write");
                sim.event(actor, Glyph::Fault, || {
                    (
                        String::new(),
                        format!("a concurrent writer updates {}{:?}", read.table, read.key),
                    )
                });
            }
            CommitFault::None
            | CommitFault::UnavailableApplied
            | CommitFault::UndeterminedApplied => {}
        }
        let sql = self.conn.unchecked_transaction().expect("begin commit");
        if let Some(conflict) = self.check_locks(tx) {
            drop(sql); // rolls back
            self.stats.locks_invalidated += 1;
            sim.event(actor, Glyph::Error, || {
                (format!("COMMIT: ABORTED ({TLI})"), conflict)
            });
            return Err(YdbError {
                status: StatusCode::Aborted,
                issue: TLI,
            });
        }
        let mut info = CommitInfo::default();
        for (table, key, value) in &tx.upserts {
            self.conn
                .prepare_cached(&format!(
                    "INSERT INTO {table} (k1, k2, value, version) VALUES (?1, ?2, ?3, 1)
                     ON CONFLICT (k1, k2) DO UPDATE SET value = excluded.value,
                     version = version + 1"
                ))
                .expect("prepare upsert")
                .execute(params![key.0, key.1, value])
                .expect("upsert");
        }
        for message in &tx.messages {
            if self.append(message) {
                info.messages_written += 1;
            } else {
                info.messages_deduplicated += 1;
            }
        }
        for (consumer, range) in &tx.offsets {
            self.conn
                .prepare_cached(
                    "INSERT INTO topic_consumer_offsets (consumer, partition, committed)
                     VALUES (?1, ?2, ?3) ON CONFLICT (consumer, partition)
                     DO UPDATE SET committed = excluded.committed",
                )
                .expect("prepare offset")
                .execute(params![consumer, range.partition, range.to])
                .expect("advance offset");
        }
        sql.commit().expect("commit");
        self.stats.commits += 1;
        sim.event(actor, Glyph::Normal, || {
            let mut truth = Vec::new();
            for message in &tx.messages {
                truth.push(format!(
                    "message {}",
                    describe_payload(message.producer_id, &message.payload)
                ));
            }
            for (table, key, _) in &tx.upserts {
                truth.push(format!("{table}{key:?}"));
            }
            for (_, range) in &tx.offsets {
                truth.push(format!("offset p{} -> {}", range.partition, range.to));
            }
            ("COMMIT".into(), format!("applied: {}", truth.join(", ")))
        });
        self.stats.deduplicated += info.messages_deduplicated as u64;
        if let Some(error) = fault.after_applied() {
            if error.status == StatusCode::Unavailable {
                self.stats.unavailable += 1;
            } else {
                self.stats.undetermined += 1;
            }
            sim.event(actor, Glyph::Indefinite, || {
                let truth = match error.status {
                    StatusCode::Undetermined => "applied; the server could not confirm it",
                    _ => "applied; response lost",
                };
                (format!("COMMIT: {}", error.status.name()), truth.into())
            });
            return Err(error);
        }
        Ok(info)
    }

    /// The first lock of `tx` that no longer holds, described; `None` when all hold. The
    /// offset ranges of each (consumer, partition) must continue its committed offset, one
    /// after the other.
    fn check_locks(&self, tx: &Tx) -> Option<String> {
        for read in &tx.reads {
            let now = self.row(read.table, read.key).map_or(0, |(_, v)| v);
            if now != read.version {
                return Some(format!(
                    "{}{:?} read at version {}, now {}",
                    read.table, read.key, read.version, now
                ));
            }
        }
        let mut expected: BTreeMap<(&str, i64), i64> = BTreeMap::new();
        for (consumer, range) in &tx.offsets {
            let next = expected
                .entry((consumer, range.partition))
                .or_insert_with(|| self.committed_offset(consumer, range.partition));
            if *next != range.from {
                return Some(format!(
                    "partition {} read from offset {}, but the committed offset is at {}",
                    range.partition, range.from, next
                ));
            }
            *next = range.to;
        }
        None
    }

    /// One past the last offset of each partition (0 for an empty partition).
    pub fn end_offsets(&self) -> Vec<i64> {
        (0..self.partitions)
            .map(|partition| {
                self.conn
                    .prepare_cached(
                        "SELECT COALESCE(MAX(offset) + 1, 0) FROM topic_messages WHERE partition = ?1",
                    )
                    .expect("prepare end offset")
                    .query_row(params![partition], |r| r.get(0))
                    .expect("end offset")
            })
            .collect()
    }

    /// Every message in the topic, partition by partition (for audits).
    pub fn all_messages(&self) -> Vec<Message> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT partition, offset, producer_id, seq_no, payload FROM topic_messages
                 ORDER BY partition, offset",
            )
            .expect("prepare scan");
        stmt.query_map([], |r| {
            Ok(Message {
                partition: r.get(0)?,
                offset: r.get(1)?,
                producer_id: r.get(2)?,
                seq_no: r.get(3)?,
                payload: r.get(4)?,
            })
        })
        .expect("scan")
        .collect::<Result<_, _>>()
        .expect("scan")
    }

    /// Every row of an application table, ordered by key (for audits).
    pub fn all_rows(&self, table: &str) -> Vec<((i64, i64), String)> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT k1, k2, value FROM {table} ORDER BY k1, k2"
            ))
            .expect("prepare rows");
        stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    }
}

/// The error a killed connection gives a plain call.
const KILLED: YdbError = YdbError {
    status: StatusCode::Unavailable,
    issue: "connection killed",
};

/// A message in a timeline: `writer#seq_no` from a payload `writer_id:seq_no:…`, else the
/// producer and the payload's first characters.
fn describe_payload(producer_id: i64, payload: &str) -> String {
    let mut parts = payload.split(':');
    match (parts.next(), parts.next()) {
        (Some(writer), Some(seq_no)) => format!("{writer}#{seq_no}"),
        _ => format!(
            "{producer_id}:{}",
            payload.chars().take(8).collect::<String>()
        ),
    }
}

/// A batch in a timeline: its messages as `writer#seq_no` and its offset ranges.
fn describe(batch: &Batch) -> String {
    if batch.messages.is_empty() {
        return "empty".into();
    }
    let messages: Vec<String> = batch
        .messages
        .iter()
        .map(|m| describe_payload(m.producer_id, &m.payload))
        .collect();
    let ranges: Vec<String> = batch
        .ranges
        .iter()
        .map(|r| format!("p{}[{}..{})", r.partition, r.from, r.to))
        .collect();
    format!("{} at {}", messages.join(" "), ranges.join(" "))
}

/// The retry settings of the SDK's retry loop (`ydb.RetrySettings`): which errors are
/// retried and after how many ticks. The classes follow the Python SDK (3.31.2,
/// `ydb/_errors.py`), which differs from YDB's status-code table for a broken connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetrySettings {
    /// Retries after the first attempt (`max_retries`).
    pub max_retries: u32,
    /// The first delay of the fast backoff, in ticks; doubled on each retry.
    pub fast_backoff: u64,
    /// The first delay of the slow backoff (`OVERLOADED`), in ticks; doubled on each retry.
    pub slow_backoff: u64,
    /// Whether the operation may be repeated after the server answered `UNDETERMINED`:
    /// true only when running it twice has the effect of running it once. The SDK does not
    /// consult it for a broken connection (`UNAVAILABLE`), which it always retries.
    pub idempotent: bool,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            max_retries: 10,
            fast_backoff: 2,
            slow_backoff: 8,
            idempotent: true,
        }
    }
}

impl RetrySettings {
    /// After `attempt` failed attempts (1 for the first failure) with `error`: `Some(delay)`
    /// to retry after `delay` ticks, `None` to give up.
    pub fn next_delay(&self, error: &YdbError, attempt: u32) -> Option<u64> {
        if attempt > self.max_retries {
            return None;
        }
        let base = match error.status {
            StatusCode::Aborted | StatusCode::ClientInternalError | StatusCode::Unavailable => {
                Some(self.fast_backoff)
            }
            StatusCode::Overloaded => Some(self.slow_backoff),
            StatusCode::Undetermined => self.idempotent.then_some(self.fast_backoff),
        };
        base.map(|base| base << (attempt - 1).min(6))
    }
}

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
