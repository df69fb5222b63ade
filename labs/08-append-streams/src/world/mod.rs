//! The world your writer talks to. Complete code: read it, do not change it.
//!
//! * Source partition **P7**, positions 1000–1004, retained: reading a range twice gives
//!   the same rows (the source-retention contract), unless a scenario breaks it.
//! * The simulated Storage Write API (`sim-writeapi`) with one table, `ledger`. Every
//!   `AppendRows` can answer, lose its response after the rows were appended, lose the
//!   request, or land later.
//! * `journal.db`, the writer's memory after its process is gone, reached through
//!   [`Journal`]. Its schema is [`JOURNAL_SCHEMA`]: the writer's lease, the stream it
//!   writes to, one record per batch, the rows it had to quarantine and the source
//!   checkpoint.
//! * Writer processes ([`Writer`]). Each opens `journal.db` and runs your `run_writer`.
//!   A process may crash right after any call to the service (or while it waits for the
//!   response) and right after any statement that makes a change to the journal durable.
//!   After a crash its memory and its connections are gone and a new process starts. In
//!   the stale-owner scenarios the first process may instead *pause* at those points, or
//!   right after a read of the journal: its lease lapses, a new owner takes over, and
//!   then the old process wakes up and carries on with what it had in memory.

mod journal;
mod setup;
mod writer;

pub use journal::{Journal, Transaction};
pub use setup::{Setup, Source};
pub use sim_writeapi::{AppendError, AppendResult, Code, Row, RowError, short};
pub use writer::{Takeover, Writer};

use labkit::fault::{Crash, Violation};
use rusqlite::Connection;
use sim_writeapi::{Faults, WriteApi};
use sqlite_pool::Db;
use std::fmt;
use std::rc::Rc;

/// The source partition of the ledger.
pub const PARTITION: &str = "P7";
/// Its positions: batch A = 1000–1002, batch B = 1003–1004; the checkpoint ends at 1005.
pub const SOURCE_FIRST: i64 = 1000;
pub const SOURCE_END: i64 = 1005;
/// The largest batch the writer cuts, so A has three rows and B two.
pub const MAX_BATCH_ROWS: i64 = 3;
/// The destination table.
pub const TABLE: &str = "ledger";
/// The serialization version recorded with every fingerprint.
pub const SERIALIZATION_VERSION: i64 = 1;

/// Why a writer process stopped before finishing the partition.
#[derive(Debug)]
pub enum Stop {
    /// The process crashed (after a durable step, or while it waited for a response).
    Crash(Crash),
    /// The lease belongs to a newer owner epoch: this process is stale and must stop.
    Fenced {
        mine: i64,
        current: i64,
    },
    /// The evidence does not prove what happened: stop and reconcile, do not guess.
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
            Stop::Fenced { mine, current } => {
                write!(f, "fenced: my epoch {mine}, the lease is at {current}")
            }
            Stop::Hold(reason) => write!(f, "hold for reconciliation: {reason}"),
            Stop::Retry(reason) => write!(f, "gives up, to be restarted: {reason}"),
            Stop::Sql(e) => write!(f, "journal error: {e}"),
        }
    }
}

/// The states of a journal record.
pub mod state {
    pub const PREPARED: &str = "PREPARED";
    pub const SENT: &str = "SENT";
    pub const UNKNOWN: &str = "UNKNOWN";
    pub const CONFIRMED: &str = "CONFIRMED";
    pub const REJECTED: &str = "REJECTED";
    pub const HELD: &str = "HELD";
}

// ANCHOR: schema
/// The journal. `journal.state` is one of `PREPARED`, `SENT`, `UNKNOWN`, `CONFIRMED`,
/// `REJECTED`, `HELD` (stopped for reconciliation); `source_first..source_end` is the
/// batch's source range (end exclusive).
pub const JOURNAL_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS lease (
    partition   TEXT PRIMARY KEY,
    owner_epoch INTEGER NOT NULL,
    owner       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS stream (
    partition    TEXT PRIMARY KEY,
    write_stream TEXT NOT NULL,
    owner_epoch  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    batch_id              TEXT PRIMARY KEY,
    partition             TEXT NOT NULL,
    destination           TEXT NOT NULL,
    write_stream          TEXT NOT NULL,
    row_offset            INTEGER NOT NULL,
    row_count             INTEGER NOT NULL,
    source_first          INTEGER NOT NULL,
    source_end            INTEGER NOT NULL,
    fingerprint           TEXT NOT NULL,
    serialization_version INTEGER NOT NULL,
    state                 TEXT NOT NULL,
    evidence              TEXT NOT NULL DEFAULT '',
    replaces              TEXT,
    owner_epoch           INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS quarantine (
    partition   TEXT NOT NULL,
    position    INTEGER NOT NULL,
    batch_id    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    owner_epoch INTEGER NOT NULL,
    PRIMARY KEY (partition, position)
);
CREATE TABLE IF NOT EXISTS checkpoint (
    partition     TEXT PRIMARY KEY,
    next_position INTEGER NOT NULL,
    owner_epoch   INTEGER NOT NULL
);
";
// ANCHOR_END: schema

/// The source-position part of a row's `source` column (`P7:1003` → 1003).
pub fn position_of(row: &Row) -> i64 {
    row.source
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a P7:position source column")
}

// ANCHOR: fingerprint
/// The fingerprint of an exact ordered row set: FNV-1a over a canonical serialization
/// (version, then each row's source and fields, in order). Computed over the rows,
/// never over a debug rendering.
pub fn fingerprint(rows: &[Row]) -> String {
    let mut canonical = format!("v{SERIALIZATION_VERSION}");
    for row in rows {
        let field = row.invalid_value.as_deref().unwrap_or("");
        canonical.push_str(&format!("|{}:{field}", row.source));
    }
    labkit::hash::fnv64_hex(canonical.as_bytes())
}
// ANCHOR_END: fingerprint

/// The durable things: the journal database, the service, the source.
pub struct World {
    /// `journal.db`: it outlives every writer process. Each process reaches it through
    /// this one connection; a crash rolls back whatever transaction the process left
    /// open, as closing its own connection would. An emptied database kept from an
    /// earlier schedule when there is one.
    journal: Rc<Db>,
    pub api: WriteApi,
    pub source: Source,
    pub setup: Setup,
    /// How a new owner takes over while a stale one pauses.
    takeover: Takeover,
    /// A misconfigured client writes its rows to the first stream created.
    foreign_pending: i64,
    first_append_done: bool,
    /// The stale process paused once already.
    paused: bool,
    /// What the new owner left, taken when the stale process wakes up.
    pub stale_snapshot: Option<String>,
    /// What the checks found while the processes ran.
    pub findings: Vec<Violation>,
    processes: u32,
}

impl World {
    pub fn create(setup: Setup, takeover: Takeover) -> World {
        let faults = Faults {
            append: setup.append_fates,
            ..Faults::NONE
        };
        World {
            journal: Rc::new(Db::empty(JOURNAL_SCHEMA)),
            api: WriteApi::new(&[TABLE]).with_faults(faults),
            source: Source {
                bad_row: setup.bad_row,
                lost: None,
            },
            setup,
            takeover,
            foreign_pending: setup.foreign_rows,
            first_append_done: false,
            paused: false,
            stale_snapshot: None,
            findings: Vec::new(),
            processes: 0,
        }
    }

    /// The journal as it is now, for checkers.
    pub fn keeper(&self) -> &Connection {
        &self.journal
    }

    /// From now on the source no longer returns `position`.
    pub fn lose_from_source(&mut self, position: i64) {
        self.source.lost = Some(position);
    }
}
