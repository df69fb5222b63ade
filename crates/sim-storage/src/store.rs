//! The origin: buckets, objects, generations, preconditions, IAM, in SQLite.
//!
//! This file holds the store's state, its generation clock and what every request
//! shares (an object's metadata, the audit trail); `store/buckets.rs` the buckets and
//! IAM, `store/objects.rs` the object requests, `store/db.rs` the SQLite database.

use crate::iam::Role;
use crate::{AuditEntry, Meta, StorageError};
use db::{Cached, Db, POOL, SCHEMA};
use labkit::fault::Rng;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod buckets;
mod db;
mod objects;

/// The origin: strongly consistent, durable in SQLite.
pub struct ObjectStore {
    db: Db,
    /// Bucket settings, IAM bindings and the generation clock are read by every request:
    /// they are kept in memory as well, written through to SQLite and loaded from it when
    /// a file is opened again. (An exploration runs thousands of requests per second.)
    buckets: BTreeMap<String, bool>,
    bindings: BTreeSet<(String, String, Role)>,
    clock: Clock,
}

/// The generation clock: where it stands, how many generations it issued, its seed.
#[derive(Clone, Copy, Debug)]
struct Clock {
    micros: i64,
    issued: i64,
    seed: i64,
}

/// Where the store's generation clock starts: 2023-11-14T22:13:20Z in microseconds since
/// the Unix epoch, a 16-digit number like the generations the real service hands out.
pub const GENERATION_EPOCH_MICROS: i64 = 1_700_000_000_000_000;

/// The seed of the generation clock's gaps when none is given.
pub const DEFAULT_GENERATION_SEED: u64 = 0x6763_735f_6765_6e73;

/// The gap between two generations, in microseconds, is drawn from `1_000..4_000_000`:
/// at least a millisecond (so no two generations are ever neighbours), at most a few
/// seconds, like uploads that are not back to back.
const GAP_MICROS: (u64, u64) = (1_000, 4_000_000);

impl ObjectStore {
    /// A store in an in-memory SQLite database (one per schedule in explorations).
    pub fn in_memory() -> Self {
        Self::in_memory_seeded(DEFAULT_GENERATION_SEED)
    }

    /// An in-memory store whose generation gaps come from `seed`.
    pub fn in_memory_seeded(seed: u64) -> Self {
        let reused = POOL.with(|pool| pool.borrow_mut().pop());
        let fresh = reused.is_none();
        let connection =
            reused.unwrap_or_else(|| Connection::open_in_memory().expect("open in-memory SQLite"));
        let db = Db {
            connection: Some(connection),
            pooled: true,
        };
        Self::from_connection(db, seed, fresh)
    }

    /// A store in a file, for scenarios where the bucket must outlive a process. A file
    /// opened again keeps its generation clock (and its seed).
    pub fn open(path: &Path) -> rusqlite::Result<Self> {
        let db = Db {
            connection: Some(Connection::open(path)?),
            pooled: false,
        };
        Ok(Self::from_connection(db, DEFAULT_GENERATION_SEED, true))
    }

    /// The store on `db`, with the schema created first unless `db` is an emptied
    /// pooled connection that has it already.
    fn from_connection(db: Db, seed: u64, create_schema: bool) -> Self {
        if create_schema {
            // Every statement stays prepared (rusqlite keeps 16 by default; the store
            // has about thirty).
            db.set_prepared_statement_cache_capacity(64);
            db.execute_batch(SCHEMA)
                .expect("create the object store schema");
        }
        db.execute_cached(
            "INSERT OR IGNORE INTO generation_clock (id, micros, issued, seed) VALUES (1, ?1, 0, ?2)",
            params![GENERATION_EPOCH_MICROS, seed as i64],
        )
        .expect("start the generation clock");
        let clock = db
            .prepare_cached_query_row(
                "SELECT micros, issued, seed FROM generation_clock WHERE id = 1",
                [],
                |row| {
                    Ok(Clock {
                        micros: row.get(0)?,
                        issued: row.get(1)?,
                        seed: row.get(2)?,
                    })
                },
            )
            .expect("read the generation clock");
        let buckets = db
            .prepare_cached("SELECT name, versioning FROM buckets")
            .and_then(|mut st| {
                st.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .expect("read buckets");
        let bindings = db
            .prepare_cached("SELECT bucket, member, role FROM bindings")
            .and_then(|mut st| {
                st.query_map([], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get::<_, String>(2)?))
                })?
                .collect::<rusqlite::Result<Vec<(String, String, String)>>>()
            })
            .expect("read bindings")
            .into_iter()
            .filter_map(|(bucket, member, role)| Some((bucket, member, Role::parse(&role)?)))
            .collect();
        ObjectStore {
            db,
            buckets,
            bindings,
            clock,
        }
    }

    /// The next generation number: the store's logical clock in microseconds, moved on
    /// by a seeded gap. Never the wall clock, so the same requests in the same order get
    /// the same generations; and never consecutive, so no code can get away with
    /// `generation - 1`.
    fn next_generation(&mut self) -> i64 {
        let Clock {
            micros,
            issued,
            seed,
        } = self.clock;
        // One draw of the fault core's generator per generation, seeded by the store's
        // seed and the count so far: a function of the request order alone.
        let (low, high) = GAP_MICROS;
        let draw = Rng::new((seed as u64).wrapping_add(issued as u64)).below(high - low);
        let gap = low + draw;
        let generation = micros + gap as i64;
        self.db
            .execute_cached(
                "UPDATE generation_clock SET micros = ?1, issued = issued + 1 WHERE id = 1",
                params![generation],
            )
            .expect("move the generation clock");
        self.clock.micros = generation;
        self.clock.issued += 1;
        generation
    }

    fn meta(&self, bucket: &str, name: &str, generation: Option<i64>) -> Option<Meta> {
        let row = |row: &rusqlite::Row<'_>| {
            Ok(Meta {
                bucket: bucket.to_string(),
                name: name.to_string(),
                generation: row.get(0)?,
                metageneration: row.get(1)?,
                size: row.get::<_, i64>(2)? as u64,
                cache_control: row.get(3)?,
                live: row.get(4)?,
            })
        };
        let found = match generation {
            None => self.db.prepare_cached_query_row(
                "SELECT generation, metageneration, length(data), cache_control, live
                 FROM objects WHERE bucket = ?1 AND name = ?2 AND live = 1",
                params![bucket, name],
                row,
            ),
            Some(g) => self.db.prepare_cached_query_row(
                "SELECT generation, metageneration, length(data), cache_control, live
                 FROM objects WHERE bucket = ?1 AND name = ?2 AND generation = ?3",
                params![bucket, name, g],
                row,
            ),
        };
        found.optional().expect("read object metadata")
    }

    fn record(
        &mut self,
        principal: &str,
        method: &str,
        bucket: &str,
        name: &str,
        outcome: Result<Option<i64>, &StorageError>,
    ) {
        let (generation, status) = match outcome {
            Ok(g) => (g, 200),
            Err(e) => (None, e.code()),
        };
        self.db
            .execute_cached(
                "INSERT INTO audit (principal, method, bucket, name, generation, status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![principal, method, bucket, name, generation, status],
            )
            .expect("append audit entry");
    }

    /// Retires the live generation: kept as noncurrent with versioning, gone without.
    fn retire(&mut self, bucket: &str, name: &str, generation: i64, versioning: bool) {
        let sql = if versioning {
            "UPDATE objects SET live = 0 WHERE bucket = ?1 AND name = ?2 AND generation = ?3"
        } else {
            "DELETE FROM objects WHERE bucket = ?1 AND name = ?2 AND generation = ?3"
        };
        self.db
            .execute_cached(sql, params![bucket, name, generation])
            .expect("retire generation");
    }

    /// Every mutating request so far, oldest first.
    pub fn audit(&self) -> Vec<AuditEntry> {
        let mut statement = self
            .db
            .prepare_cached(
                "SELECT principal, method, bucket, name, generation, status FROM audit ORDER BY seq",
            )
            .expect("prepare audit");
        let rows = statement
            .query_map([], |row| {
                Ok(AuditEntry {
                    principal: row.get(0)?,
                    method: row.get(1)?,
                    bucket: row.get(2)?,
                    name: row.get(3)?,
                    generation: row.get(4)?,
                    status: row.get(5)?,
                })
            })
            .expect("read audit");
        rows.map(|r| r.expect("audit row")).collect()
    }

    /// The SQLite library version, for reports.
    pub fn sqlite_version() -> &'static str {
        rusqlite::version()
    }
}
