//! A commit: the validation of the attempt's reads (or, under REPEATABLE_READ, of the
//! rows it writes), the fate the fault core decides, and the mutations applied all or
//! none; and the commits in flight that land later.

use super::{Buffered, Database, InFlight, ReadLock, Span, Stored, range};
use crate::{Code, CommitResponse, Mutation, SpannerError};
use labkit::fault::{Fate, Glyph, Sim};

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

impl Database {
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
        let (reads, mutations) = self.validated(sim, parts)?;
        let fate = COMMIT_FATES[sim.choose("spanner:commit", &COMMIT_LABELS)];
        let now = sim.now();
        let unknown = self.unknown_outcome();
        let truth: String = match fate {
            Fate::Ok => return self.commit_applied(sim, mutations, now),
            Fate::Rejected => {
                sim.event("spanner", Glyph::Error, || {
                    (
                        "commit -> ABORTED".into(),
                        "aborted by the database; nothing applied".into(),
                    )
                });
                return Err(SpannerError::new(Code::Aborted));
            }
            Fate::AppliedResponseLost => match self.apply(mutations, now) {
                Ok(ts) => format!("applied at commit timestamp {ts}, response lost"),
                Err(code) => format!("not applied ({})", code.name()),
            },
            Fate::NotApplied => "not applied".into(),
            Fate::AppliedLater => {
                self.in_flight.push(InFlight { reads, mutations });
                "still in flight: lands before the next commit".into()
            }
        };
        sim.event("spanner", Glyph::Indefinite, || {
            (format!("commit -> {}", unknown.code.name()), truth)
        });
        Err(unknown)
    }

    /// The locks and writes of a commit that may go on: ABORTED, definite, when a DML
    /// statement of the attempt already ended ABORTED, or when a row or a range it read
    /// (with REPEATABLE_READ, a row it writes) was written after the read.
    fn validated(
        &mut self,
        sim: &mut Sim,
        parts: Buffered,
    ) -> Result<(Vec<ReadLock>, Vec<Mutation>), SpannerError> {
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
        Ok((reads, mutations))
    }

    /// A commit the fault core lets through: applied, or refused definitely
    /// (ALREADY_EXISTS, NOT_FOUND) with nothing applied.
    fn commit_applied(
        &mut self,
        sim: &mut Sim,
        mutations: Vec<Mutation>,
        now: u64,
    ) -> Result<CommitResponse, SpannerError> {
        match self.apply(mutations, now) {
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
    pub(super) fn apply(&mut self, mutations: Vec<Mutation>, now: u64) -> Result<u64, Code> {
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
