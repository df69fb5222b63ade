//! The simulated database ([`Ydb`]): its state (one SQLite connection holding the topic,
//! the offsets and the tables; the reader sessions; the server's counters), its tables and
//! queries, and its audits. The calls a client makes are in the submodules, by concern:
//! `reader` (reader sessions, reads, plain offset commits), `writer` (plain writes, the
//! append every write goes through), `commit` (committing and rolling back a transaction)
//! and `calls` (how a call meets the chaos).

use crate::tx::RowRead;
use crate::{Chaos, Message, Tx, YdbError};
use labkit::fault::Sim;
use rusqlite::{Connection, OptionalExtension, params};
use sqlite_pool::Db;
use std::collections::BTreeMap;

mod calls;
mod commit;
mod reader;
mod writer;

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

/// The simulated database: topic, offsets and tables in one SQLite connection.
pub struct Ydb {
    conn: Db,
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

/// The topic's tables: its messages, its producers' sequence numbers, its consumers'
/// committed offsets.
const TOPIC_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS topic_messages (
         partition INTEGER NOT NULL, offset INTEGER NOT NULL,
         producer_id INTEGER NOT NULL, seq_no INTEGER NOT NULL, payload TEXT NOT NULL,
         PRIMARY KEY (partition, offset));
     CREATE TABLE IF NOT EXISTS topic_producers (
         producer_id INTEGER PRIMARY KEY, max_seq_no INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS topic_consumer_offsets (
         consumer TEXT NOT NULL, partition INTEGER NOT NULL, committed INTEGER NOT NULL,
         PRIMARY KEY (consumer, partition));";

/// The topic's path, for timelines.
pub const TOPIC: &str = "/Root/testdb/slo_topic_tx";
impl Ydb {
    /// A fresh in-memory database with a topic of `partitions` partitions.
    pub fn in_memory(partitions: i64, chaos: Chaos) -> Ydb {
        // A database another world on this thread has ended, emptied, when there is one.
        Ydb::on(Db::empty(TOPIC_SCHEMA), partitions, chaos)
    }

    /// A database on an existing connection (a file, for durability experiments).
    pub fn with_connection(conn: Connection, partitions: i64, chaos: Chaos) -> Ydb {
        conn.execute_batch(TOPIC_SCHEMA)
            .expect("create the topic's tables");
        Ydb::on(Db::owned(conn), partitions, chaos)
    }

    fn on(conn: Db, partitions: i64, chaos: Chaos) -> Ydb {
        assert!(partitions > 0, "a topic has at least one partition");
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
