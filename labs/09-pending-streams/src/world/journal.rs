//! `coordinator.db` as a process reaches it. Every statement that changes the journal is
//! durable once it returns, so the harness puts a crash point right after it: a schedule
//! may end the process between any two durable steps of your code, whether or not your
//! code expects it.

use super::Stop;
use labkit::fault::Sim;
use rusqlite::{Connection, Params};

// ANCHOR: journal
/// A process's connection to `coordinator.db`.
pub struct Journal<'p> {
    connection: &'p Connection,
    sim: &'p mut Sim,
}

impl<'p> Journal<'p> {
    pub(super) fn new(connection: &'p Connection, sim: &'p mut Sim) -> Self {
        Journal { connection, sim }
    }

    /// Runs one statement that changes the journal (`INSERT`, `UPDATE`, `DELETE`, or
    /// `BEGIN` … `COMMIT` around several). Once it is durable (at once, or at the
    /// `COMMIT`), the process may crash right here.
    pub fn execute(&mut self, sql: &str, params: impl Params) -> Result<usize, Stop> {
        let changed = self.connection.prepare_cached(sql)?.execute(params)?;
        if self.connection.is_autocommit() {
            self.sim.crash_point(point_after(sql))?;
        }
        Ok(changed)
    }

    /// Reads one row, as `rusqlite::Connection::query_row` does
    /// (`.optional()` turns "no row" into `None`).
    pub fn query_row<T>(
        &mut self,
        sql: &str,
        params: impl Params,
        row: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.connection.prepare_cached(sql)?.query_row(params, row)
    }
}
// ANCHOR_END: journal

/// The crash point after a durable statement, named by what it changed.
fn point_after(sql: &str) -> &'static str {
    let mut words = sql
        .split(|c: char| c.is_ascii_whitespace() || c == '(')
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
        .map_or("coordinator:after-journal-write", |(_, _, point)| point)
}

/// Every point the journal names: (statement, table, point).
const POINTS: &[(&str, &str, &str)] = &[
    ("insert", "member", "coordinator:after-insert-member"),
    ("update", "member", "coordinator:after-update-member"),
    ("delete", "member", "coordinator:after-delete-member"),
    (
        "insert",
        "batch_commit",
        "coordinator:after-insert-batch_commit",
    ),
    (
        "update",
        "batch_commit",
        "coordinator:after-update-batch_commit",
    ),
    (
        "delete",
        "batch_commit",
        "coordinator:after-delete-batch_commit",
    ),
    ("commit", "", "coordinator:after-journal-commit"),
    ("end", "", "coordinator:after-journal-commit"),
];

#[cfg(test)]
mod tests {
    use super::point_after;

    #[test]
    fn a_point_is_named_by_the_statement_it_follows() {
        assert_eq!(
            point_after("INSERT OR REPLACE INTO member(worker) VALUES (?1)"),
            "coordinator:after-insert-member"
        );
        assert_eq!(
            point_after("  update batch_commit SET state = 'COMMITTED'"),
            "coordinator:after-update-batch_commit"
        );
        assert_eq!(
            point_after("DELETE FROM member"),
            "coordinator:after-delete-member"
        );
        assert_eq!(point_after("COMMIT"), "coordinator:after-journal-commit");
    }
}
