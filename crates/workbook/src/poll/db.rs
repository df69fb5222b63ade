//! The poll's database: its schema (the teacher's server creates and writes it) and what
//! a grade reads back from it.
//!
//! [`round_one_answers`] is for the grader (`grade-class --predictions-from POLL.db`): per
//! learner, and per lab whose round 1 the teacher closed, the learner's last round-1 vote
//! with the server's timestamp. Round 1 is the one each learner answered alone, before the
//! discussion and before the run, so it is the prediction a grade may score; round 2 is
//! for the teacher's eyes (what the discussion changed). A round still open is left out:
//! its votes may still change. Learners are named as the poll bound them: by the roster's
//! name and id when the teacher gave a roster, by the name they first sent otherwise.
//!
//! ```no_run
//! let polled = workbook::poll::db::round_one_answers(std::path::Path::new("poll.db"))?;
//! for learner in &polled {
//!     for lab in &learner.labs {
//!         println!("{} {} {} answers at {}", learner.name, lab.lab, lab.answers.len(), lab.voted_at);
//!     }
//! }
//! # Ok::<(), workbook::error::Error>(())
//! ```

use super::wire::Choice;
use crate::error::{Error, Result};
use rusqlite::{Connection, OpenFlags, params};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The schema's version, kept in SQLite's `user_version`: a reader refuses a database
/// written by another version rather than misread it.
pub const SCHEMA_VERSION: i64 = 1;

/// The tables. Lab columns hold the lab's id (`outbox`), which survives a renumbering;
/// item columns hold the learner-facing ids (`q01`, …); times are UTC, `…T…Z`.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS poll (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    code          TEXT NOT NULL,     -- the class code learners send with
    teacher_token TEXT NOT NULL,     -- the teacher page's token (this file is the teacher's)
    created_at    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS roster (
    id   TEXT PRIMARY KEY,           -- the teacher's id for the learner
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS learners (
    id        INTEGER PRIMARY KEY,
    binds     TEXT NOT NULL UNIQUE,  -- what a name is bound by: the roster id, or the folded name
    name      TEXT NOT NULL,         -- the roster's name, or the name first sent
    roster_id TEXT,
    token     TEXT NOT NULL UNIQUE,  -- the learner's token: the next vote must carry it
    bound_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS votes (
    learner     INTEGER NOT NULL REFERENCES learners(id),
    lab         TEXT NOT NULL,
    round       INTEGER NOT NULL CHECK (round IN (1, 2)),
    received_at TEXT NOT NULL,       -- the server's time of the latest vote, which replaced any before
    PRIMARY KEY (learner, lab, round)
);
CREATE TABLE IF NOT EXISTS answers (
    learner INTEGER NOT NULL,
    lab     TEXT NOT NULL,
    round   INTEGER NOT NULL,
    item    TEXT NOT NULL,
    choice  TEXT NOT NULL,           -- yes, no or a letter
    PRIMARY KEY (learner, lab, round, item),
    FOREIGN KEY (learner, lab, round) REFERENCES votes (learner, lab, round) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS rounds (
    lab       TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round IN (1, 2)),
    closed_at TEXT NOT NULL,         -- a round is open until it has a row here
    PRIMARY KEY (lab, round)
);
CREATE TABLE IF NOT EXISTS reveals (
    lab         TEXT PRIMARY KEY,    -- the teacher's page shows this lab's keys
    revealed_at TEXT NOT NULL
);
";

/// One learner's round-1 votes, lab by lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolledLearner {
    /// The roster's name, or the name the learner first sent when there was no roster.
    pub name: String,
    /// The roster's id, when the teacher gave a roster.
    pub roster_id: Option<String>,
    /// One entry per lab whose round 1 is closed and holds a vote of this learner.
    pub labs: Vec<PolledLab>,
}

/// A learner's last round-1 vote for one lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolledLab {
    /// The lab's id (`outbox`), which `Labs::find` accepts.
    pub lab: String,
    /// Item id (`q01`, …) → answer; an item the learner left open is absent.
    /// [`Choice::answer`] gives the predictions file's form, which a grade scores.
    pub answers: BTreeMap<String, Choice>,
    /// When the server received this vote (UTC).
    pub voted_at: String,
    /// When the teacher closed round 1 (UTC): no later vote was taken.
    pub closed_at: String,
}

/// Opens a poll's database for reading only, refusing one of another schema version.
pub fn open_for_reading(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| Error::input(format!("{} is not a poll's database: {e}", path.display())))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != SCHEMA_VERSION {
        return Err(Error::input(format!(
            "{} is not a poll's database of this workbook (schema version {version}, expected {SCHEMA_VERSION})",
            path.display()
        )));
    }
    Ok(conn)
}

/// Per learner and lab, the round-1 answers of closed rounds, with the server's
/// timestamps; learners by name, labs by id.
pub fn round_one_answers(path: &Path) -> Result<Vec<PolledLearner>> {
    let conn = open_for_reading(path)?;
    let mut statement = conn.prepare(
        "SELECT l.id, l.name, l.roster_id, v.lab, v.received_at, r.closed_at, a.item, a.choice
         FROM votes v
         JOIN learners l ON l.id = v.learner
         JOIN rounds r ON r.lab = v.lab AND r.round = 1
         JOIN answers a ON a.learner = v.learner AND a.lab = v.lab AND a.round = 1
         WHERE v.round = 1
         ORDER BY l.name, l.id, v.lab, a.item",
    )?;
    let mut rows = statement.query(params![])?;
    let mut learners: Vec<(i64, PolledLearner)> = Vec::new();
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        if learners.last().is_none_or(|(last, _)| *last != id) {
            let learner = PolledLearner {
                name: row.get(1)?,
                roster_id: row.get(2)?,
                labs: Vec::new(),
            };
            learners.push((id, learner));
        }
        let labs = &mut learners.last_mut().expect("pushed above").1.labs;
        let lab: String = row.get(3)?;
        if labs.last().is_none_or(|l| l.lab != lab) {
            labs.push(PolledLab {
                lab,
                answers: BTreeMap::new(),
                voted_at: row.get(4)?,
                closed_at: row.get(5)?,
            });
        }
        let choice = Choice::try_from(row.get::<_, String>(7)?).map_err(Error::input)?;
        let item: String = row.get(6)?;
        labs.last_mut()
            .expect("pushed above")
            .answers
            .insert(item, choice);
    }
    Ok(learners.into_iter().map(|(_, learner)| learner).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll_db(path: &Path) -> Connection {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO learners VALUES (1, 's02', 'Grace Hopper', 's02', 't1', 'T0');
             INSERT INTO learners VALUES (2, 's01', 'Ada Lovelace', 's01', 't2', 'T0');
             INSERT INTO votes VALUES (1, 'outbox', 1, '2026-12-01T10:00:05Z');
             INSERT INTO votes VALUES (1, 'outbox', 2, '2026-12-01T10:09:00Z');
             INSERT INTO votes VALUES (2, 'outbox', 1, '2026-12-01T10:00:07Z');
             INSERT INTO votes VALUES (2, 'snapshots', 1, '2026-12-01T10:30:00Z');
             INSERT INTO answers VALUES (1, 'outbox', 1, 'q01', 'yes'), (1, 'outbox', 1, 'q26', 'c');
             INSERT INTO answers VALUES (1, 'outbox', 2, 'q01', 'no');
             INSERT INTO answers VALUES (2, 'outbox', 1, 'q01', 'no');
             INSERT INTO answers VALUES (2, 'snapshots', 1, 'q01', 'yes');
             INSERT INTO rounds VALUES ('outbox', 1, '2026-12-01T10:05:00Z');",
        )
        .unwrap();
        conn
    }

    #[test]
    fn a_grade_reads_round_one_of_closed_rounds_by_learner() {
        let path = std::env::temp_dir().join(format!("poll-db-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        drop(poll_db(&path));
        let polled = round_one_answers(&path).unwrap();
        let names: Vec<&str> = polled.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["Ada Lovelace", "Grace Hopper"]);
        let grace = &polled[1];
        assert_eq!(grace.roster_id.as_deref(), Some("s02"));
        assert_eq!(grace.labs.len(), 1, "round 2 is not a prediction");
        let outbox = &grace.labs[0];
        assert_eq!(outbox.voted_at, "2026-12-01T10:00:05Z");
        assert_eq!(outbox.closed_at, "2026-12-01T10:05:00Z");
        assert_eq!(outbox.answers["q01"], Choice::Yes);
        assert_eq!(outbox.answers["q26"], Choice::Letter('c'));
        let ada = &polled[0];
        assert_eq!(ada.labs.len(), 1, "snapshots' round 1 is still open");
        let json = serde_json::to_string(&polled).unwrap();
        assert!(
            json.contains(r#""answers":{"q01":"yes","q26":"c"}"#),
            "{json}"
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn another_file_is_refused_with_its_name() {
        let path = std::env::temp_dir().join(format!("poll-db-other-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE x (y)")
            .unwrap();
        let err = round_one_answers(&path).unwrap_err();
        assert!(
            err.to_string().contains("is not a poll's database"),
            "{err}"
        );
        std::fs::remove_file(&path).unwrap();
    }
}
