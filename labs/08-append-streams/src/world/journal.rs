//! `journal.db` as a writer process reaches it. A statement that changes the journal is
//! durable once it returns (at once, or when its transaction commits), so the harness
//! puts a crash point right after it. A stale owner may also pause there, or right after
//! a read outside a transaction. Your code does not choose these points: every durable
//! step it takes, and every read it acts on, is explored.

use super::Stop;
use super::writer::Points;
use rusqlite::{Connection, Params, Row, TransactionBehavior};
use std::cell::Cell;

// ANCHOR: journal
/// A writer process's connection to `journal.db`.
pub struct Journal<'p> {
    connection: &'p Connection,
    points: Points<'p>,
}

impl<'p> Journal<'p> {
    /// Runs one statement that changes the journal, in a transaction of its own. The
    /// process may crash (or pause) right after it.
    pub fn execute(&mut self, sql: &str, params: impl Params) -> Result<usize, Stop> {
        let changed = self.connection.prepare_cached(sql)?.execute(params)?;
        if self.connection.is_autocommit() {
            self.points.after_write(point_after(sql))?;
        }
        Ok(changed)
    }

    /// Reads one row, as `rusqlite::Connection::query_row` does (`.optional()` turns
    /// "no row" into `None`). A stale owner may pause right after it.
    pub fn query_row<T>(
        &mut self,
        sql: &str,
        params: impl Params,
        row: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let value = self.connection.prepare_cached(sql)?.query_row(params, row);
        if self.connection.is_autocommit() {
            self.points.after_read(point_after(sql));
        }
        value
    }

    /// Reads every row of a query. A stale owner may pause right after it.
    pub fn query_rows<T>(
        &mut self,
        sql: &str,
        params: impl Params,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        let rows = rows_of(self.connection, sql, params, row);
        if self.connection.is_autocommit() {
            self.points.after_read(point_after(sql));
        }
        rows
    }

    /// Runs `body` in one IMMEDIATE transaction: it commits when `body` returns `Ok`, and
    /// rolls back (nothing of it durable) when `body` returns `Err`. Nothing pauses or
    /// crashes inside it; the process may crash (or pause) right after the commit.
    pub fn transaction<T>(
        &mut self,
        body: impl FnOnce(&Transaction) -> Result<T, Stop>,
    ) -> Result<T, Stop> {
        let behavior = TransactionBehavior::Immediate;
        let tx = rusqlite::Transaction::new_unchecked(self.connection, behavior)?;
        let scope = Transaction {
            connection: self.connection,
            first_write: Cell::new(None),
        };
        let value = body(&scope)?;
        tx.commit()?;
        let point = scope
            .first_write
            .get()
            .unwrap_or("writer:after-journal-commit");
        self.points.after_write(point)?;
        Ok(value)
    }
}

/// The statements of one journal transaction (see [`Journal::transaction`]).
pub struct Transaction<'t> {
    connection: &'t Connection,
    first_write: Cell<Option<&'static str>>,
}

impl Transaction<'_> {
    /// Runs one statement inside the transaction.
    pub fn execute(&self, sql: &str, params: impl Params) -> rusqlite::Result<usize> {
        if self.first_write.get().is_none() {
            self.first_write.set(Some(point_after(sql)));
        }
        self.connection.prepare_cached(sql)?.execute(params)
    }

    /// Reads one row inside the transaction.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        row: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.connection.prepare_cached(sql)?.query_row(params, row)
    }

    /// Reads every row of a query inside the transaction.
    pub fn query_rows<T>(
        &self,
        sql: &str,
        params: impl Params,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        rows_of(self.connection, sql, params, row)
    }
}
// ANCHOR_END: journal

impl<'p> Journal<'p> {
    pub(super) fn new(connection: &'p Connection, points: Points<'p>) -> Self {
        Journal { connection, points }
    }
}

fn rows_of<T>(
    connection: &Connection,
    sql: &str,
    params: impl Params,
    row: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut statement = connection.prepare_cached(sql)?;
    let rows = statement.query_map(params, row)?;
    rows.collect()
}

/// The point after a statement, named by what it did to which table.
fn point_after(sql: &str) -> &'static str {
    let mut words = sql
        .split(|c: char| c.is_ascii_whitespace() || c == '(' || c == ',')
        .filter(|w| !w.is_empty());
    let verb = words.next().unwrap_or("");
    let table = if verb.eq_ignore_ascii_case("update") {
        words.next()
    } else {
        let mut rest = words
            .skip_while(|w| !(w.eq_ignore_ascii_case("into") || w.eq_ignore_ascii_case("from")));
        rest.nth(1)
    };
    let table = table.unwrap_or("");
    let verb = if verb.eq_ignore_ascii_case("replace") {
        "insert"
    } else {
        verb
    };
    POINTS
        .iter()
        .find(|(v, t, _)| verb.eq_ignore_ascii_case(v) && table.eq_ignore_ascii_case(t))
        .map_or("writer:after-journal-statement", |(_, _, point)| point)
}

/// Every point the journal names: (statement, table, point).
const POINTS: &[(&str, &str, &str)] = &[
    ("insert", "lease", "writer:after-insert-lease"),
    ("update", "lease", "writer:after-update-lease"),
    ("insert", "stream", "writer:after-insert-stream"),
    ("insert", "journal", "writer:after-insert-journal"),
    ("update", "journal", "writer:after-update-journal"),
    ("delete", "journal", "writer:after-delete-journal"),
    ("insert", "quarantine", "writer:after-insert-quarantine"),
    ("insert", "checkpoint", "writer:after-insert-checkpoint"),
    ("update", "checkpoint", "writer:after-update-checkpoint"),
    ("select", "lease", "writer:after-select-lease"),
    ("select", "stream", "writer:after-select-stream"),
    ("select", "journal", "writer:after-select-journal"),
    ("select", "quarantine", "writer:after-select-quarantine"),
    ("select", "checkpoint", "writer:after-select-checkpoint"),
];

#[cfg(test)]
mod tests {
    use super::point_after;

    #[test]
    fn a_point_is_named_by_the_statement_it_follows() {
        let cases = [
            (
                "INSERT OR REPLACE INTO journal (batch_id) VALUES (?1)",
                "insert-journal",
            ),
            (
                "  update checkpoint SET next_position = ?2",
                "update-checkpoint",
            ),
            (
                "SELECT MAX(source_end), MAX(row_offset) FROM journal",
                "select-journal",
            ),
            (
                "SELECT owner_epoch FROM lease WHERE partition = ?1",
                "select-lease",
            ),
            ("COMMIT", "journal-statement"),
        ];
        for (sql, point) in cases {
            assert_eq!(point_after(sql), format!("writer:after-{point}"), "{sql}");
        }
    }
}
