//! What one attempt of a read-write transaction reads and writes: its reads (remembered
//! for the commit to validate), including scans of a key range, and its DML statements
//! ([`Dml`]), executed at once and seen by its later reads.

use crate::database::{ReadLock, Span, range};
use crate::{Buffered, Code, Database, Row, SpannerError};
use labkit::fault::{Fate, Glyph, Sim};
use std::rc::Rc;

/// A DML statement on one row, executed by the database when the transaction runs it
/// (not buffered): its effect is visible to the transaction's later reads at once, and
/// applied with the transaction's commit, or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dml {
    /// `INSERT`: fails at once with ALREADY_EXISTS when the row exists.
    Insert {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// `UPDATE … WHERE key = …`: sets the given columns; 0 rows when there is no row.
    Update {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// `INSERT OR UPDATE`: writes the given columns whether or not the row exists.
    InsertOrUpdate {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// `DELETE … WHERE key = …`: 0 rows when there is no row.
    Delete { table: &'static str, key: Rc<str> },
}

impl Dml {
    fn target(&self) -> (&'static str, &Rc<str>) {
        match self {
            Dml::Insert { table, key, .. }
            | Dml::Update { table, key, .. }
            | Dml::InsertOrUpdate { table, key, .. }
            | Dml::Delete { table, key } => (table, key),
        }
    }

    fn describe(&self) -> String {
        let (table, key) = self.target();
        let verb = match self {
            Dml::Insert { .. } => "INSERT",
            Dml::Update { .. } => "UPDATE",
            Dml::InsertOrUpdate { .. } => "INSERT OR UPDATE",
            Dml::Delete { .. } => "DELETE",
        };
        format!("DML {verb} {table}/{key}")
    }
}

/// The labels of a DML statement's fate: it runs, or the database aborts the transaction.
const DML_FATES: [Fate; 2] = [Fate::Ok, Fate::Rejected];

fn in_range(key: &str, start: Option<&str>, end: Option<&str>) -> bool {
    start.is_none_or(|s| key >= s) && end.is_none_or(|e| key < e)
}

impl Buffered {
    /// The state a DML statement of this attempt left the row in, if any.
    fn dml_row(&self, table: &str, key: &str) -> Option<&Option<Row>> {
        self.dml
            .iter()
            .rev()
            .find(|(t, k, _)| *t == table && &**k == key)
            .map(|(_, _, row)| row)
    }

    /// The timestamp this attempt's reads see: the last commit (SERIALIZABLE), or the
    /// snapshot taken at the attempt's first read (REPEATABLE_READ).
    fn read_at(&mut self, db: &Database) -> u64 {
        let now = db.last_commit_timestamp();
        match self.repeatable_read {
            true => *self.snapshot.get_or_insert(now),
            false => now,
        }
    }

    pub(crate) fn read(&mut self, db: &Database, table: &'static str, key: &str) -> Option<Row> {
        let seen = self.read_at(db);
        let (key, row) = match db.stored_entry(table, key) {
            Some((stored_key, stored)) => (stored_key.clone(), stored.at(seen).cloned()),
            None => (Rc::from(key), None),
        };
        let row = match self.dml_row(table, &key) {
            Some(written) => written.clone(),
            None => row,
        };
        self.reads.push(ReadLock {
            table,
            span: Span::Key(key),
            seen,
        });
        row
    }

    pub(crate) fn scan(
        &mut self,
        db: &Database,
        table: &'static str,
        start: Option<&str>,
        end: Option<&str>,
    ) -> Vec<(String, Row)> {
        let seen = self.read_at(db);
        self.reads.push(ReadLock {
            table,
            span: Span::Range(start.map(Rc::from), end.map(Rc::from)),
            seen,
        });
        let mut rows: Vec<(String, Row)> = db
            .tables
            .get(table)
            .map(|stored| {
                range(stored, start, end)
                    .filter_map(|(k, s)| s.at(seen).cloned().map(|r| (k.to_string(), r)))
                    .collect()
            })
            .unwrap_or_default();
        // This attempt's own DML writes in the range, over what the database holds.
        for (t, key, written) in &self.dml {
            if *t != table || !in_range(key, start, end) {
                continue;
            }
            match (rows.binary_search_by(|(k, _)| k.as_str().cmp(key)), written) {
                (Ok(i), Some(row)) => rows[i].1 = row.clone(),
                (Ok(i), None) => {
                    rows.remove(i);
                }
                (Err(i), Some(row)) => rows.insert(i, (key.to_string(), row.clone())),
                (Err(_), None) => {}
            }
        }
        rows
    }

    pub(crate) fn execute_update(
        &mut self,
        db: &Database,
        sim: &mut Sim,
        dml: Dml,
    ) -> Result<u64, SpannerError> {
        if self.aborted {
            return Err(SpannerError::new(Code::Aborted));
        }
        if sim.fate("spanner:dml", &DML_FATES) == Fate::Rejected {
            self.aborted = true;
            sim.event("spanner", Glyph::Error, || {
                (
                    format!("{} -> ABORTED", dml.describe()),
                    "the database aborted the transaction; the attempt is over".into(),
                )
            });
            return Err(SpannerError::new(Code::Aborted));
        }
        let (table, key) = dml.target();
        let key = key.clone();
        // A DML statement reads the row it writes: its existence is part of the result.
        let current = self.read(db, table, &key);
        let (written, count) = match &dml {
            Dml::Insert { .. } if current.is_some() => {
                sim.event("spanner", Glyph::Error, || {
                    (
                        format!("{} -> ALREADY_EXISTS", dml.describe()),
                        "the statement changed nothing".into(),
                    )
                });
                return Err(SpannerError::new(Code::AlreadyExists));
            }
            Dml::Insert { row, .. } => (Some(row.clone()), 1),
            Dml::Update { .. } | Dml::Delete { .. } if current.is_none() => (None, 0),
            Dml::Update { row, .. } | Dml::InsertOrUpdate { row, .. } => {
                let mut next = current.unwrap_or_default();
                next.merge(row.clone());
                (Some(next), 1)
            }
            Dml::Delete { .. } => (None, 1),
        };
        if count == 1 {
            match self
                .dml
                .iter_mut()
                .find(|(t, k, _)| *t == table && *k == key)
            {
                Some(slot) => slot.2 = written,
                None => self.dml.push((table, key, written)),
            }
        }
        sim.event("spanner", Glyph::Normal, || {
            (
                format!("{} -> {count} row(s)", dml.describe()),
                String::new(),
            )
        });
        Ok(count)
    }
}
