//! The votes, in SQLite (the schema is `workbook::poll::db`'s, so the grader's reader and
//! this writer cannot drift apart). One connection, behind the server's mutex: every
//! vote is one transaction that checks the round is open, binds or checks the learner's
//! name and replaces the learner's previous vote for that round, so a vote is stored
//! whole or not at all, and a round closed between two votes is closed for the second.

use crate::config::RosterEntry;
use crate::error::{PollError, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use std::collections::BTreeMap;
use std::path::Path;
use workbook::poll::db::{SCHEMA, SCHEMA_VERSION};
use workbook::poll::wire::{Choice, RefusalKind, Round};
use workbook::progress::now_utc;

pub struct Store {
    conn: Connection,
}

/// What a restart must keep: the class code learners send with, and the teacher's token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub code: String,
    pub teacher_token: String,
}

/// A vote that passed every check but the store's own (round open, name bound).
pub struct Ballot<'a> {
    /// The lab's id.
    pub lab: &'a str,
    pub round: Round,
    pub name: &'a str,
    pub token: Option<&'a str>,
    pub answers: &'a BTreeMap<String, Choice>,
}

/// What the store recorded: under which name, with which token, when.
pub struct Recorded {
    pub name: String,
    pub token: String,
    pub received_at: String,
}

/// One round of one lab, as the teacher's page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundTally {
    pub closed_at: Option<String>,
    pub voters: usize,
    /// Item id → choice → how many chose it.
    pub counts: BTreeMap<String, BTreeMap<Choice, usize>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub rounds: [RoundTally; 2],
    pub revealed: bool,
}

impl Store {
    /// Opens (or creates) the database at `path`; refuses a file that is not a poll's.
    pub fn open(path: &Path) -> Result<Store, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let fail = |e: rusqlite::Error| format!("{}: {e}", path.display());
        let conn = Connection::open(path).map_err(fail)?;
        // WAL with a full sync: a vote answered is a vote on disk, and the teacher's page
        // reads while votes are written.
        let _: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(fail)?;
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
            .map_err(fail)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        let tables: i64 = (conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)))
            .map_err(fail)?;
        match version {
            0 if tables == 0 => {
                conn.execute_batch(SCHEMA).map_err(fail)?;
                conn.pragma_update(None, "user_version", SCHEMA_VERSION)
                    .map_err(fail)?;
            }
            SCHEMA_VERSION => {}
            _ => {
                return Err(format!(
                    "{} is not a poll's database; name another file with --db",
                    path.display()
                ));
            }
        }
        Ok(Store { conn })
    }

    /// The class code and the teacher's token: made on the first start, kept after.
    pub fn identity(&mut self) -> Result<Identity> {
        let found = (self.conn)
            .query_row(
                "SELECT code, teacher_token FROM poll WHERE id = 1",
                [],
                |r| {
                    Ok(Identity {
                        code: r.get(0)?,
                        teacher_token: r.get(1)?,
                    })
                },
            )
            .optional()?;
        if let Some(identity) = found {
            return Ok(identity);
        }
        let identity = Identity {
            code: class_code(),
            teacher_token: new_token(),
        };
        self.conn.execute(
            "INSERT INTO poll (id, code, teacher_token, created_at) VALUES (1, ?1, ?2, ?3)",
            params![identity.code, identity.teacher_token, now_utc()],
        )?;
        Ok(identity)
    }

    /// Replaces the class list. Names already bound stay bound.
    pub fn replace_roster(&mut self, entries: &[RosterEntry]) -> Result<()> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM roster", [])?;
        for entry in entries {
            tx.execute(
                "INSERT INTO roster (id, name) VALUES (?1, ?2)",
                params![entry.id, entry.name],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores `ballot` as its learner's vote for its lab and round, replacing any before.
    pub fn record(&mut self, ballot: &Ballot<'_>) -> Result<Recorded> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        round_is_open(&tx, ballot.lab, ballot.round)?;
        let learner = bind(&tx, ballot.name, ballot.token)?;
        let received_at = now_utc();
        let key = params![learner.id, ballot.lab, ballot.round.number()];
        tx.execute(
            "DELETE FROM answers WHERE learner = ?1 AND lab = ?2 AND round = ?3",
            key,
        )?;
        tx.execute(
            "DELETE FROM votes WHERE learner = ?1 AND lab = ?2 AND round = ?3",
            key,
        )?;
        tx.execute(
            "INSERT INTO votes (learner, lab, round, received_at) VALUES (?1, ?2, ?3, ?4)",
            params![learner.id, ballot.lab, ballot.round.number(), received_at],
        )?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO answers (learner, lab, round, item, choice) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (item, choice) in ballot.answers {
            insert.execute(params![
                learner.id,
                ballot.lab,
                ballot.round.number(),
                item,
                choice.to_string()
            ])?;
        }
        drop(insert);
        tx.commit()?;
        Ok(Recorded {
            name: learner.name,
            token: learner.token,
            received_at,
        })
    }

    /// Closes a round of a lab (closing it again changes nothing); round 2 only after 1.
    pub fn close(&mut self, lab: &str, number: &str, round: Round) -> Result<()> {
        if round == Round::Two && closed_at(&self.conn, lab, Round::One)?.is_none() {
            return Err(PollError::new(
                RefusalKind::RoundNotOpen,
                format!("round 2 of lab {number} has not opened: close round 1 first"),
            ));
        }
        self.conn.execute(
            "INSERT OR IGNORE INTO rounds (lab, round, closed_at) VALUES (?1, ?2, ?3)",
            params![lab, round.number(), now_utc()],
        )?;
        Ok(())
    }

    /// Shows (or hides again) a lab's keys on the teacher's page.
    pub fn set_revealed(&mut self, lab: &str, revealed: bool) -> Result<()> {
        if revealed {
            let sql = "INSERT OR IGNORE INTO reveals (lab, revealed_at) VALUES (?1, ?2)";
            self.conn.execute(sql, params![lab, now_utc()])?;
        } else {
            self.conn
                .execute("DELETE FROM reveals WHERE lab = ?1", params![lab])?;
        }
        Ok(())
    }

    /// Both rounds' distributions of a lab, and whether its keys are shown.
    pub fn tally(&self, lab: &str) -> Result<Tally> {
        let mut tally = Tally::default();
        for round in Round::BOTH {
            tally.rounds[index(round)].closed_at = closed_at(&self.conn, lab, round)?;
        }
        let mut voters = self
            .conn
            .prepare_cached("SELECT round, count(*) FROM votes WHERE lab = ?1 GROUP BY round")?;
        let mut rows = voters.query(params![lab])?;
        while let Some(row) = rows.next()? {
            let round = round_of(row.get(0)?)?;
            tally.rounds[index(round)].voters = row.get::<_, i64>(1)? as usize;
        }
        let mut counts = self.conn.prepare_cached(
            "SELECT round, item, choice, count(*) FROM answers WHERE lab = ?1 GROUP BY round, item, choice",
        )?;
        let mut rows = counts.query(params![lab])?;
        while let Some(row) = rows.next()? {
            let round = round_of(row.get(0)?)?;
            let choice = Choice::try_from(row.get::<_, String>(2)?)
                .map_err(|e| PollError::new(RefusalKind::Internal, e))?;
            let per_item = tally.rounds[index(round)]
                .counts
                .entry(row.get(1)?)
                .or_default();
            per_item.insert(choice, row.get::<_, i64>(3)? as usize);
        }
        let sql = "SELECT count(*) FROM reveals WHERE lab = ?1";
        tally.revealed = self
            .conn
            .query_row(sql, params![lab], |r| r.get::<_, i64>(0))?
            > 0;
        Ok(tally)
    }
}

pub fn index(round: Round) -> usize {
    usize::from(round.number() - 1)
}

fn round_of(n: i64) -> Result<Round> {
    let n = u8::try_from(n).unwrap_or(0);
    Round::try_from(n).map_err(|e| PollError::new(RefusalKind::Internal, e))
}

fn closed_at(conn: &Connection, lab: &str, round: Round) -> Result<Option<String>> {
    let sql = "SELECT closed_at FROM rounds WHERE lab = ?1 AND round = ?2";
    Ok(conn
        .query_row(sql, params![lab, round.number()], |r| r.get(0))
        .optional()?)
}

/// Round 1 is open until the teacher closes it; round 2 from then until it is closed.
fn round_is_open(tx: &Transaction<'_>, lab: &str, round: Round) -> Result<()> {
    if let Some(at) = closed_at(tx, lab, round)? {
        let next = match round {
            Round::One => " Send your answers after the discussion with `--round 2`.",
            Round::Two => "",
        };
        return Err(PollError::new(
            RefusalKind::RoundClosed,
            format!(
                "round {round} of this lab was closed by the teacher at {at}; the vote was not counted.{next}"
            ),
        ));
    }
    if round == Round::Two && closed_at(tx, lab, Round::One)?.is_none() {
        return Err(PollError::new(
            RefusalKind::RoundNotOpen,
            "round 2 of this lab opens when the teacher closes round 1: send round 1 first (`--round 1`, the default)",
        ));
    }
    Ok(())
}

struct Learner {
    id: i64,
    name: String,
    token: String,
}

/// The learner a vote comes from: the one `name` is bound to, if `token` is theirs, or a
/// new binding of `name` (on the roster, when there is one) to a fresh token.
fn bind(tx: &Transaction<'_>, name: &str, token: Option<&str>) -> Result<Learner> {
    let (binds, shown, roster_id) = resolve_name(tx, name)?;
    let sql = "SELECT id, name, token FROM learners WHERE binds = ?1";
    let found = tx
        .query_row(sql, params![binds], |r| {
            Ok(Learner {
                id: r.get(0)?,
                name: r.get(1)?,
                token: r.get(2)?,
            })
        })
        .optional()?;
    match (found, token) {
        (Some(learner), Some(token)) if same_secret(token, &learner.token) => Ok(learner),
        (Some(learner), None) => Err(PollError::new(
            RefusalKind::TokenMissing,
            format!(
                "{} already votes from another workbook: send from the one you first sent from (its .labs/poll.json keeps your token), or ask your teacher",
                learner.name
            ),
        )),
        (Some(learner), Some(_)) => Err(PollError::new(
            RefusalKind::TokenWrong,
            format!(
                "this workbook's token is not the one {} votes with; nobody may vote as somebody else",
                learner.name
            ),
        )),
        (None, _) => {
            let token = new_token();
            tx.execute(
                "INSERT INTO learners (binds, name, roster_id, token, bound_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![binds, shown, roster_id, token, now_utc()],
            )?;
            Ok(Learner {
                id: tx.last_insert_rowid(),
                name: shown,
                token,
            })
        }
    }
}

/// What binds `name`: with a roster, the roster entry whose id or name it is; without,
/// the name itself, folded (case and spacing do not make another learner).
fn resolve_name(tx: &Transaction<'_>, name: &str) -> Result<(String, String, Option<String>)> {
    let mut statement = tx.prepare_cached("SELECT id, name FROM roster")?;
    let roster: Vec<(String, String)> = statement
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if roster.is_empty() {
        return Ok((fold(name), name.trim().to_string(), None));
    }
    // Ids are unique on the list (the roster's parser checks), names need not be.
    let by_id: Vec<&(String, String)> = (roster.iter())
        .filter(|(id, _)| id.eq_ignore_ascii_case(name.trim()))
        .collect();
    let by_name: Vec<&(String, String)> = (roster.iter())
        .filter(|(_, n)| fold(n) == fold(name))
        .collect();
    match (by_id.as_slice(), by_name.as_slice()) {
        ([(id, n)], _) | ([], [(id, n)]) => Ok((id.clone(), n.clone(), Some(id.clone()))),
        ([], []) => Err(PollError::new(
            RefusalKind::NotOnRoster,
            format!(
                "`{}` is not on the class list: send with your name or your id as the teacher's list has it",
                name.trim()
            ),
        )),
        _ => Err(PollError::new(
            RefusalKind::NotOnRoster,
            format!(
                "more than one learner on the class list is called `{}`: send with your id instead (`--name ID`)",
                name.trim()
            ),
        )),
    }
}

pub fn fold(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Compares two tokens in time that does not depend on where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    bytes
}

/// 128 random bits, in hex: a learner's or the teacher's token.
pub fn new_token() -> String {
    random_bytes::<16>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Six characters to write on the board, none of them easily misread (no 0/O, 1/I/L).
fn class_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let n = u64::from_le_bytes(random_bytes::<8>());
    (0..6)
        .map(|i| {
            ALPHABET[(n / (ALPHABET.len() as u64).pow(i) % ALPHABET.len() as u64) as usize] as char
        })
        .collect()
}
