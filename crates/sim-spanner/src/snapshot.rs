//! Reads at a timestamp: single-use reads and read-only transactions, chosen by a
//! timestamp bound (strong, exact staleness, a read timestamp, bounded staleness), on the
//! versions the database keeps for an hour.
//!
//! Time is the fault core's logical clock, one tick a simulated second (`Sim::now`); a
//! commit timestamp is that clock when the commit applied. A scenario moves time on with
//! `Sim::advance`.

use crate::database::range;
use crate::{Code, Database, Row, SpannerError};
use labkit::fault::{Glyph, Sim};

/// How long the database keeps old versions (version GC), in seconds: the default
/// version retention period of one hour. A read at an older timestamp fails.
pub const VERSION_RETENTION_SECONDS: u64 = 3600;

/// The deadline of a `Read` call, in seconds: the default timeout of `Read` in the
/// service config the client libraries are generated from.
/// A read whose timestamp is further in the future than this waits this long and ends
/// DEADLINE_EXCEEDED.
pub const READ_DEADLINE_SECONDS: u64 = 30;

/// How the database chooses the timestamp a read runs at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampBound {
    /// Sees every transaction committed before the read starts.
    Strong,
    /// Reads at exactly this many seconds ago.
    ExactStaleness(u64),
    /// Reads at this timestamp; one in the future is waited for.
    ReadTimestamp(u64),
    /// Bounded staleness, single-use reads only: at a timestamp no older than this many
    /// seconds ago, which the database chooses (the closest replica may be behind).
    MaxStaleness(u64),
    /// Bounded staleness, single-use reads only: at a timestamp no older than this one.
    MinReadTimestamp(u64),
}

/// The fault core's choice for a bounded-staleness read: the replica that serves it is up
/// to date (option 0), or behind by as much as the bound allows.
const REPLICA_LABELS: [&str; 2] = ["up to date", "behind by the bound"];

/// A snapshot: every read runs at the same timestamp, takes no lock and never aborts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOnlyTransaction {
    read_timestamp: u64,
}

impl ReadOnlyTransaction {
    /// The timestamp every read of this transaction runs at.
    pub fn read_timestamp(&self) -> u64 {
        self.read_timestamp
    }

    /// FAILED_PRECONDITION once the read timestamp is older than version GC keeps, which
    /// can happen to a transaction that stays open long enough.
    fn still_readable(&self, sim: &mut Sim) -> Result<(), SpannerError> {
        let now = sim.now();
        if now.saturating_sub(self.read_timestamp) > VERSION_RETENTION_SECONDS {
            let ts = self.read_timestamp;
            sim.event("spanner", Glyph::Error, || {
                (
                    format!("read at timestamp {ts} -> FAILED_PRECONDITION"),
                    format!("more than {VERSION_RETENTION_SECONDS} s before now ({now}): those versions are gone"),
                )
            });
            return Err(SpannerError::new(Code::FailedPrecondition));
        }
        Ok(())
    }

    /// One row as of the transaction's timestamp.
    pub fn read(
        &self,
        db: &Database,
        sim: &mut Sim,
        table: &str,
        key: &str,
    ) -> Result<Option<Row>, SpannerError> {
        self.still_readable(sim)?;
        Ok(db
            .stored(table, key)
            .and_then(|s| s.at(self.read_timestamp).cloned()))
    }

    /// Every row of a table as of the transaction's timestamp, in key order.
    pub fn scan(
        &self,
        db: &Database,
        sim: &mut Sim,
        table: &str,
    ) -> Result<Vec<(String, Row)>, SpannerError> {
        self.still_readable(sim)?;
        Ok(db
            .tables
            .get(table)
            .map(|rows| {
                range(rows, None, None)
                    .filter_map(|(k, s)| {
                        s.at(self.read_timestamp)
                            .map(|r| (k.to_string(), r.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }
}

impl Database {
    /// A read-only transaction: all its reads at one timestamp chosen by `bound`. Bounded
    /// staleness is refused with INVALID_ARGUMENT (it is for single-use reads only).
    pub fn read_only_transaction(
        &self,
        sim: &mut Sim,
        bound: TimestampBound,
    ) -> Result<ReadOnlyTransaction, SpannerError> {
        if matches!(
            bound,
            TimestampBound::MaxStaleness(_) | TimestampBound::MinReadTimestamp(_)
        ) {
            sim.event("spanner", Glyph::Error, || {
                (
                    format!("read-only transaction {bound:?} -> INVALID_ARGUMENT"),
                    "bounded staleness is for single-use reads only".into(),
                )
            });
            return Err(SpannerError::new(Code::InvalidArgument));
        }
        self.snapshot(sim, bound)
    }

    /// A single-use read of one row at the timestamp `bound` chooses.
    pub fn single_read(
        &self,
        sim: &mut Sim,
        bound: TimestampBound,
        table: &str,
        key: &str,
    ) -> Result<Option<Row>, SpannerError> {
        self.snapshot(sim, bound)?.read(self, sim, table, key)
    }

    /// Chooses the read timestamp for `bound` (waiting for a future one) and checks that
    /// version GC still keeps it.
    fn snapshot(
        &self,
        sim: &mut Sim,
        bound: TimestampBound,
    ) -> Result<ReadOnlyTransaction, SpannerError> {
        let now = sim.now();
        // Strong: every commit so far is visible, even one stamped a moment ahead.
        let strong = now.max(self.last_commit_timestamp());
        let read_timestamp = match bound {
            TimestampBound::Strong => strong,
            TimestampBound::ExactStaleness(seconds) => now.saturating_sub(seconds),
            TimestampBound::ReadTimestamp(ts) => wait_for(sim, ts)?,
            TimestampBound::MinReadTimestamp(ts) if ts > now => wait_for(sim, ts)?,
            TimestampBound::MaxStaleness(seconds) => {
                match sim.choose("spanner:replica", &REPLICA_LABELS) {
                    0 => strong,
                    _ => now.saturating_sub(seconds),
                }
            }
            TimestampBound::MinReadTimestamp(ts) => {
                match sim.choose("spanner:replica", &REPLICA_LABELS) {
                    0 => strong,
                    _ => ts,
                }
            }
        };
        let snapshot = ReadOnlyTransaction { read_timestamp };
        snapshot.still_readable(sim)?;
        sim.event("spanner", Glyph::Normal, || {
            (
                format!("{bound:?} -> read timestamp {read_timestamp}"),
                format!("the clock says {now}"),
            )
        });
        Ok(snapshot)
    }
}

/// A read at a future timestamp waits until the clock reaches it, modulo the read's
/// deadline.
fn wait_for(sim: &mut Sim, ts: u64) -> Result<u64, SpannerError> {
    let now = sim.now();
    if ts <= now {
        return Ok(ts);
    }
    let wait = ts - now;
    if wait > READ_DEADLINE_SECONDS {
        sim.advance(READ_DEADLINE_SECONDS);
        sim.event("spanner", Glyph::Error, || {
            (
                format!("read at timestamp {ts} -> DEADLINE_EXCEEDED"),
                format!("waited {READ_DEADLINE_SECONDS} s of the {wait} s to that timestamp"),
            )
        });
        return Err(SpannerError::new(Code::DeadlineExceeded));
    }
    sim.advance(wait);
    sim.event("spanner", Glyph::Normal, || {
        (
            String::new(),
            format!("the read waits {wait} s for timestamp {ts}"),
        )
    });
    Ok(ts)
}
