//! The database: tables of rows, read-write transactions that buffer mutations, and a
//! commit whose outcome the fault core decides.

use labkit::fault::{Fate, Glyph, Sim};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A column value. Text is shared (`Rc<str>`), so reading a row copies no text: a
/// lab's exploration reads rows tens of thousands of times per second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(Rc<str>),
    Bool(bool),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(Rc::from(v))
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(Rc::from(v))
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Value::Text(Rc::from(v.as_str()))
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

/// One row: named columns, in the order they were set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    columns: Vec<(&'static str, Value)>,
}

impl Row {
    pub fn new() -> Self {
        // Room for the handful of columns a lab row has, so building one allocates once.
        Row {
            columns: Vec::with_capacity(6),
        }
    }

    /// The row with `column` set to `value` (replacing an earlier value).
    pub fn with(mut self, column: &'static str, value: impl Into<Value>) -> Self {
        self.set(column, value);
        self
    }

    pub fn set(&mut self, column: &'static str, value: impl Into<Value>) {
        let value = value.into();
        match self.columns.iter_mut().find(|(name, _)| *name == column) {
            Some(slot) => slot.1 = value,
            None => self.columns.push((column, value)),
        }
    }

    pub fn get(&self, column: &str) -> Option<&Value> {
        self.columns
            .iter()
            .find(|(name, _)| *name == column)
            .map(|(_, v)| v)
    }

    pub fn text(&self, column: &str) -> Option<&str> {
        match self.get(column) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn int(&self, column: &str) -> Option<i64> {
        match self.get(column) {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn bool(&self, column: &str) -> Option<bool> {
        match self.get(column) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// Columns of `other` override these (what `Update` and `InsertOrUpdate` do).
    fn merge(&mut self, other: Row) {
        for (name, value) in other.columns {
            self.set(name, value);
        }
    }
}

/// A write buffered by a read-write transaction and applied at commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Fails the commit with ALREADY_EXISTS when the row exists.
    Insert {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Fails the commit with NOT_FOUND when the row does not exist.
    Update {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Writes the given columns whether or not the row exists.
    InsertOrUpdate {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Deletes the row if it exists.
    Delete { table: &'static str, key: Rc<str> },
}

impl Mutation {
    fn target(&self) -> (&'static str, &Rc<str>) {
        match self {
            Mutation::Insert { table, key, .. }
            | Mutation::Update { table, key, .. }
            | Mutation::InsertOrUpdate { table, key, .. }
            | Mutation::Delete { table, key } => (table, key),
        }
    }
}

/// The canonical error codes this simulator returns (google.rpc.Code names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Definite: the transaction did not commit; retry the whole transaction.
    Aborted,
    /// Indefinite: no response within the deadline; the commit may or may not have applied.
    DeadlineExceeded,
    /// Definite: an `Insert` found its row already there; nothing was applied.
    AlreadyExists,
    /// Definite: an `Update` found no row; nothing was applied.
    NotFound,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::Aborted => "ABORTED",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::NotFound => "NOT_FOUND",
        }
    }
}

/// An error returned by the database or the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpannerError {
    pub code: Code,
}

impl fmt::Display for SpannerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code.name())
    }
}

impl std::error::Error for SpannerError {}

/// What a successful commit returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitResponse {
    pub commit_timestamp: u64,
}

#[derive(Clone, Debug)]
struct Stored {
    /// `None` once deleted: the version stays, so a read of the absent row still notices
    /// a later write.
    row: Option<Row>,
    /// The commit timestamp of the last write.
    version: u64,
}

/// What can happen to a commit (option 0 first), and the labels the fault core records;
/// `Sim::fate` does the same, without a fixed array.
pub(crate) const COMMIT_FATES: [Fate; 5] = [
    Fate::Ok,
    Fate::Rejected,
    Fate::AppliedResponseLost,
    Fate::NotApplied,
    Fate::AppliedLater,
];
pub(crate) const COMMIT_LABELS: [&str; 5] = [
    "ok",
    "rejected (definite)",
    "applied, response lost",
    "not applied",
    "applied later",
];

/// A commit whose fate was "applied later": it lands before the next commit.
#[derive(Clone, Debug)]
struct InFlight {
    reads: Vec<(&'static str, Rc<str>, u64)>,
    mutations: Vec<Mutation>,
}

/// The durable state of the database. A crash of the application keeps it whole.
#[derive(Clone, Debug, Default)]
pub struct Database {
    tables: BTreeMap<&'static str, BTreeMap<Rc<str>, Stored>>,
    last_commit_timestamp: u64,
    in_flight: Vec<InFlight>,
    commits: u64,
}

/// A read-write transaction in progress: it reads committed rows and buffers mutations.
/// The runner creates it; the callback uses it.
pub struct Transaction<'db> {
    db: &'db Database,
    reads: Vec<(&'static str, Rc<str>, u64)>,
    mutations: Vec<Mutation>,
}

impl Transaction<'_> {
    /// Reads one row as of the last commit. The read is remembered: if another commit
    /// writes this row before this transaction commits, the commit ends ABORTED.
    /// Buffered mutations of this transaction are not visible here.
    pub fn read(&mut self, table: &'static str, key: &str) -> Option<Row> {
        match self.db.stored_entry(table, key) {
            Some((stored_key, stored)) => {
                self.reads.push((table, stored_key.clone(), stored.version));
                stored.row.clone()
            }
            None => {
                self.reads.push((table, Rc::from(key), 0));
                None
            }
        }
    }

    /// Every row of a table, in key order (a full scan; each row read is remembered).
    pub fn scan(&mut self, table: &'static str) -> Vec<(String, Row)> {
        let mut out = Vec::new();
        if let Some(rows) = self.db.tables.get(table) {
            for (key, stored) in rows {
                self.reads.push((table, key.clone(), stored.version));
                if let Some(row) = &stored.row {
                    out.push((key.to_string(), row.clone()));
                }
            }
        }
        out
    }

    /// Buffers a mutation; it is applied only if the transaction commits.
    pub fn buffer(&mut self, mutation: Mutation) {
        self.mutations.push(mutation);
    }

    pub fn insert(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::Insert {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn update(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::Update {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn insert_or_update(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::InsertOrUpdate {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn delete(&mut self, table: &'static str, key: &str) {
        self.buffer(Mutation::Delete {
            table,
            key: Rc::from(key),
        });
    }

    /// Ends the callback's use of the transaction: what it read and what it buffered,
    /// ready for [`Database::commit`].
    pub fn finish(self) -> Buffered {
        Buffered {
            reads: self.reads,
            mutations: self.mutations,
        }
    }
}

/// A finished transaction's reads and buffered mutations, ready to commit.
#[derive(Clone, Debug)]
pub struct Buffered {
    reads: Vec<(&'static str, Rc<str>, u64)>,
    mutations: Vec<Mutation>,
}

impl Database {
    pub fn new() -> Self {
        Database::default()
    }

    fn stored(&self, table: &str, key: &str) -> Option<&Stored> {
        self.tables.get(table).and_then(|rows| rows.get(key))
    }

    fn stored_entry(&self, table: &str, key: &str) -> Option<(&Rc<str>, &Stored)> {
        self.tables
            .get(table)
            .and_then(|rows| rows.get_key_value(key))
    }

    /// A strong read outside any transaction (a single-use read-only transaction).
    pub fn read(&self, table: &str, key: &str) -> Option<Row> {
        self.stored(table, key).and_then(|s| s.row.clone())
    }

    /// Every live row of a table, in key order.
    pub fn rows(&self, table: &str) -> Vec<(String, Row)> {
        self.tables
            .get(table)
            .map(|rows| {
                rows.iter()
                    .filter_map(|(k, s)| s.row.clone().map(|r| (k.to_string(), r)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True when `table` holds the same live rows here and in `other`.
    pub fn same_rows(&self, other: &Database, table: &str) -> bool {
        fn live<'a>(db: &'a Database, table: &str) -> Vec<(&'a Rc<str>, &'a Row)> {
            db.tables
                .get(table)
                .into_iter()
                .flat_map(|rows| rows.iter())
                .filter_map(|(k, s)| s.row.as_ref().map(|r| (k, r)))
                .collect()
        }
        live(self, table) == live(other, table)
    }

    /// Live rows in a table.
    pub fn count(&self, table: &str) -> usize {
        self.tables
            .get(table)
            .map_or(0, |rows| rows.values().filter(|s| s.row.is_some()).count())
    }

    /// The timestamp of the last applied commit (0 before any).
    pub fn last_commit_timestamp(&self) -> u64 {
        self.last_commit_timestamp
    }

    /// How many commits were applied.
    pub fn applied_commits(&self) -> u64 {
        self.commits
    }

    /// True while a commit that ended DEADLINE_EXCEEDED is still in flight.
    pub fn has_commit_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// Starts a read-write transaction. Application code gets one from
    /// [`run_transaction`](crate::run_transaction); this is public for tests and setup.
    pub fn begin(&self) -> Transaction<'_> {
        Transaction {
            db: self,
            reads: Vec::new(),
            mutations: Vec::new(),
        }
    }

    /// Applies rows directly, as a fixture (the state a lab starts from). Not a
    /// transaction: no fault, no validation.
    pub fn seed(&mut self, mutations: &[Mutation]) {
        self.apply(mutations.to_vec())
            .expect("fixture mutations apply");
    }

    /// Commits a transaction's buffered mutations. The outcome:
    ///
    /// * ABORTED, definite, when a row it read was written after the read (no choice);
    /// * otherwise the fault core's fate: ok, ABORTED (injected), or DEADLINE_EXCEEDED with
    ///   the hidden truth applied / not applied / applied later;
    /// * an applied commit can still fail definitely with ALREADY_EXISTS or NOT_FOUND,
    ///   in which case nothing is applied.
    pub fn commit(
        &mut self,
        sim: &mut Sim,
        parts: Buffered,
    ) -> Result<CommitResponse, SpannerError> {
        self.land_in_flight(sim);
        if let Some((table, key)) = self.stale_read(&parts.reads) {
            sim.event("spanner", Glyph::Error, || {
                (
                    "commit -> ABORTED".into(),
                    format!("{table}/{key} changed after the transaction read it"),
                )
            });
            return Err(SpannerError {
                code: Code::Aborted,
            });
        }
        let fate = COMMIT_FATES[sim.choose("spanner:commit", &COMMIT_LABELS)];
        match fate {
            Fate::Ok => match self.apply(parts.mutations) {
                Ok(ts) => {
                    sim.event("spanner", Glyph::Normal, || {
                        (
                            format!("commit -> ok, commit timestamp {ts}"),
                            String::new(),
                        )
                    });
                    Ok(CommitResponse {
                        commit_timestamp: ts,
                    })
                }
                Err(code) => {
                    sim.event("spanner", Glyph::Error, || {
                        (
                            format!("commit -> {}", code.name()),
                            "nothing applied".into(),
                        )
                    });
                    Err(SpannerError { code })
                }
            },
            Fate::Rejected => {
                sim.event("spanner", Glyph::Error, || {
                    (
                        "commit -> ABORTED".into(),
                        "aborted by the database; nothing applied".into(),
                    )
                });
                Err(SpannerError {
                    code: Code::Aborted,
                })
            }
            Fate::AppliedResponseLost => {
                let truth = match self.apply(parts.mutations) {
                    Ok(ts) => format!("applied at commit timestamp {ts}, response lost"),
                    Err(code) => format!("not applied ({})", code.name()),
                };
                sim.event("spanner", Glyph::Indefinite, || {
                    ("commit -> DEADLINE_EXCEEDED".into(), truth)
                });
                Err(SpannerError {
                    code: Code::DeadlineExceeded,
                })
            }
            Fate::NotApplied => {
                sim.event("spanner", Glyph::Indefinite, || {
                    ("commit -> DEADLINE_EXCEEDED".into(), "not applied".into())
                });
                Err(SpannerError {
                    code: Code::DeadlineExceeded,
                })
            }
            Fate::AppliedLater => {
                self.in_flight.push(InFlight {
                    reads: parts.reads,
                    mutations: parts.mutations,
                });
                sim.event("spanner", Glyph::Indefinite, || {
                    (
                        "commit -> DEADLINE_EXCEEDED".into(),
                        "still in flight: lands before the next commit".into(),
                    )
                });
                Err(SpannerError {
                    code: Code::DeadlineExceeded,
                })
            }
        }
    }

    /// Lands every commit still in flight (each validated like any commit). The
    /// database does this before it processes the next commit; a scenario calls it when
    /// the faults heal, so nothing stays in flight forever.
    pub fn land_in_flight(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let outcome = match self.stale_read(&late.reads) {
                Some((table, key)) => format!("aborted: {table}/{key} changed since it was read"),
                None => match self.apply(late.mutations) {
                    Ok(ts) => format!("applied at commit timestamp {ts}"),
                    Err(code) => format!("not applied ({})", code.name()),
                },
            };
            sim.event("spanner", Glyph::Fault, || {
                (
                    String::new(),
                    format!("the commit in flight lands: {outcome}"),
                )
            });
        }
    }

    fn stale_read(
        &self,
        reads: &[(&'static str, Rc<str>, u64)],
    ) -> Option<(&'static str, Rc<str>)> {
        reads
            .iter()
            .find(|(table, key, version)| {
                self.stored(table, key).map_or(0, |s| s.version) != *version
            })
            .map(|(table, key, _)| (*table, key.clone()))
    }

    /// Applies all mutations or none; returns the new commit timestamp.
    fn apply(&mut self, mutations: Vec<Mutation>) -> Result<u64, Code> {
        for m in &mutations {
            let (table, key) = m.target();
            let exists = self.stored(table, key).is_some_and(|s| s.row.is_some());
            match m {
                Mutation::Insert { .. } if exists => return Err(Code::AlreadyExists),
                Mutation::Update { .. } if !exists => return Err(Code::NotFound),
                _ => {}
            }
        }
        self.last_commit_timestamp += 1;
        self.commits += 1;
        let ts = self.last_commit_timestamp;
        for m in mutations {
            let (table, key) = m.target();
            let slot = self
                .tables
                .entry(table)
                .or_default()
                .entry(key.clone())
                .or_insert(Stored {
                    row: None,
                    version: 0,
                });
            slot.version = ts;
            match m {
                Mutation::Insert { row, .. } => slot.row = Some(row),
                Mutation::Update { row, .. } | Mutation::InsertOrUpdate { row, .. } => {
                    match &mut slot.row {
                        Some(existing) => existing.merge(row),
                        None => slot.row = Some(row),
                    }
                }
                Mutation::Delete { .. } => slot.row = None,
            }
        }
        Ok(ts)
    }
}
