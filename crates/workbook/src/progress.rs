//! The progress store: `.labs/progress.db`, SQLite, keyed by stable lab ids (renaming a
//! folder loses nothing). Every write is one transaction. A damaged store is moved aside
//! and rebuilt from what the learner's files show (the seal lines of predictions.txt).
//!
//! The store keeps each lab's *first* seal, answers included: a seal line deleted from
//! predictions.txt is put back from here, and one that differs is noted.

use crate::predictions::Seal;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS seal (
    lab_id TEXT PRIMARY KEY, sealed_at TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempt (
    seq INTEGER PRIMARY KEY, lab_id TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL,
    passed INTEGER NOT NULL, total INTEGER NOT NULL, detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hint (lab_id TEXT PRIMARY KEY, shown INTEGER NOT NULL);
";

pub struct Progress {
    db: Connection,
}

/// What the learner last achieved in one lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Last {
    pub at: String,
    pub passed: i64,
    pub total: i64,
}

impl Progress {
    /// Opens (or creates) the store. Returns a note when it had to be created or rebuilt.
    pub fn open(state_dir: &Path) -> Result<(Progress, Option<String>), String> {
        std::fs::create_dir_all(state_dir)
            .map_err(|e| format!("cannot create {}: {e}", state_dir.display()))?;
        let path = state_dir.join("progress.db");
        let missing = !path.exists();
        match Self::try_open(&path) {
            // A missing store is reported too, so the caller restores what the learner's
            // files show (a deleted `.labs/` loses no seal).
            Ok(progress) if missing => Ok((
                progress,
                Some(format!(
                    "there was no progress store; a new one was created at {} and filled from your files",
                    path.display()
                )),
            )),
            Ok(progress) => Ok((progress, None)),
            Err(problem) => {
                let aside = aside_name(&path);
                std::fs::rename(&path, &aside).map_err(|e| {
                    format!("the progress store {} is damaged ({problem}) and cannot be moved aside: {e}", path.display())
                })?;
                let progress = Self::try_open(&path)
                    .map_err(|e| format!("cannot create a new progress store: {e}"))?;
                Ok((
                    progress,
                    Some(format!(
                        "the progress store was damaged ({problem}); it was moved to {} and rebuilt from your files",
                        aside.display()
                    )),
                ))
            }
        }
    }

    fn try_open(path: &Path) -> Result<Progress, String> {
        let db = Connection::open(path).map_err(|e| e.to_string())?;
        db.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| e.to_string())?;
        let check: String = db
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| e.to_string())?;
        if check != "ok" {
            return Err(check);
        }
        db.execute_batch(SCHEMA).map_err(|e| e.to_string())?;
        // Stores written before seals carried their answers get the two columns.
        let columns: Vec<String> = db
            .prepare("SELECT name FROM pragma_table_info('seal')")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| e.to_string())?;
        if !columns.iter().any(|c| c == "answers") {
            db.execute_batch(
                "ALTER TABLE seal ADD COLUMN answers TEXT; ALTER TABLE seal ADD COLUMN mac TEXT;",
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(Progress { db })
    }

    /// The first seal recorded for a lab, when it carries its answers.
    pub fn first_seal(&self, lab_id: &str) -> Option<Seal> {
        self.db
            .query_row(
                "SELECT sealed_at, answers, mac FROM seal WHERE lab_id = ?1 AND answers IS NOT NULL",
                [lab_id],
                |r| {
                    Ok(Seal {
                        at: r.get(0)?,
                        answers: r.get(1)?,
                        mac: r.get(2)?,
                    })
                },
            )
            .optional()
            .ok()
            .flatten()
    }

    /// Records a seal unless one exists (the first seal wins).
    pub fn record_seal(&self, lab_id: &str, seal: &Seal) -> rusqlite::Result<()> {
        self.db.execute(
            "INSERT OR IGNORE INTO seal (lab_id, sealed_at, hash, answers, mac) VALUES (?1, ?2, '', ?3, ?4)",
            params![lab_id, seal.at, seal.answers, seal.mac],
        )?;
        Ok(())
    }

    pub fn record_attempt(
        &self,
        lab_id: &str,
        kind: &str,
        at: &str,
        passed: usize,
        total: usize,
        detail: &str,
    ) -> rusqlite::Result<i64> {
        self.db.execute(
            "INSERT INTO attempt (lab_id, kind, at, passed, total, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![lab_id, kind, at, passed as i64, total as i64, detail],
        )?;
        Ok(self.db.last_insert_rowid())
    }

    pub fn last(&self, lab_id: &str, kind: &str) -> Option<Last> {
        self.db
            .query_row(
                "SELECT at, passed, total FROM attempt WHERE lab_id = ?1 AND kind = ?2 ORDER BY seq DESC LIMIT 1",
                [lab_id, kind],
                |r| Ok(Last { at: r.get(0)?, passed: r.get(1)?, total: r.get(2)? }),
            )
            .optional()
            .ok()
            .flatten()
    }

    pub fn hints_shown(&self, lab_id: &str) -> usize {
        self.db
            .query_row("SELECT shown FROM hint WHERE lab_id = ?1", [lab_id], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .ok()
            .flatten()
            .unwrap_or(0) as usize
    }

    pub fn set_hints_shown(&self, lab_id: &str, shown: usize) -> rusqlite::Result<()> {
        self.db.execute(
            "INSERT INTO hint (lab_id, shown) VALUES (?1, ?2)
             ON CONFLICT (lab_id) DO UPDATE SET shown = excluded.shown",
            params![lab_id, shown as i64],
        )?;
        Ok(())
    }

    /// The connection, for tests that look inside the store.
    pub fn connection(&self) -> &Connection {
        &self.db
    }
}

fn aside_name(path: &Path) -> PathBuf {
    let mut n = 1;
    loop {
        let candidate = path.with_extension(format!("db.damaged-{n}"));
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SSZ` (the CLI's clock, not a lab's).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
