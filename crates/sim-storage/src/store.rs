//! The origin: buckets, objects, generations, preconditions, IAM, in SQLite.

use crate::iam::{Permission, Role};
use labkit::fault::Rng;
use rusqlite::{Connection, OptionalExtension, params};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;
use std::path::Path;

/// An error response, named by its HTTP status as the JSON API reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// `404 Not Found`: no such bucket, object or generation.
    NotFound { what: String },
    /// `403 Forbidden`: the principal lacks a permission.
    Forbidden {
        principal: String,
        permission: &'static str,
    },
    /// `304 Not Modified`: a not-match precondition (`ifGenerationNotMatch`,
    /// `ifMetagenerationNotMatch`) named the current value. Not an error in HTTP terms,
    /// but the request did nothing and returned no body, as the client libraries report
    /// it (an exception of its own).
    NotModified { detail: String },
    /// `409 Conflict`: the bucket already exists.
    Conflict { what: String },
    /// `412 Precondition Failed`.
    PreconditionFailed { detail: String },
    /// `416 Requested Range Not Satisfiable`.
    RangeNotSatisfiable,
}

impl StorageError {
    /// The HTTP status code of the response.
    pub fn code(&self) -> u16 {
        match self {
            StorageError::NotFound { .. } => 404,
            StorageError::Forbidden { .. } => 403,
            StorageError::NotModified { .. } => 304,
            StorageError::Conflict { .. } => 409,
            StorageError::PreconditionFailed { .. } => 412,
            StorageError::RangeNotSatisfiable => 416,
        }
    }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::NotFound { what } => write!(f, "404 Not Found: {what}"),
            StorageError::Forbidden {
                principal,
                permission,
            } => write!(f, "403 Forbidden: {principal} does not have {permission}"),
            StorageError::NotModified { detail } => write!(f, "304 Not Modified: {detail}"),
            StorageError::Conflict { what } => write!(f, "409 Conflict: {what} already exists"),
            StorageError::PreconditionFailed { detail } => {
                write!(f, "412 Precondition Failed: {detail}")
            }
            StorageError::RangeNotSatisfiable => write!(f, "416 Requested Range Not Satisfiable"),
        }
    }
}

impl std::error::Error for StorageError {}

/// The metadata of one generation of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub bucket: String,
    pub name: String,
    pub generation: i64,
    pub metageneration: i64,
    pub size: u64,
    pub cache_control: Option<String>,
    /// False for a noncurrent generation kept by Object Versioning.
    pub live: bool,
}

/// `ifGenerationMatch`, `ifGenerationNotMatch`, `ifMetagenerationMatch` and
/// `ifMetagenerationNotMatch`. `if_generation_match: Some(0)` means "only if there is no
/// live version of the object"; `if_generation_not_match: Some(0)` means "only if there
/// is one". A match that fails answers `412`; a not-match that fails (the value is the
/// current one) answers `304 Not Modified`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preconditions {
    pub if_generation_match: Option<i64>,
    pub if_generation_not_match: Option<i64>,
    pub if_metageneration_match: Option<i64>,
    pub if_metageneration_not_match: Option<i64>,
}

impl Preconditions {
    pub fn none() -> Self {
        Preconditions::default()
    }

    pub fn generation(generation: i64) -> Self {
        Preconditions {
            if_generation_match: Some(generation),
            ..Preconditions::default()
        }
    }

    /// `ifGenerationNotMatch`: "only if the live generation is not this one" (a reader
    /// that holds `generation` asks for the bytes only if they changed).
    pub fn generation_not(generation: i64) -> Self {
        Preconditions {
            if_generation_not_match: Some(generation),
            ..Preconditions::default()
        }
    }

    /// `ifMetagenerationMatch`: "only if the metadata is still this version".
    pub fn metageneration(metageneration: i64) -> Self {
        Preconditions {
            if_metageneration_match: Some(metageneration),
            ..Preconditions::default()
        }
    }

    pub fn does_not_exist() -> Self {
        Preconditions::generation(0)
    }
}

/// An `objects.insert` request body and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Upload {
    pub data: Vec<u8>,
    pub cache_control: Option<String>,
    pub preconditions: Preconditions,
}

impl Upload {
    pub fn new(data: impl Into<Vec<u8>>) -> Self {
        Upload {
            data: data.into(),
            ..Upload::default()
        }
    }

    pub fn if_generation_match(mut self, generation: i64) -> Self {
        self.preconditions.if_generation_match = Some(generation);
        self
    }

    pub fn if_metageneration_match(mut self, metageneration: i64) -> Self {
        self.preconditions.if_metageneration_match = Some(metageneration);
        self
    }

    pub fn cache_control(mut self, value: &str) -> Self {
        self.cache_control = Some(value.to_string());
        self
    }
}

/// An `objects.delete` request: which generation (the live one when `None`) and under
/// which preconditions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeleteRequest {
    pub generation: Option<i64>,
    pub preconditions: Preconditions,
}

/// One request as the audit trail recorded it (the simulator's truth, like a Data
/// Access audit log entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEntry {
    pub principal: String,
    pub method: String,
    pub bucket: String,
    pub name: String,
    /// The generation the request created or deleted, when it succeeded.
    pub generation: Option<i64>,
    pub status: u16,
}

/// Every statement goes through SQLite's statement cache: explorations open thousands of
/// stores, and parsing SQL again for every request would dominate their run time.
trait Cached {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    fn prepare_cached_query_row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn prepare_cached_query_row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

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

/// The store's connection. An in-memory one goes back to a small per-thread pool when
/// the store is dropped, emptied, so that the next in-memory store skips opening SQLite,
/// creating the schema and preparing every statement again (an exploration opens one
/// store per schedule). An emptied database is indistinguishable from a new one: every
/// query that returns several rows orders them.
struct Db {
    connection: Option<Connection>,
    pooled: bool,
}

thread_local! {
    static POOL: RefCell<Vec<Connection>> = const { RefCell::new(Vec::new()) };
}

/// How many emptied in-memory connections a thread keeps for reuse.
const POOL_SIZE: usize = 4;

/// The statements that empty a pooled database (table by table, so that each is a
/// cached statement; `sqlite_sequence` restarts the audit trail's numbering).
const EMPTY: [&str; 6] = [
    "DELETE FROM buckets",
    "DELETE FROM objects",
    "DELETE FROM bindings",
    "DELETE FROM audit",
    "DELETE FROM generation_clock",
    "DELETE FROM sqlite_sequence",
];

impl std::ops::Deref for Db {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.connection.as_ref().expect("an open connection")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else {
            return;
        };
        if !self.pooled {
            return;
        }
        let emptied = EMPTY
            .iter()
            .all(|sql| connection.execute_cached(sql, []).is_ok());
        if emptied {
            POOL.with(|pool| {
                let mut pool = pool.borrow_mut();
                if pool.len() < POOL_SIZE {
                    pool.push(connection);
                }
            });
        }
    }
}

/// The generation clock: where it stands, how many generations it issued, its seed.
#[derive(Clone, Copy, Debug)]
struct Clock {
    micros: i64,
    issued: i64,
    seed: i64,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS buckets (
    name TEXT PRIMARY KEY,
    versioning INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
    bucket TEXT NOT NULL,
    name TEXT NOT NULL,
    generation INTEGER NOT NULL,
    metageneration INTEGER NOT NULL,
    data BLOB NOT NULL,
    cache_control TEXT,
    live INTEGER NOT NULL,
    PRIMARY KEY (bucket, name, generation)
);
CREATE TABLE IF NOT EXISTS bindings (
    bucket TEXT NOT NULL,
    member TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (bucket, member, role)
);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    principal TEXT NOT NULL,
    method TEXT NOT NULL,
    bucket TEXT NOT NULL,
    name TEXT NOT NULL,
    generation INTEGER,
    status INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS generation_clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    micros INTEGER NOT NULL,
    issued INTEGER NOT NULL,
    seed INTEGER NOT NULL
);
";

/// Where the store's generation clock starts: 2023-11-14T22:13:20Z in microseconds since
/// the Unix epoch, a 16-digit number like the generations the real service hands out.
pub const GENERATION_EPOCH_MICROS: i64 = 1_700_000_000_000_000;

/// The seed of the generation clock's gaps when none is given.
pub const DEFAULT_GENERATION_SEED: u64 = 0x6763_735f_6765_6e73;

/// The gap between two generations, in microseconds, is drawn from `1_000..4_000_000`:
/// at least a millisecond (so no two generations are ever neighbours), at most a few
/// seconds, like uploads that are not back to back.
const GAP_MICROS: (u64, u64) = (1_000, 4_000_000);

fn not_found(bucket: &str, name: &str, generation: Option<i64>) -> StorageError {
    let what = match generation {
        Some(g) => format!("gs://{bucket}/{name}#{g}"),
        None => format!("gs://{bucket}/{name}"),
    };
    StorageError::NotFound { what }
}

/// Checks preconditions against the generation they target (`None`: no live object).
/// The not-match conditions are checked first, as Google's storage testbench does; a
/// not-match against no live object fails like a match ("If no live object exists, the
/// precondition fails").
fn check(pre: &Preconditions, target: Option<&Meta>) -> Result<(), StorageError> {
    let not_match = [
        (
            "ifGenerationNotMatch",
            "generation",
            pre.if_generation_not_match,
            target.map(|m| m.generation),
        ),
        (
            "ifMetagenerationNotMatch",
            "metageneration",
            pre.if_metageneration_not_match,
            target.map(|m| m.metageneration),
        ),
    ];
    for (parameter, property, unwanted, have) in not_match {
        let Some(unwanted) = unwanted else { continue };
        match have {
            None => {
                return Err(StorageError::PreconditionFailed {
                    detail: format!("{parameter}={unwanted}, and there is no live object"),
                });
            }
            Some(have) if have == unwanted => {
                return Err(StorageError::NotModified {
                    detail: format!(
                        "{parameter}={unwanted}, and the current {property} is that one"
                    ),
                });
            }
            Some(_) => {}
        }
    }
    if let Some(want) = pre.if_generation_match {
        let have = target.map(|m| m.generation).unwrap_or(0);
        if have != want {
            return Err(StorageError::PreconditionFailed {
                detail: format!("ifGenerationMatch={want}, current generation is {have}"),
            });
        }
    }
    if let Some(want) = pre.if_metageneration_match {
        let have = target.map(|m| m.metageneration).unwrap_or(0);
        if have != want {
            return Err(StorageError::PreconditionFailed {
                detail: format!("ifMetagenerationMatch={want}, current metageneration is {have}"),
            });
        }
    }
    Ok(())
}

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

    /// `buckets.insert`, with Object Versioning on or off. A bucket that exists is a
    /// `409 Conflict`: its settings and its objects (noncurrent generations included) are
    /// left as they were.
    pub fn create_bucket(&mut self, bucket: &str, versioning: bool) -> Result<(), StorageError> {
        let created = self
            .db
            .execute_cached(
                "INSERT OR IGNORE INTO buckets (name, versioning) VALUES (?1, ?2)",
                params![bucket, versioning],
            )
            .expect("create bucket");
        if created == 0 {
            return Err(StorageError::Conflict {
                what: format!("gs://{bucket}"),
            });
        }
        self.buckets.insert(bucket.to_string(), versioning);
        Ok(())
    }

    /// Adds an IAM binding (member, role) to the bucket's policy.
    pub fn grant(&mut self, bucket: &str, member: &str, role: Role) {
        self.db
            .execute_cached(
                "INSERT OR IGNORE INTO bindings (bucket, member, role) VALUES (?1, ?2, ?3)",
                params![bucket, member, role.name()],
            )
            .expect("grant");
        self.bindings
            .insert((bucket.to_string(), member.to_string(), role));
    }

    /// Whether `principal` holds `permission` on `bucket` (directly or via `allUsers`).
    pub fn can(&self, principal: &str, bucket: &str, permission: Permission) -> bool {
        self.bindings.iter().any(|(b, member, role)| {
            b == bucket && (member == principal || member == "allUsers") && role.grants(permission)
        })
    }

    fn require(
        &self,
        principal: &str,
        bucket: &str,
        permission: Permission,
    ) -> Result<(), StorageError> {
        self.versioning(bucket)?;
        if self.can(principal, bucket, permission) {
            Ok(())
        } else {
            Err(StorageError::Forbidden {
                principal: principal.to_string(),
                permission: permission.name(),
            })
        }
    }

    fn versioning(&self, bucket: &str) -> Result<bool, StorageError> {
        self.buckets
            .get(bucket)
            .copied()
            .ok_or_else(|| StorageError::NotFound {
                what: format!("gs://{bucket}"),
            })
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

    /// `objects.insert`: uploads a new generation, which becomes the live version.
    pub fn insert(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        upload: Upload,
    ) -> Result<Meta, StorageError> {
        let result = self.insert_inner(principal, bucket, name, upload);
        let outcome = result.as_ref().map(|m| Some(m.generation));
        self.record(principal, "objects.insert", bucket, name, outcome);
        result
    }

    fn insert_inner(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        upload: Upload,
    ) -> Result<Meta, StorageError> {
        self.require(principal, bucket, Permission::Create)?;
        let versioning = self.versioning(bucket)?;
        let live = self.meta(bucket, name, None);
        check(&upload.preconditions, live.as_ref())?;
        if let Some(old) = &live {
            // Replacing an existing object also needs storage.objects.delete.
            self.require(principal, bucket, Permission::Delete)?;
            self.retire(bucket, name, old.generation, versioning);
        }
        let generation = self.next_generation();
        self.db
            .execute_cached(
                "INSERT INTO objects (bucket, name, generation, metageneration, data, cache_control, live)
                 VALUES (?1, ?2, ?3, 1, ?4, ?5, 1)",
                params![bucket, name, generation, upload.data, upload.cache_control],
            )
            .expect("insert object");
        Ok(Meta {
            bucket: bucket.to_string(),
            name: name.to_string(),
            generation,
            metageneration: 1,
            size: upload.data.len() as u64,
            cache_control: upload.cache_control,
            live: true,
        })
    }

    /// `objects.get` (metadata): the live version, or the named generation.
    pub fn get(
        &self,
        principal: &str,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
        preconditions: Preconditions,
    ) -> Result<Meta, StorageError> {
        self.require(principal, bucket, Permission::Get)?;
        let meta = self
            .meta(bucket, name, generation)
            .ok_or_else(|| not_found(bucket, name, generation))?;
        check(&preconditions, Some(&meta))?;
        Ok(meta)
    }

    /// `objects.get?alt=media`: the data of the live version or of the named
    /// generation, whole or one byte range (`Range: bytes=start-(end-1)`).
    pub fn get_media(
        &self,
        principal: &str,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
        range: Option<Range<u64>>,
        preconditions: Preconditions,
    ) -> Result<(Meta, Vec<u8>), StorageError> {
        let meta = self.get(principal, bucket, name, generation, preconditions)?;
        let data: Vec<u8> = self
            .db
            .prepare_cached_query_row(
                "SELECT data FROM objects WHERE bucket = ?1 AND name = ?2 AND generation = ?3",
                params![bucket, name, meta.generation],
                |row| row.get(0),
            )
            .expect("read object data");
        let data = match range {
            None => data,
            Some(r) => {
                let size = data.len() as u64;
                if r.start >= size || r.start >= r.end {
                    return Err(StorageError::RangeNotSatisfiable);
                }
                data[r.start as usize..r.end.min(size) as usize].to_vec()
            }
        };
        Ok((meta, data))
    }

    /// `objects.patch`: changes the metadata of the live version (here: Cache-Control)
    /// and bumps its metageneration.
    pub fn patch(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        cache_control: Option<&str>,
        preconditions: Preconditions,
    ) -> Result<Meta, StorageError> {
        let result = (|| {
            self.require(principal, bucket, Permission::Update)?;
            let live = self
                .meta(bucket, name, None)
                .ok_or_else(|| not_found(bucket, name, None))?;
            check(&preconditions, Some(&live))?;
            self.db
                .execute_cached(
                    "UPDATE objects SET metageneration = metageneration + 1, cache_control = ?4
                     WHERE bucket = ?1 AND name = ?2 AND generation = ?3",
                    params![bucket, name, live.generation, cache_control],
                )
                .expect("patch object");
            Ok(self
                .meta(bucket, name, Some(live.generation))
                .expect("patched"))
        })();
        let outcome = result.as_ref().map(|m| Some(m.generation));
        self.record(principal, "objects.patch", bucket, name, outcome);
        result
    }

    /// `objects.delete`: the live version, or the named generation.
    pub fn delete(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        request: DeleteRequest,
    ) -> Result<(), StorageError> {
        let result = (|| {
            self.require(principal, bucket, Permission::Delete)?;
            let target = self
                .meta(bucket, name, request.generation)
                .ok_or_else(|| not_found(bucket, name, request.generation))?;
            check(&request.preconditions, Some(&target))?;
            // Deleting the live version without naming a generation keeps it as
            // noncurrent when versioning is on; naming a generation deletes it for good.
            let versioning = self.versioning(bucket)?;
            let keep = target.live && versioning && request.generation.is_none();
            self.retire(bucket, name, target.generation, keep);
            Ok(target.generation)
        })();
        let outcome = result.as_ref().map(|g| Some(*g));
        self.record(principal, "objects.delete", bucket, name, outcome);
        result.map(|_| ())
    }

    /// A JSON API batch of deletes: each part is handled as its own request, in order,
    /// and answered on its own. Nothing makes the parts succeed or fail together.
    pub fn batch_delete(
        &mut self,
        principal: &str,
        bucket: &str,
        parts: &[(&str, DeleteRequest)],
    ) -> Vec<Result<(), StorageError>> {
        parts
            .iter()
            .map(|(name, request)| self.delete(principal, bucket, name, *request))
            .collect()
    }

    /// `objects.list`: the live objects whose names start with `prefix`, by name.
    pub fn list(
        &self,
        principal: &str,
        bucket: &str,
        prefix: &str,
    ) -> Result<Vec<Meta>, StorageError> {
        self.require(principal, bucket, Permission::List)?;
        let mut statement = self
            .db
            .prepare_cached(
                "SELECT name, generation, metageneration, length(data), cache_control
                 FROM objects WHERE bucket = ?1 AND live = 1 AND substr(name, 1, length(?2)) = ?2
                 ORDER BY name",
            )
            .expect("prepare list");
        let rows = statement
            .query_map(params![bucket, prefix], |row| {
                Ok(Meta {
                    bucket: bucket.to_string(),
                    name: row.get(0)?,
                    generation: row.get(1)?,
                    metageneration: row.get(2)?,
                    size: row.get::<_, i64>(3)? as u64,
                    cache_control: row.get(4)?,
                    live: true,
                })
            })
            .expect("list objects");
        Ok(rows.map(|r| r.expect("read listed object")).collect())
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
