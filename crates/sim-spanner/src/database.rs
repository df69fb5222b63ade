//! The database: tables of versioned rows, what a read-write transaction read (to
//! validate at commit) and what it buffered, and the reads outside any transaction. The
//! commit itself, whose outcome the fault core decides, is in `database/commit.rs`.

use crate::{Code, Mutation, Row, SpannerError};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

mod commit;

#[cfg(test)]
pub(crate) use commit::{COMMIT_FATES, COMMIT_LABELS};

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
}
