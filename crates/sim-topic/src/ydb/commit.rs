//! Committing a transaction: the client's check of its reader sessions, the chaos a
//! commit meets, the optimistic locks and offsets, and the one SQLite transaction that
//! applies everything or nothing; and rolling back.

use super::Ydb;
use crate::chaos::CommitFault;
use crate::error::{UNAVAILABLE_COMMIT, UNDETERMINED_COMMIT};
use crate::message::describe_payload;
use crate::{CommitInfo, StatusCode, TLI, Tx, YdbError};
use labkit::fault::{Glyph, Sim};
use rusqlite::params;
use std::collections::BTreeMap;

impl Ydb {
    /// Commits `tx`: checks its locks and offsets, then applies its upserts, messages and
    /// offset advances in one SQLite transaction — or none of them. Any error ends the
    /// reader sessions `tx` read through (the SDK reconnects them), so their uncommitted
    /// messages come back.
    pub fn commit(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: Tx,
    ) -> Result<CommitInfo, YdbError> {
        let result = match self.expired_session(&tx) {
            Some(consumer) => Err(self.fail_expired(sim, actor, consumer)),
            None => self.try_commit(sim, actor, &tx),
        };
        if result.is_err() {
            for (consumer, _) in &tx.read_through {
                self.end_read_session(sim, actor, consumer);
            }
        }
        result
    }

    /// Rolls `tx` back: nothing of it is applied, and the reader sessions it read through
    /// end, as the SDK's retry loop does after a failed attempt.
    pub fn rollback(&mut self, sim: &mut Sim, actor: &'static str, tx: Tx) {
        if tx.read_through.is_empty() {
            return;
        }
        sim.note(actor, || "ROLLBACK".into());
        for (consumer, _) in &tx.read_through {
            self.end_read_session(sim, actor, consumer);
        }
    }

    /// A consumer whose reader session `tx` read through has ended since: the batch's
    /// offsets belong to a session that no longer exists.
    fn expired_session(&self, tx: &Tx) -> Option<&'static str> {
        tx.read_through
            .iter()
            .find(|(consumer, session)| self.session_of(consumer) != *session)
            .map(|(consumer, _)| *consumer)
    }

    /// The SDK fails a transaction whose batch belongs to an ended reader session before it
    /// sends the commit: nothing is applied.
    fn fail_expired(&mut self, sim: &mut Sim, actor: &'static str, consumer: &str) -> YdbError {
        self.stats.client_errors += 1;
        sim.event(actor, Glyph::Error, || {
            (
                "COMMIT: CLIENT_INTERNAL_ERROR".into(),
                format!("{consumer}'s read session ended after the read; commit not sent"),
            )
        });
        YdbError {
            status: StatusCode::ClientInternalError,
            issue: "Topic reader partition session expired before tx commit",
        }
    }

    /// A commit the client sends: it meets the chaos, checks its locks and offsets, and
    /// applies everything in one SQLite transaction, or nothing.
    fn try_commit(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &Tx,
    ) -> Result<CommitInfo, YdbError> {
        let fault = self.commit_fault(sim, tx);
        self.before_commit_runs(sim, actor, tx, fault)?;
        let sql = self.conn.unchecked_transaction().expect("begin commit");
        if let Some(conflict) = self.check_locks(tx) {
            drop(sql); // rolls back
            self.stats.locks_invalidated += 1;
            sim.event(actor, Glyph::Error, || {
                (format!("COMMIT: ABORTED ({TLI})"), conflict)
            });
            return Err(YdbError {
                status: StatusCode::Aborted,
                issue: TLI,
            });
        }
        let info = self.apply(tx);
        sql.commit().expect("commit");
        self.stats.commits += 1;
        sim.event(actor, Glyph::Normal, || {
            ("COMMIT".into(), format!("applied: {}", applied(tx)))
        });
        self.stats.deduplicated += info.messages_deduplicated as u64;
        if let Some(error) = fault.after_applied() {
            return Err(self.answer_after_applied(sim, actor, error));
        }
        Ok(info)
    }

    /// What `fault` does before the commit runs: refuse it or lose it (nothing applied),
    /// or let a concurrent writer break its locks first.
    fn before_commit_runs(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        tx: &Tx,
        fault: CommitFault,
    ) -> Result<(), YdbError> {
        match fault {
            CommitFault::Overloaded => {
                self.stats.overloaded += 1;
                sim.event(actor, Glyph::Error, || {
                    (
                        "COMMIT: OVERLOADED".into(),
                        "refused before it ran; nothing applied".into(),
                    )
                });
                Err(YdbError {
                    status: StatusCode::Overloaded,
                    issue: "a shard's queue is full",
                })
            }
            CommitFault::UnavailableNotApplied => {
                self.stats.unavailable += 1;
                sim.event(actor, Glyph::Indefinite, || {
                    (
                        "COMMIT: UNAVAILABLE".into(),
                        "connection lost before the commit ran; not applied".into(),
                    )
                });
                Err(UNAVAILABLE_COMMIT)
            }
            CommitFault::UndeterminedNotApplied => {
                self.stats.undetermined += 1;
                sim.event(actor, Glyph::Indefinite, || {
                    ("COMMIT: UNDETERMINED".into(), "not applied".into())
                });
                Err(UNDETERMINED_COMMIT)
            }
            CommitFault::BreakLocks => {
                self.break_locks(sim, actor, tx);
                Ok(())
            }
            CommitFault::None
            | CommitFault::UnavailableApplied
            | CommitFault::UndeterminedApplied => Ok(()),
        }
    }

    /// A concurrent transaction (the breaker) writes the first row `tx` read: a real
    /// write, so the lock check finds the changed version.
    fn break_locks(&mut self, sim: &mut Sim, actor: &'static str, tx: &Tx) {
        let read = &tx.reads[0];
        // (A row that did not exist yet is created with the value "0".)
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {} (k1, k2, value, version) VALUES (?1, ?2, '0', 1)
                     ON CONFLICT (k1, k2) DO UPDATE SET version = version + 1",
                    read.table
                ),
                params![read.key.0, read.key.1],
            )
            .expect("breaker write");
        sim.event(actor, Glyph::Fault, || {
            (
                String::new(),
                format!("a concurrent writer updates {}{:?}", read.table, read.key),
            )
        });
    }

    /// Applies the upserts, messages and offset advances of `tx`, inside the caller's
    /// SQLite transaction.
    fn apply(&self, tx: &Tx) -> CommitInfo {
        let mut info = CommitInfo::default();
        for (table, key, value) in &tx.upserts {
            self.conn
                .prepare_cached(&format!(
                    "INSERT INTO {table} (k1, k2, value, version) VALUES (?1, ?2, ?3, 1)
                     ON CONFLICT (k1, k2) DO UPDATE SET value = excluded.value,
                     version = version + 1"
                ))
                .expect("prepare upsert")
                .execute(params![key.0, key.1, value])
                .expect("upsert");
        }
        for message in &tx.messages {
            if self.append(message) {
                info.messages_written += 1;
            } else {
                info.messages_deduplicated += 1;
            }
        }
        for (consumer, range) in &tx.offsets {
            self.conn
                .prepare_cached(
                    "INSERT INTO topic_consumer_offsets (consumer, partition, committed)
                     VALUES (?1, ?2, ?3) ON CONFLICT (consumer, partition)
                     DO UPDATE SET committed = excluded.committed",
                )
                .expect("prepare offset")
                .execute(params![consumer, range.partition, range.to])
                .expect("advance offset");
        }
        info
    }

    /// The commit was applied, and the client sees `error` all the same.
    fn answer_after_applied(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        error: YdbError,
    ) -> YdbError {
        if error.status == StatusCode::Unavailable {
            self.stats.unavailable += 1;
        } else {
            self.stats.undetermined += 1;
        }
        sim.event(actor, Glyph::Indefinite, || {
            let truth = match error.status {
                StatusCode::Undetermined => "applied; the server could not confirm it",
                _ => "applied; response lost",
            };
            (format!("COMMIT: {}", error.status.name()), truth.into())
        });
        error
    }

    /// The first lock of `tx` that no longer holds, described; `None` when all hold. The
    /// offset ranges of each (consumer, partition) must continue its committed offset, one
    /// after the other.
    fn check_locks(&self, tx: &Tx) -> Option<String> {
        for read in &tx.reads {
            let now = self.row(read.table, read.key).map_or(0, |(_, v)| v);
            if now != read.version {
                return Some(format!(
                    "{}{:?} read at version {}, now {}",
                    read.table, read.key, read.version, now
                ));
            }
        }
        let mut expected: BTreeMap<(&str, i64), i64> = BTreeMap::new();
        for (consumer, range) in &tx.offsets {
            let next = expected
                .entry((consumer, range.partition))
                .or_insert_with(|| self.committed_offset(consumer, range.partition));
            if *next != range.from {
                return Some(format!(
                    "partition {} read from offset {}, but the committed offset is at {}",
                    range.partition, range.from, next
                ));
            }
            *next = range.to;
        }
        None
    }
}

/// What a commit of `tx` applied, for the timeline: its messages, rows and offsets.
fn applied(tx: &Tx) -> String {
    let mut truth = Vec::new();
    for message in &tx.messages {
        truth.push(format!(
            "message {}",
            describe_payload(message.producer_id, &message.payload)
        ));
    }
    for (table, key, _) in &tx.upserts {
        truth.push(format!("{table}{key:?}"));
    }
    for (_, range) in &tx.offsets {
        truth.push(format!("offset p{} -> {}", range.partition, range.to));
    }
    truth.join(", ")
}
