//! What must hold at the end of every schedule, and the "Let … Then … Contradiction"
//! explanation printed when it does not.

use crate::world::{POSITIONS, Stop, World};
use labkit::fault::Violation;
use rusqlite::OptionalExtension;

/// How a run of coordinator processes ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Done,
    Held(String),
    Unfinished,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Done => write!(f, "a coordinator returned Ok"),
            Ending::Held(reason) => write!(f, "a hold ({reason})"),
            Ending::Unfinished => write!(f, "no coordinator finishing"),
        }
    }
}

/// What one schedule left behind.
pub struct Outcome {
    pub ending: Ending,
    /// Source positions visible in the table, in table order.
    pub visible: Vec<i64>,
    /// For each worker, how many streams received its rows.
    pub streams_per_range: Vec<(String, usize)>,
    /// The journal's commit record: state and commit time.
    pub commit_record: Option<(String, Option<i64>)>,
    /// The commit time the service holds for the streams that received rows.
    pub service_commit_times: Vec<Option<u64>>,
    /// The first process that ended while a sent commit was missing from the journal.
    pub unseen_commit: Option<UnseenCommit>,
}

/// A coordinator process that ended (crashed or gave up) after a `BatchCommitWriteStreams`
/// had been sent, while `coordinator.db` did not say so. Between that end and the next
/// process, the journal is all its readers have: the alert on commits in doubt, and
/// whoever later decides whether the streams may be replaced.
#[derive(Clone, Debug)]
pub struct UnseenCommit {
    pub process: u32,
    pub stop: String,
    pub journal_state: String,
}

impl UnseenCommit {
    /// What the journal shows as process `process` ends with `stop`; `None` when no
    /// commit was sent, or the journal shows one (COMMITTING, COMMITTED or HELD).
    pub fn check(world: &World, process: u32, stop: &Stop) -> Option<UnseenCommit> {
        if !world.commit_was_sent() || matches!(stop, Stop::Hold(_)) {
            return None;
        }
        let state = commit_record(world).map(|(state, _)| state);
        let shown = ["COMMITTING", "COMMITTED", "HELD"];
        match state {
            Some(state) if shown.contains(&state.as_str()) => None,
            state => Some(UnseenCommit {
                process,
                stop: stop.to_string(),
                journal_state: state.unwrap_or_else(|| "absent".into()),
            }),
        }
    }
}

/// The journal's commit record of the batch: its state and commit time.
fn commit_record(world: &World) -> Option<(String, Option<i64>)> {
    world
        .keeper()
        .query_row(
            "SELECT state, commit_time FROM batch_commit WHERE batch = ?1",
            [crate::world::BATCH],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .ok()
        .flatten()
}

impl Outcome {
    /// Reads what the world holds after the last process.
    pub fn of(world: &World, ending: Ending, unseen_commit: Option<UnseenCommit>) -> Outcome {
        let api = &world.api;
        let visible = api
            .read_table(crate::world::TABLE)
            .iter()
            .map(|r| position_of(&r.row.source))
            .collect();
        let streams = api.stream_names();
        let streams_per_range = crate::world::RANGES
            .iter()
            .map(|(worker, _, _)| {
                let rows_of = |s: &&String| api.stream_rows(s).iter().any(|r| r.batch == *worker);
                (worker.to_string(), streams.iter().filter(rows_of).count())
            })
            .collect();
        let commit_record = commit_record(world);
        let service_commit_times = streams
            .iter()
            .filter(|s| !api.stream_rows(s).is_empty())
            .map(|s| api.get_write_stream(s).ok().and_then(|w| w.commit_time))
            .collect();
        Outcome {
            ending,
            visible,
            streams_per_range,
            commit_record,
            service_commit_times,
            unseen_commit,
        }
    }
}

fn position_of(source: &str) -> i64 {
    source
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a D1:position source column")
}

/// The first invariant the outcome breaks, in the order they are checked.
pub fn violation(o: &Outcome) -> Option<Violation> {
    one_stream_per_range(o)
        .or_else(|| each_row_once(o))
        .or_else(|| one_commit_time(o))
        .or_else(|| commit_recorded(o))
        .or_else(|| finished(o))
        .or_else(|| commit_in_doubt_shown(o))
}

fn one_stream_per_range(o: &Outcome) -> Option<Violation> {
    let (worker, streams) = o.streams_per_range.iter().find(|(_, n)| *n > 1)?;
    Some(Violation::new(
        "one append identity per source range",
        &[
            format!("Let {worker}'s range be one unit of the batch."),
            format!("Then {streams} pending streams received its rows."),
            "Contradiction: each stream is a new append identity, and any of them can be committed. Journal the range's stream before its first append, and finish that stream after a crash or an unanswered call.".into(),
        ],
    ))
}

fn each_row_once(o: &Outcome) -> Option<Violation> {
    for position in POSITIONS {
        let copies = o.visible.iter().filter(|p| **p == position).count();
        if copies > 1 {
            return Some(Violation::new(
                "no row is visible twice",
                &[
                    format!("Let D1:{position} be one source record."),
                    format!("Then the table shows it {copies} times."),
                    "Contradiction: the batch must be committed exactly once.".into(),
                ],
            ));
        }
        if copies == 0 {
            return Some(Violation::new(
                "every row is visible once the faults stop",
                &[
                    format!("Let D1:{position} be one source record."),
                    format!(
                        "Then, after the faults stopped, the table does not show it (the coordinators ended with {}).",
                        o.ending
                    ),
                    "Contradiction: a healed coordinator must finish the batch commit.".into(),
                ],
            ));
        }
    }
    None
}

fn one_commit_time(o: &Outcome) -> Option<Violation> {
    let first = o.service_commit_times.first().copied().flatten()?;
    let other = (o.service_commit_times.iter().flatten()).find(|t| **t != first)?;
    Some(Violation::new(
        "the batch is committed at one commit time",
        &[
            format!("Let D1's first stream be committed at {first}."),
            format!("Then another of its streams was committed at {other}."),
            "Contradiction: the daily batch must appear all at once. Only one BatchCommitWriteStreams of the whole group commits its streams atomically; commits of single streams let a reader see half a batch.".into(),
        ],
    ))
}

fn commit_recorded(o: &Outcome) -> Option<Violation> {
    let actual = o.service_commit_times.first().copied().flatten();
    let actual = actual.map(|t| t as i64);
    let time = |t: Option<i64>| t.map_or("none".to_string(), |t| t.to_string());
    let (state, recorded) = match &o.commit_record {
        Some((state, recorded)) => (state.as_str(), *recorded),
        None => ("absent", None),
    };
    if state == "COMMITTED" && recorded.is_some() && recorded == actual {
        return None;
    }
    let (invariant, rule) = if state == "COMMITTED" {
        (
            "the journal keeps the service's commit time",
            "the coordinator must record the commit_time the service returned, or the one GetWriteStream shows after a lost response",
        )
    } else {
        (
            "the journal records the commit",
            "a committed batch must be recorded as COMMITTED, so that no later process commits or replaces anything",
        )
    };
    Some(Violation::new(
        invariant,
        &[
            format!("Let the service's commit time of D1 be {}.", time(actual)),
            format!(
                "Then the journal ends with D1 {state}, commit time {}.",
                time(recorded)
            ),
            format!("Contradiction: {rule}."),
        ],
    ))
}

fn finished(o: &Outcome) -> Option<Violation> {
    if o.ending == Ending::Done {
        return None;
    }
    Some(Violation::new(
        "the coordinator finishes once the faults stop",
        &[
            "Let the faults stop (the last coordinators run healed).".into(),
            format!("Then the coordinators ended with {}.", o.ending),
            "Contradiction: with the batch committed and recorded, a coordinator has nothing left to hold or retry; it must return Ok.".into(),
        ],
    ))
}

fn commit_in_doubt_shown(o: &Outcome) -> Option<Violation> {
    let unseen = o.unseen_commit.as_ref()?;
    Some(Violation::new(
        "the journal shows a commit in doubt whenever no process runs",
        &[
            format!(
                "Let coordinator-{} end ({}) after a BatchCommitWriteStreams of D1 was sent.",
                unseen.process, unseen.stop
            ),
            format!(
                "Then coordinator.db shows D1's commit {}: the alert on commits in doubt, and whoever decides later whether D1's streams may be replaced, read that no commit was ever sent.",
                unseen.journal_state
            ),
            "Contradiction: the commit may have applied. From the moment it is sent until a response or GetWriteStream settles it, the journal must say COMMITTING: write it before BatchCommitWriteStreams.".into(),
        ],
    ))
}
