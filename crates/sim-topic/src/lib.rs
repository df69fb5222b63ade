//! A transactional topic modelled on YDB topics with transactions, small enough to read.
//!
//! One [`Ydb`] is one database: a topic (partitions, messages, per-producer sequence numbers,
//! per-consumer committed offsets) and the application's tables live in **one SQLite
//! database**, so a commit that writes messages and rows, or advances an offset and writes
//! rows, is one real SQLite transaction.
//!
//! What is modelled, in YDB's vocabulary (each behaviour is pinned by a test in
//! `tests.rs` that cites the documentation sentence it follows):
//!
//! * **Topic, partitions, offsets.** A message gets the next offset of its partition; a
//!   producer always writes to the same partition (`producer_id % partitions`), so its
//!   messages stay in order.
//! * **Producers and sequence numbers.** A write carries `(producer_id, seq_no)`; the topic
//!   keeps each producer's highest written `seq_no` and skips a write whose `seq_no` is not
//!   higher (exactly-once publishing, deduplication).
//! * **The transactional writer** ([`Tx::write`], the SDK's `tx_writer`): messages are
//!   buffered in the transaction and become visible only when it commits.
//! * **Reading a batch within a transaction** ([`Ydb::receive_batch_with_tx`]): the batch
//!   starts at the consumer's committed offset and the offset advance is attached to the
//!   transaction; a rollback leaves the offset where it was, so the same messages come back.
//! * **Optimistic locks.** [`Ydb::select`] records the version of the row it read; at commit
//!   every recorded version is checked, and a changed one ends the transaction with
//!   `ABORTED` / "Transaction locks invalidated" (retryable: retry the entire transaction).
//! * **Chaos**, decided by the fault core ([`labkit::fault::Sim`]) so every schedule is
//!   seeded and replayable: a killed connection fails an operation with `UNAVAILABLE`; a
//!   commit can fail `UNAVAILABLE` (not applied), be aborted because a concurrent writer
//!   broke its locks, or end `UNDETERMINED` (applied or not: the client cannot tell).
//! * **The retry policy** ([`RetryPolicy`]): which status codes are retried, with which
//!   backoff, on the simulated clock.
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
//! * One consumer reads all partitions; there is no partition rebalancing between readers.

use labkit::fault::{Glyph, Sim};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::fmt;

/// The YDB status codes this simulator returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusCode {
    /// 400040. Retryable: retry the entire transaction.
    Aborted,
    /// 400050. Retryable: a part of the system is not available.
    Unavailable,
    /// 400170. Conditionally retryable: the outcome is unknown.
    Undetermined,
}

impl StatusCode {
    pub fn name(self) -> &'static str {
        match self {
            StatusCode::Aborted => "ABORTED",
            StatusCode::Unavailable => "UNAVAILABLE",
            StatusCode::Undetermined => "UNDETERMINED",
        }
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
    /// Queries and topic reads can fail `UNAVAILABLE` (a connection killed).
    pub kill_connections: bool,
    /// Commits can fail `UNAVAILABLE` or end `UNDETERMINED`.
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
    seq_no: i64,
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
    consumer: Option<&'static str>,
    offsets: Vec<OffsetRange>,
}

impl Tx {
    /// The transactional writer (`tx_writer(tx).write(...)`): the message is attached to this
    /// transaction and becomes visible only when it commits.
    pub fn write(&mut self, producer_id: i64, seq_no: i64, payload: String) {
        self.messages.push(PendingMessage {
            producer_id,
            seq_no,
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
    /// Messages skipped because their producer had already written that `seq_no`.
    pub messages_deduplicated: usize,
}

/// Counters the server keeps (what a dashboard would show).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    pub commits: u64,
    pub locks_invalidated: u64,
    pub unavailable: u64,
    pub undetermined: u64,
    /// Messages handed to a consumer again after an earlier delivery was rolled back.
    pub redelivered: u64,
    pub deduplicated: u64,
}

const COMMIT_ALL: [&str; 5] = [
    "ok",
    "a concurrent writer breaks the locks",
    "UNAVAILABLE (node killed, not applied)",
    "UNDETERMINED (applied, response lost)",
    "UNDETERMINED (not applied)",
];
const COMMIT_NO_LOCKS: [&str; 4] = [
    "ok",
    "UNAVAILABLE (node killed, not applied)",
    "UNDETERMINED (applied, response lost)",
    "UNDETERMINED (not applied)",
];
const COMMIT_LOCKS_ONLY: [&str; 2] = ["ok", "a concurrent writer breaks the locks"];
const CALL: [&str; 2] = ["ok", "UNAVAILABLE (connection killed)"];

/// What the fault core decided for one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CommitFault {
    None,
    BreakLocks,
    UnavailableNotApplied,
    UndeterminedApplied,
    UndeterminedNotApplied,
}

/// The simulated database: topic, offsets and tables in one SQLite connection.
pub struct Ydb {
    conn: Connection,
    partitions: i64,
    chaos: Chaos,
    stats: ServerStats,
    /// (consumer, partition) -> one past the highest offset ever handed out.
    handed_out: BTreeMap<(&'static str, i64), i64>,
}

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

    fn call(&mut self, sim: &mut Sim, actor: &'static str, what: &str) -> Result<(), YdbError> {
        if self.chaos.kill_connections && sim.choose("ydb:call", &CALL) == 1 {
            self.stats.unavailable += 1;
            sim.event(actor, Glyph::Error, || {
                (
                    format!("{what}: UNAVAILABLE"),
                    "connection killed; the open transaction is gone".into(),
                )
            });
            return Err(YdbError {
                status: StatusCode::Unavailable,
                issue: "connection killed",
            });
        }
        Ok(())
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
        self.call(sim, actor, "SELECT")?;
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

    /// Messages of every partition from the committed offsets, at most `max` in all.
    fn read_from_committed(&mut self, consumer: &'static str, max: usize) -> Batch {
        let mut batch = Batch::default();
        for partition in 0..self.partitions {
            let left = max - batch.messages.len();
            if left == 0 {
                break;
            }
            let from = self.committed_offset(consumer, partition);
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
            if let Some(last) = messages.last() {
                let to = last.offset + 1;
                let handed = self.handed_out.entry((consumer, partition)).or_insert(0);
                self.stats.redelivered += (from.max(0)..to).filter(|o| *o < *handed).count() as u64;
                *handed = (*handed).max(to);
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

    /// `receive_batch_with_tx`: reads up to `max` messages from the consumer's committed
    /// offsets and attaches the offset advance to `tx`, so it commits (or rolls back) with
    /// the transaction's table writes.
    pub fn receive_batch_with_tx(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &mut Tx,
        consumer: &'static str,
        max: usize,
    ) -> Result<Batch, YdbError> {
        assert!(tx.offsets.is_empty(), "one batch per transaction");
        self.call(sim, actor, "receive_batch_with_tx")?;
        let batch = self.read_from_committed(consumer, max);
        sim.event(actor, Glyph::Normal, || {
            (
                format!("receive_batch_with_tx: {}", describe(&batch)),
                String::new(),
            )
        });
        tx.consumer = Some(consumer);
        tx.offsets = batch.ranges.clone();
        Ok(batch)
    }

    /// A plain (non-transactional) read of up to `max` messages from the committed offsets.
    /// Nothing moves until [`Ydb::commit_offsets`].
    pub fn read_batch(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        consumer: &'static str,
        max: usize,
    ) -> Result<Batch, YdbError> {
        self.call(sim, actor, "read_batch")?;
        let batch = self.read_from_committed(consumer, max);
        sim.event(actor, Glyph::Normal, || {
            (format!("read_batch: {}", describe(&batch)), String::new())
        });
        Ok(batch)
    }

    /// A plain offset commit (`reader.commit(batch)`), outside any transaction.
    pub fn commit_offsets(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        consumer: &'static str,
        batch: &Batch,
    ) -> Result<(), YdbError> {
        self.call(sim, actor, "commit offsets")?;
        sim.event(actor, Glyph::Normal, || {
            (
                format!("commit offsets: {}", describe(batch)),
                String::new(),
            )
        });
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
        Ok(())
    }

    /// A plain (non-transactional) topic write, acknowledged on its own.
    pub fn write(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        producer_id: i64,
        seq_no: i64,
        payload: String,
    ) -> Result<(), YdbError> {
        self.call(sim, actor, "write")?;
        let message = PendingMessage {
            producer_id,
            seq_no,
            payload,
        };
        let sql = self.conn.unchecked_transaction().expect("begin write");
        let written = self.append(&message);
        sql.commit().expect("commit write");
        if !written {
            self.stats.deduplicated += 1;
        }
        sim.event(actor, Glyph::Normal, || {
            let what = if written { "written" } else { "deduplicated" };
            (
                format!("write {producer_id}#{seq_no}: ok"),
                format!("message {what}"),
            )
        });
        Ok(())
    }

    /// Appends one message unless its producer already wrote that `seq_no`. Runs inside the
    /// caller's SQLite transaction.
    fn append(&self, message: &PendingMessage) -> bool {
        let max_seq_no: Option<i64> = self
            .conn
            .prepare_cached("SELECT max_seq_no FROM topic_producers WHERE producer_id = ?1")
            .expect("prepare producer")
            .query_row(params![message.producer_id], |r| r.get(0))
            .optional()
            .expect("read producer");
        if max_seq_no.is_some_and(|max| message.seq_no <= max) {
            return false;
        }
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
                message.seq_no,
                message.payload
            ])
            .expect("append message");
        self.conn
            .prepare_cached(
                "INSERT INTO topic_producers (producer_id, max_seq_no) VALUES (?1, ?2)
                 ON CONFLICT (producer_id) DO UPDATE SET max_seq_no = excluded.max_seq_no",
            )
            .expect("prepare producer update")
            .execute(params![message.producer_id, message.seq_no])
            .expect("update producer");
        true
    }

    fn commit_fault(&self, sim: &mut Sim, tx: &Tx) -> CommitFault {
        let locks = self.chaos.lock_breaks && !tx.reads.is_empty();
        match (locks, self.chaos.commit_faults) {
            (false, false) => CommitFault::None,
            (true, false) => match sim.choose("ydb:commit", &COMMIT_LOCKS_ONLY) {
                0 => CommitFault::None,
                _ => CommitFault::BreakLocks,
            },
            (false, true) => match sim.choose("ydb:commit", &COMMIT_NO_LOCKS) {
                0 => CommitFault::None,
                1 => CommitFault::UnavailableNotApplied,
                2 => CommitFault::UndeterminedApplied,
                _ => CommitFault::UndeterminedNotApplied,
            },
            (true, true) => match sim.choose("ydb:commit", &COMMIT_ALL) {
                0 => CommitFault::None,
                1 => CommitFault::BreakLocks,
                2 => CommitFault::UnavailableNotApplied,
                3 => CommitFault::UndeterminedApplied,
                _ => CommitFault::UndeterminedNotApplied,
            },
        }
    }

    /// Commits `tx`: checks its locks and offsets, then applies its upserts, messages and
    /// offset advances in one SQLite transaction — or none of them.
    pub fn commit(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: Tx,
    ) -> Result<CommitInfo, YdbError> {
        let fault = self.commit_fault(sim, &tx);
        match fault {
            CommitFault::UnavailableNotApplied => {
                self.stats.unavailable += 1;
                sim.event(actor, Glyph::Error, || {
                    (
                        "COMMIT: UNAVAILABLE".into(),
                        "node killed; nothing applied".into(),
                    )
                });
                return Err(YdbError {
                    status: StatusCode::Unavailable,
                    issue: "node killed during commit",
                });
            }
            CommitFault::UndeterminedNotApplied => {
                self.stats.undetermined += 1;
                sim.event(actor, Glyph::Indefinite, || {
                    ("COMMIT: UNDETERMINED".into(), "not applied".into())
                });
                return Err(YdbError {
                    status: StatusCode::Undetermined,
                    issue: "commit outcome unknown",
                });
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
            CommitFault::None | CommitFault::UndeterminedApplied => {}
        }
        let sql = self.conn.unchecked_transaction().expect("begin commit");
        if let Some(conflict) = self.check_locks(&tx) {
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
        if let Some(consumer) = tx.consumer {
            for range in &tx.offsets {
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
        }
        sql.commit().expect("commit");
        self.stats.commits += 1;
        sim.event(actor, Glyph::Normal, || {
            let mut truth = Vec::new();
            for message in &tx.messages {
                truth.push(format!(
                    "message {}#{}",
                    message.producer_id, message.seq_no
                ));
            }
            for (table, key, _) in &tx.upserts {
                truth.push(format!("{table}{key:?}"));
            }
            for range in &tx.offsets {
                truth.push(format!("offset p{} -> {}", range.partition, range.to));
            }
            ("COMMIT".into(), format!("applied: {}", truth.join(", ")))
        });
        self.stats.deduplicated += info.messages_deduplicated as u64;
        if fault == CommitFault::UndeterminedApplied {
            self.stats.undetermined += 1;
            sim.event(actor, Glyph::Indefinite, || {
                (
                    "COMMIT: UNDETERMINED".into(),
                    "applied; response lost".into(),
                )
            });
            return Err(YdbError {
                status: StatusCode::Undetermined,
                issue: "commit outcome unknown",
            });
        }
        Ok(info)
    }

    /// The first lock of `tx` that no longer holds, described; `None` when all hold.
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
        let consumer = tx.consumer?;
        for range in &tx.offsets {
            let now = self.committed_offset(consumer, range.partition);
            if now != range.from {
                return Some(format!(
                    "partition {} read from offset {}, committed offset now {}",
                    range.partition, range.from, now
                ));
            }
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

/// A batch in a timeline: its messages as `producer#seq_no` and its offset ranges.
fn describe(batch: &Batch) -> String {
    if batch.messages.is_empty() {
        return "empty".into();
    }
    let messages: Vec<String> = batch
        .messages
        .iter()
        .map(|m| format!("{}#{}", m.producer_id, m.seq_no))
        .collect();
    let ranges: Vec<String> = batch
        .ranges
        .iter()
        .map(|r| format!("p{}[{}..{})", r.partition, r.from, r.to))
        .collect();
    format!("{} at {}", messages.join(" "), ranges.join(" "))
}

/// The SDK's retry policy: which errors are retried and after how many ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per operation, the first included.
    pub max_attempts: u32,
    /// The first delay of the fast backoff, in ticks; doubled on each retry.
    pub fast_base: u64,
    /// Whether the operation may be repeated after an unknown outcome.
    pub idempotent: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 10,
            fast_base: 2,
            idempotent: true,
        }
    }
}

impl RetryPolicy {
    /// After `attempt` failed attempts (1 for the first failure) with `error`: `Some(delay)`
    /// to retry after `delay` ticks, `None` to give up.
    pub fn next_delay(&self, error: &YdbError, attempt: u32) -> Option<u64> {
        if attempt >= self.max_attempts {
            return None;
        }
        let retryable = match error.status {
            StatusCode::Aborted | StatusCode::Unavailable => true,
            StatusCode::Undetermined => self.idempotent,
        };
        retryable.then(|| self.fast_base << (attempt - 1).min(6))
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
