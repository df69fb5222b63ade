//! The world your coordinator talks to. Complete code: read it, do not change it.
//!
//! * A daily batch of source partition **D1**, positions 0–4, split between two workers:
//!   W1 owns 0–1, W2 owns 2–4. The source is immutable and retained.
//! * The simulated Storage Write API (`sim-writeapi`) with one table, `daily`. Appends,
//!   finalizations and batch commits can lose their response (after being applied, or
//!   not); a commit can also be lost before it is applied.
//! * `coordinator.db`: the coordinator's journal, schema [`JOURNAL_SCHEMA`], reached
//!   through [`Journal`]. One row per worker range (its stream and how far it got) and
//!   one row for the batch commit.
//! * Coordinator processes. Each opens the journal and runs your `run_coordinator`. The
//!   process may crash right after any statement that changes the journal and right after
//!   any call to the service (or while it waits for the response). After a crash a new
//!   process starts with only the journal.

mod journal;

pub use journal::Journal;
pub use sim_writeapi::{
    AppendError, AppendResult, BatchCommitWriteStreamsResponse, Code, Row, Status,
    StorageErrorCode, WriteStream,
};

use labkit::fault::{Crash, Sim};
use rusqlite::{Connection, OpenFlags};
use sim_writeapi::{AppendRowsRequest, Faults, StreamType, WriteApi, short};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a coordinator process stopped before the batch was committed and recorded.
#[derive(Debug)]
pub enum Stop {
    /// The process crashed (after a durable step, or while it waited for a response).
    Crash(Crash),
    /// The evidence does not allow a safe next step: stop and reconcile.
    Hold(String),
    /// The process gives up; its supervisor starts a new one.
    Retry(String),
    Sql(rusqlite::Error),
}

impl From<Crash> for Stop {
    fn from(crash: Crash) -> Self {
        Stop::Crash(crash)
    }
}

impl From<rusqlite::Error> for Stop {
    fn from(e: rusqlite::Error) -> Self {
        Stop::Sql(e)
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Crash(crash) => write!(f, "{crash}"),
            Stop::Hold(reason) => write!(f, "hold for reconciliation: {reason}"),
            Stop::Retry(reason) => write!(f, "gives up, to be restarted: {reason}"),
            Stop::Sql(e) => write!(f, "journal error: {e}"),
        }
    }
}

/// The destination table.
pub const TABLE: &str = "daily";
/// The workers and the source ranges they own (end exclusive).
pub const RANGES: [(&str, i64, i64); 2] = [("W1", 0, 2), ("W2", 2, 5)];
/// All source positions of the batch.
pub const POSITIONS: std::ops::Range<i64> = 0..5;
/// The batch's name in `batch_commit`.
pub const BATCH: &str = "D1";

// ANCHOR: schema
/// The coordinator's journal. `member.state` is `CREATED` (stream exists, journaled),
/// `APPENDED` or `FINALIZED`; `batch_commit.state` is `COMMITTING`, `COMMITTED` or
/// `HELD`.
pub const JOURNAL_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS member (
    worker       TEXT PRIMARY KEY,
    source_first INTEGER NOT NULL,
    source_end   INTEGER NOT NULL,
    write_stream TEXT NOT NULL,
    row_count    INTEGER,
    state        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_commit (
    batch       TEXT PRIMARY KEY,
    state       TEXT NOT NULL,
    commit_time INTEGER,
    evidence    TEXT NOT NULL DEFAULT ''
);
";
// ANCHOR_END: schema

/// The source rows of `worker`'s range, each tagged with the worker in the `batch`
/// column.
pub fn source_rows(worker: &str) -> Vec<Row> {
    let (_, first, end) = RANGES
        .iter()
        .find(|(w, _, _)| *w == worker)
        .expect("a known worker");
    (*first..*end)
        .map(|p| Row::new(format!("D1:{p}"), worker))
        .collect()
}

static WORLDS: AtomicU64 = AtomicU64::new(0);

/// The durable things: the journal database and the service.
pub struct World {
    /// A shared in-memory SQLite database that lives as long as `keeper`, so it outlives
    /// every coordinator process.
    uri: String,
    keeper: Connection,
    pub api: WriteApi,
    /// How many `BatchCommitWriteStreams` calls left a coordinator process so far.
    commits_sent: u32,
}

fn open(uri: &str) -> Connection {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(uri, flags).expect("open journal");
    // A stable query plan: without it SQLite may prepare a statement again whenever a
    // parameter it compares is bound.
    let stable = rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG;
    connection
        .set_db_config(stable, true)
        .expect("stable plans");
    connection
}

impl World {
    pub fn create(faults: Faults) -> World {
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let uri = format!(
            "file:boundary-lab09-{}-{n}?mode=memory&cache=shared",
            std::process::id()
        );
        let keeper = open(&uri);
        keeper
            .execute_batch(JOURNAL_SCHEMA)
            .expect("journal schema");
        World {
            uri,
            keeper,
            api: WriteApi::new(&[TABLE]).with_faults(faults),
            commits_sent: 0,
        }
    }

    /// The journal as it is now, for checkers.
    pub fn keeper(&self) -> &Connection {
        &self.keeper
    }

    /// Whether any coordinator process has sent `BatchCommitWriteStreams`, for checkers.
    pub fn commit_was_sent(&self) -> bool {
        self.commits_sent > 0
    }
}

/// One coordinator process: its own connection to the journal, and the service.
pub struct Coordinator<'a> {
    sim: &'a mut Sim,
    world: &'a mut World,
    journal: Connection,
}

impl<'a> Coordinator<'a> {
    /// A new process: it opens `coordinator.db` and remembers nothing else.
    pub fn start(sim: &'a mut Sim, world: &'a mut World) -> Self {
        let journal = open(&world.uri);
        Coordinator {
            sim,
            world,
            journal,
        }
    }

    /// This process's connection to `coordinator.db`.
    pub fn journal(&mut self) -> Journal<'_> {
        Journal::new(&self.journal, self.sim)
    }

    /// Writes a line to the timeline (only recorded when a schedule is replayed).
    pub fn note(&mut self, describe: impl FnOnce() -> String) {
        self.sim.note("coordinator", describe);
    }

    // ANCHOR: calls
    /// `CreateWriteStream` of type PENDING on `daily`.
    pub fn create_pending_stream(&mut self) -> Result<String, Crash> {
        let stream = self
            .world
            .api
            .create_write_stream(self.sim, TABLE, StreamType::Pending)
            .expect("CreateWriteStream on an existing table");
        self.sim.crash_point("coordinator:after-create-stream")?;
        Ok(stream.name)
    }

    /// `AppendRows` of `rows` at `offset`, on a connection opened for it. The outer
    /// `Err(Crash)` is a process that died waiting for the response.
    pub fn append(
        &mut self,
        write_stream: &str,
        offset: i64,
        rows: Vec<Row>,
    ) -> Result<Result<AppendResult, AppendError>, Crash> {
        let api = &mut self.world.api;
        let response = match api.connect(self.sim, write_stream) {
            Ok(connection) => {
                let offset = Some(offset as u64);
                let request = AppendRowsRequest { offset, rows };
                let response = api.append_rows(self.sim, &connection, request);
                api.disconnect(&connection);
                response
            }
            Err(status) => Err(AppendError {
                status,
                row_errors: Vec::new(),
            }),
        };
        self.sim.crash_point("coordinator:after-append")?;
        Ok(response)
    }

    /// `FinalizeWriteStream`: returns the stream's `row_count`.
    pub fn finalize(&mut self, write_stream: &str) -> Result<Result<i64, Status>, Crash> {
        let response = self.world.api.finalize_write_stream(self.sim, write_stream);
        self.sim.crash_point("coordinator:after-finalize")?;
        Ok(response.map(|rows| rows as i64))
    }

    /// `BatchCommitWriteStreams` of `write_streams` on `daily`.
    pub fn batch_commit(
        &mut self,
        write_streams: &[String],
    ) -> Result<Result<BatchCommitWriteStreamsResponse, Status>, Crash> {
        self.world.commits_sent += 1;
        let api = &mut self.world.api;
        let response = api.batch_commit_write_streams(self.sim, TABLE, write_streams);
        self.sim.crash_point("coordinator:after-commit")?;
        Ok(response)
    }

    /// `GetWriteStream`: the stream's type, create time and commit time (empty while a
    /// pending stream is not committed).
    pub fn get_write_stream(&mut self, write_stream: &str) -> Result<WriteStream, Status> {
        let stream = self.world.api.get_write_stream(write_stream);
        self.sim.note("coordinator", || {
            let time = stream.as_ref().ok().and_then(|s| s.commit_time);
            format!(
                "GetWriteStream {} -> commit_time {time:?}",
                short(write_stream)
            )
        });
        stream
    }
    // ANCHOR_END: calls
}
