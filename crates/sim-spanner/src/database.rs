//! The database: tables of versioned rows, the validation of a read-write transaction's
//! reads at commit, and a commit whose outcome the fault core decides.

use labkit::fault::{Fate, Glyph, Sim};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;
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
    pub(crate) fn merge(&mut self, other: Row) {
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
    /// Definite: the transaction did not commit; retry the whole transaction. Returned by
    /// a commit, or by a DML statement inside the transaction; after it the attempt is
    /// over and every further call on it answers ABORTED again.
    Aborted,
    /// Indefinite: no response within the deadline; the commit may or may not have applied.
    /// A read whose timestamp lies further in the future than its deadline ends with it
    /// too, having returned nothing.
    DeadlineExceeded,
    /// Definite: an `Insert` found its row already there; nothing was applied.
    AlreadyExists,
    /// Definite: an `Update` found no row; nothing was applied.
    NotFound,
    /// Definite: the request does not fit the state it meets: a read at a timestamp older
    /// than version GC keeps, or a call on a transaction that has already ended (committed,
    /// rolled back, or whose commit failed).
    FailedPrecondition,
    /// Definite: the request is not valid as asked (a bounded-staleness bound on a
    /// transaction that is not single-use).
    InvalidArgument,
    /// Indefinite: Spanner "has lost track of the transaction outcome" of a commit; read
    /// the database to learn what happened. Returned only where a scenario asks for it
    /// ([`Database::answer_unknown_commits_with`]).
    Unknown,
    /// Indefinite when it ends a commit: the client cancelled the call while the commit was
    /// in flight, and the server may have applied it. Returned only where a scenario asks
    /// for it ([`Database::answer_unknown_commits_with`]).
    Cancelled,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::Aborted => "ABORTED",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::NotFound => "NOT_FOUND",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::Unknown => "UNKNOWN",
            Code::Cancelled => "CANCELLED",
        }
    }

    /// True when a commit that ended with this code may or may not have applied:
    /// DEADLINE_EXCEEDED, UNKNOWN and CANCELLED. Only a read of the database tells.
    pub fn is_outcome_unknown(self) -> bool {
        matches!(
            self,
            Code::DeadlineExceeded | Code::Unknown | Code::Cancelled
        )
    }
}

/// An error returned by the database or the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpannerError {
    pub code: Code,
}

impl SpannerError {
    pub(crate) fn new(code: Code) -> Self {
        SpannerError { code }
    }
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

/// One key of a table: its latest version and the versions before it.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    /// `None` once deleted: the version stays, so a read of the absent row still notices
    /// a later write.
    pub(crate) row: Option<Row>,
    /// The commit timestamp of the last write.
    pub(crate) version: u64,
    /// Earlier versions, oldest first: (commit timestamp, the row then, `None` if absent).
    /// Reads at a past timestamp use them.
    history: Vec<(u64, Option<Row>)>,
}

impl Stored {
    /// The row as of timestamp `at`: the newest version committed at or before it.
    pub(crate) fn at(&self, at: u64) -> Option<&Row> {
        if self.version <= at {
            return self.row.as_ref();
        }
        self.history
            .iter()
            .rev()
            .find(|(version, _)| *version <= at)
            .and_then(|(_, row)| row.as_ref())
    }
}

/// The rows `mutations` write, as locks seen at `snapshot`: a commit under REPEATABLE_READ
/// conflicts when another commit wrote one of them after the snapshot.
fn write_locks(mutations: &[Mutation], snapshot: u64) -> Vec<ReadLock> {
    mutations
        .iter()
        .map(|m| {
            let (table, key) = m.target();
            ReadLock {
                table,
                span: Span::Key(key.clone()),
                seen: snapshot,
            }
        })
        .collect()
}

/// A table: rows in key order.
pub(crate) type Table = BTreeMap<Rc<str>, Stored>;

/// What a transaction read, remembered so that the commit can check it is still true:
/// one key, or a whole key range (a scan), as of the last commit the read saw.
#[derive(Clone, Debug)]
pub(crate) struct ReadLock {
    pub(crate) table: &'static str,
    pub(crate) span: Span,
    /// The timestamp of the last commit when the read ran: every write the read saw
    /// committed at or before it.
    pub(crate) seen: u64,
}

/// The keys a read covered.
#[derive(Clone, Debug)]
pub(crate) enum Span {
    Key(Rc<str>),
    /// `[start, end)`; `None` is unbounded.
    Range(Option<Rc<str>>, Option<Rc<str>>),
}

impl Span {
    fn describe(&self, table: &str) -> String {
        match self {
            Span::Key(key) => format!("{table}/{key} changed after the transaction read it"),
            Span::Range(None, None) => {
                format!(
                    "a row of {table} was inserted, changed or deleted after the transaction scanned the table"
                )
            }
            Span::Range(start, end) => format!(
                "a row of {table} in [{}, {}) was inserted, changed or deleted after the transaction scanned that range",
                start.as_deref().unwrap_or(""),
                end.as_deref().unwrap_or("end")
            ),
        }
    }
}

/// The keys of `table` in `[start, end)` (either end open when `None`).
pub(crate) fn range<'a>(
    table: &'a Table,
    start: Option<&'a str>,
    end: Option<&'a str>,
) -> impl Iterator<Item = (&'a Rc<str>, &'a Stored)> + 'a {
    let bounds = match (start, end) {
        // An empty or inverted range reads nothing (`BTreeMap::range` panics on the latter).
        (Some(s), Some(e)) if s >= e => (Bound::Included(s), Bound::Excluded(s)),
        _ => (
            start.map_or(Bound::Unbounded, Bound::Included),
            end.map_or(Bound::Unbounded, Bound::Excluded),
        ),
    };
    table.range::<str, _>(bounds)
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
    reads: Vec<ReadLock>,
    mutations: Vec<Mutation>,
}

/// The durable state of the database. A crash of the application keeps it whole.
#[derive(Clone, Debug, Default)]
pub struct Database {
    pub(crate) tables: BTreeMap<&'static str, Table>,
    last_commit_timestamp: u64,
    in_flight: Vec<InFlight>,
    commits: u64,
    /// The code a commit with an unknown outcome answers; `None`: DEADLINE_EXCEEDED.
    unknown_outcome: Option<Code>,
}

/// A finished read-write attempt: what it read (to validate at commit), its DML writes
/// and its buffered mutations, ready for [`Database::commit`].
#[derive(Clone, Debug, Default)]
pub struct Buffered {
    pub(crate) reads: Vec<ReadLock>,
    /// The state each DML statement left a row in (`None`: deleted), latest per key.
    pub(crate) dml: Vec<(&'static str, Rc<str>, Option<Row>)>,
    pub(crate) mutations: Vec<Mutation>,
    /// A DML statement of this attempt ended ABORTED: the attempt can no longer commit.
    pub(crate) aborted: bool,
    /// REPEATABLE_READ instead of the default SERIALIZABLE.
    pub(crate) repeatable_read: bool,
    /// Under REPEATABLE_READ, the timestamp every read of the attempt sees: the last
    /// commit when the attempt first read.
    pub(crate) snapshot: Option<u64>,
}

impl Buffered {
    /// Everything the commit writes, in order: the DML results first (they already
    /// happened inside the transaction), then the buffered mutations.
    fn into_writes(self) -> (Vec<ReadLock>, Vec<Mutation>) {
        let mut writes = Vec::with_capacity(self.dml.len() + self.mutations.len());
        for (table, key, row) in self.dml {
            writes.push(match row {
                Some(row) => Mutation::InsertOrUpdate { table, key, row },
                None => Mutation::Delete { table, key },
            });
        }
        writes.extend(self.mutations);
        (self.reads, writes)
    }
}

impl Database {
    pub fn new() -> Self {
        Database::default()
    }

    /// Makes every commit whose outcome is unknown (applied with its response lost, not
    /// applied, applied later) answer `code` instead of DEADLINE_EXCEEDED: UNKNOWN (Spanner
    /// lost track of the outcome) or CANCELLED (the client cancelled the call in flight).
    pub fn answer_unknown_commits_with(&mut self, code: Code) {
        assert!(
            code.is_outcome_unknown(),
            "{} is a definite outcome",
            code.name()
        );
        self.unknown_outcome = Some(code);
    }

    fn unknown_outcome(&self) -> SpannerError {
        SpannerError::new(self.unknown_outcome.unwrap_or(Code::DeadlineExceeded))
    }

    pub(crate) fn stored(&self, table: &str, key: &str) -> Option<&Stored> {
        self.tables.get(table).and_then(|rows| rows.get(key))
    }

    pub(crate) fn stored_entry(&self, table: &str, key: &str) -> Option<(&Rc<str>, &Stored)> {
        self.tables
            .get(table)
            .and_then(|rows| rows.get_key_value(key))
    }

    /// A strong read outside any transaction (a single-use read-only transaction): the
    /// row as the last commit left it.
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

    /// Applies rows directly, as a fixture (the state a lab starts from). Not a
    /// transaction: no fault, no validation; it is stamped just after the last commit.
    pub fn seed(&mut self, mutations: &[Mutation]) {
        let now = self.last_commit_timestamp;
        self.apply(mutations.to_vec(), now)
            .expect("fixture mutations apply");
    }

    /// Commits a transaction's DML writes and buffered mutations. The outcome:
    ///
    /// * ABORTED, definite, when a DML statement of the attempt already ended ABORTED, or
    ///   when a row or a range it read was written after the read (no choice);
    /// * otherwise the fault core's fate: ok, ABORTED (injected), or DEADLINE_EXCEEDED with
    ///   the hidden truth applied / not applied / applied later;
    /// * an applied commit can still fail definitely with ALREADY_EXISTS or NOT_FOUND,
    ///   in which case nothing is applied.
    ///
    /// The commit timestamp is the fault core's logical clock (one tick a second), moved
    /// on by one when an earlier commit already holds that second.
    pub fn commit(
        &mut self,
        sim: &mut Sim,
        parts: Buffered,
    ) -> Result<CommitResponse, SpannerError> {
        self.land_in_flight(sim);
        if parts.aborted {
            sim.event("spanner", Glyph::Error, || {
                (
                    "commit -> ABORTED".into(),
                    "the attempt was already aborted; nothing applied".into(),
                )
            });
            return Err(SpannerError::new(Code::Aborted));
        }
        let repeatable = parts.repeatable_read.then_some(parts.snapshot);
        let (reads, mutations) = parts.into_writes();
        // REPEATABLE_READ detects write-write conflicts only: the commit checks the rows it
        // writes, not the rows it read, against its snapshot.
        let reads = match repeatable {
            Some(snapshot) => {
                write_locks(&mutations, snapshot.unwrap_or(self.last_commit_timestamp))
            }
            None => reads,
        };
        if let Some(conflict) = self.stale_read(&reads) {
            sim.event("spanner", Glyph::Error, || {
                ("commit -> ABORTED".into(), conflict)
            });
            return Err(SpannerError::new(Code::Aborted));
        }
        let fate = COMMIT_FATES[sim.choose("spanner:commit", &COMMIT_LABELS)];
        let now = sim.now();
        let unknown = self.unknown_outcome();
        match fate {
            Fate::Ok => match self.apply(mutations, now) {
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
                    Err(SpannerError::new(code))
                }
            },
            Fate::Rejected => {
                sim.event("spanner", Glyph::Error, || {
                    (
                        "commit -> ABORTED".into(),
                        "aborted by the database; nothing applied".into(),
                    )
                });
                Err(SpannerError::new(Code::Aborted))
            }
            Fate::AppliedResponseLost => {
                let truth = match self.apply(mutations, now) {
                    Ok(ts) => format!("applied at commit timestamp {ts}, response lost"),
                    Err(code) => format!("not applied ({})", code.name()),
                };
                sim.event("spanner", Glyph::Indefinite, || {
                    (format!("commit -> {}", unknown.code.name()), truth)
                });
                Err(unknown)
            }
            Fate::NotApplied => {
                sim.event("spanner", Glyph::Indefinite, || {
                    (
                        format!("commit -> {}", unknown.code.name()),
                        "not applied".into(),
                    )
                });
                Err(unknown)
            }
            Fate::AppliedLater => {
                self.in_flight.push(InFlight { reads, mutations });
                sim.event("spanner", Glyph::Indefinite, || {
                    (
                        format!("commit -> {}", unknown.code.name()),
                        "still in flight: lands before the next commit".into(),
                    )
                });
                Err(unknown)
            }
        }
    }

    /// Lands every commit still in flight (each validated like any commit). The
    /// database does this before it processes the next commit; a scenario calls it when
    /// the faults heal, so nothing stays in flight forever.
    pub fn land_in_flight(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let outcome = match self.stale_read(&late.reads) {
                Some(conflict) => format!("aborted: {conflict}"),
                None => match self.apply(late.mutations, sim.now()) {
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

    /// The first read that is no longer true: a key, or any key of a scanned range, that
    /// some commit wrote (inserted, changed or deleted) after the read saw the database.
    fn stale_read(&self, reads: &[ReadLock]) -> Option<String> {
        reads
            .iter()
            .find(|lock| {
                let Some(rows) = self.tables.get(lock.table) else {
                    return false;
                };
                match &lock.span {
                    Span::Key(key) => rows.get(&**key).is_some_and(|s| s.version > lock.seen),
                    Span::Range(start, end) => range(rows, start.as_deref(), end.as_deref())
                        .any(|(_, s)| s.version > lock.seen),
                }
            })
            .map(|lock| lock.span.describe(lock.table))
    }

    /// Applies all mutations or none; returns the new commit timestamp: `now`, or one
    /// more than the last commit when that is later (timestamps strictly increase).
    fn apply(&mut self, mutations: Vec<Mutation>, now: u64) -> Result<u64, Code> {
        for m in &mutations {
            let (table, key) = m.target();
            let exists = self.stored(table, key).is_some_and(|s| s.row.is_some());
            match m {
                Mutation::Insert { .. } if exists => return Err(Code::AlreadyExists),
                Mutation::Update { .. } if !exists => return Err(Code::NotFound),
                _ => {}
            }
        }
        let ts = now.max(self.last_commit_timestamp + 1);
        self.last_commit_timestamp = ts;
        self.commits += 1;
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
                    history: Vec::new(),
                });
            if slot.version != 0 && slot.version != ts {
                // Keep the version this write replaces, for reads at a past timestamp.
                slot.history.push((slot.version, slot.row.clone()));
            }
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
