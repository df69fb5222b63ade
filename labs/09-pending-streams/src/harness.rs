//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! * A daily batch of source partition **D1**, positions 0–4, split between two workers:
//!   W1 owns 0–1, W2 owns 2–4. The source is immutable and retained.
//! * The simulated Storage Write API (`sim-writeapi`) with one table, `daily`. Appends,
//!   finalizations and batch commits can lose their response (after being applied, or
//!   not); a commit can also be lost before it is applied.
//! * `coordinator.db`: the coordinator's journal, schema [`JOURNAL_SCHEMA`]. One row per
//!   worker range (its stream and how far it got) and one row for the batch commit.
//! * Coordinator processes. Each opens the journal, runs [`run_coordinator`] and may crash
//!   at any [`Coordinator::step`] or while it waits for a response. After a crash a new
//!   process starts with only the journal; after three processes the faults stop.

use crate::coordinator::run_coordinator;
use labkit::fault::{
    self, Crash, CrashMatrix, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict,
    Violation,
};
use labkit::figure::Sequence;
use rusqlite::{Connection, OpenFlags};
use sim_writeapi::{
    AppendError, AppendResult, AppendRowsRequest, BatchCommitWriteStreamsResponse, Faults, Row,
    Status, StreamType, WriteApi, WriteStream, short,
};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a coordinator process stopped before the batch was committed and recorded.
#[derive(Debug)]
pub enum Stop {
    Crash(Crash),
    /// The evidence does not allow a safe next step: stop and reconcile.
    Hold(String),
    /// The process gives up; its supervisor starts a new one.
    Retry(String),
    Sql(rusqlite::Error),
}

impl From<Crash> for Stop {
    fn from(crash: Crash) -> Self {
        Stop::Crash(crash)
    }
}

impl From<rusqlite::Error> for Stop {
    fn from(e: rusqlite::Error) -> Self {
        Stop::Sql(e)
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Crash(crash) => write!(f, "{crash}"),
            Stop::Hold(reason) => write!(f, "hold for reconciliation: {reason}"),
            Stop::Retry(reason) => write!(f, "gives up, to be restarted: {reason}"),
            Stop::Sql(e) => write!(f, "journal error: {e}"),
        }
    }
}

/// The destination table.
pub const TABLE: &str = "daily";
/// The workers and the source ranges they own (end exclusive).
pub const RANGES: [(&str, i64, i64); 2] = [("W1", 0, 2), ("W2", 2, 5)];
/// All source positions of the batch.
pub const POSITIONS: std::ops::Range<i64> = 0..5;

// ANCHOR: schema
/// The coordinator's journal. `member.state` is `CREATED` (stream exists, journaled),
/// `APPENDED` or `FINALIZED`; `batch_commit.state` is `COMMITTING`, `COMMITTED` or `HELD`.
pub const JOURNAL_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS member (
    worker       TEXT PRIMARY KEY,
    source_first INTEGER NOT NULL,
    source_end   INTEGER NOT NULL,
    write_stream TEXT NOT NULL,
    row_count    INTEGER,
    state        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_commit (
    batch       TEXT PRIMARY KEY,
    state       TEXT NOT NULL,
    commit_time INTEGER,
    evidence    TEXT NOT NULL DEFAULT ''
);
";
// ANCHOR_END: schema

/// The batch's name in `batch_commit`.
pub const BATCH: &str = "D1";

/// The source rows of `worker`'s range, each tagged with the worker in the `batch` column.
pub fn source_rows(worker: &str) -> Vec<Row> {
    let (_, first, end) = RANGES
        .iter()
        .find(|(w, _, _)| *w == worker)
        .expect("a known worker");
    (*first..*end)
        .map(|p| Row::new(format!("D1:{p}"), worker))
        .collect()
}

fn position_of(row: &Row) -> i64 {
    row.source
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a D1:position source column")
}

static WORLDS: AtomicU64 = AtomicU64::new(0);

/// The durable things: the journal database and the service.
pub struct World {
    /// A shared in-memory SQLite database that lives as long as `keeper`, so it outlives
    /// every coordinator process.
    uri: String,
    keeper: Connection,
    pub api: WriteApi,
}

fn open(uri: &str) -> Connection {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags).expect("open journal")
}

impl World {
    pub fn create(faults: Faults) -> World {
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let uri = format!(
            "file:boundary-lab09-{}-{n}?mode=memory&cache=shared",
            std::process::id()
        );
        let keeper = open(&uri);
        keeper
            .execute_batch(JOURNAL_SCHEMA)
            .expect("journal schema");
        World {
            uri,
            keeper,
            api: WriteApi::new(&[TABLE]).with_faults(faults),
        }
    }

    /// Opens the journal as a fresh process would.
    pub fn journal(&self) -> Connection {
        open(&self.uri)
    }
}

/// One coordinator process: its own connection to the journal and the service.
pub struct Coordinator<'a> {
    sim: &'a mut Sim,
    world: &'a mut World,
    journal: Connection,
}

impl Coordinator<'_> {
    pub fn journal(&mut self) -> &mut Connection {
        &mut self.journal
    }

    /// Writes a line to the timeline (only recorded when a schedule is replayed).
    pub fn note(&mut self, describe: impl FnOnce() -> String) {
        self.sim.note("coordinator", describe);
    }

    // ANCHOR: calls
    /// A crash point: the process may die here; propagate the `Err` with `?`.
    pub fn step(&mut self, point: &'static str) -> Result<(), Crash> {
        self.sim.crash_point(point)
    }

    /// `CreateWriteStream` of type PENDING on `daily`.
    pub fn create_pending_stream(&mut self) -> Result<String, Crash> {
        let stream = self
            .world
            .api
            .create_write_stream(self.sim, TABLE, StreamType::Pending)
            .expect("CreateWriteStream on an existing table");
        self.step("coordinator:after-create-stream")?;
        Ok(stream.name)
    }

    /// `AppendRows` at `offset` on a fresh connection. The outer `Err(Crash)` is a process
    /// that died waiting for the response.
    pub fn append(
        &mut self,
        write_stream: &str,
        offset: i64,
        rows: Vec<Row>,
    ) -> Result<Result<AppendResult, AppendError>, Crash> {
        let response = match self.world.api.connect(self.sim, write_stream) {
            Ok(connection) => {
                let request = AppendRowsRequest {
                    offset: Some(offset as u64),
                    rows,
                };
                let response = self.world.api.append_rows(self.sim, &connection, request);
                self.world.api.disconnect(&connection);
                response
            }
            Err(status) => Err(AppendError {
                status,
                row_errors: Vec::new(),
            }),
        };
        self.step("coordinator:after-append")?;
        Ok(response)
    }

    /// `FinalizeWriteStream`: returns the stream's `row_count`.
    pub fn finalize(&mut self, write_stream: &str) -> Result<Result<i64, Status>, Crash> {
        let response = self
            .world
            .api
            .finalize_write_stream(self.sim, write_stream)
            .map(|rows| rows as i64);
        self.step("coordinator:after-finalize")?;
        Ok(response)
    }

    /// `BatchCommitWriteStreams` of `write_streams` on `daily`.
    pub fn batch_commit(
        &mut self,
        write_streams: &[String],
    ) -> Result<Result<BatchCommitWriteStreamsResponse, Status>, Crash> {
        let response = self
            .world
            .api
            .batch_commit_write_streams(self.sim, TABLE, write_streams);
        self.step("coordinator:after-commit")?;
        Ok(response)
    }

    /// `GetWriteStream`: the stream's type, create time and commit time (empty while a
    /// pending stream is not committed).
    pub fn get_write_stream(&mut self, write_stream: &str) -> Result<WriteStream, Status> {
        let stream = self.world.api.get_write_stream(write_stream);
        self.sim.note("coordinator", || {
            format!(
                "GetWriteStream {} -> commit_time {:?}",
                short(write_stream),
                stream.as_ref().ok().and_then(|s| s.commit_time)
            )
        });
        stream
    }
    // ANCHOR_END: calls
}

/// How a run of coordinator processes ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Done,
    Held(String),
    Unfinished,
}

/// Runs coordinator processes until one finishes or holds; the last two run healed.
fn run_processes(sim: &mut Sim, world: &mut World, processes: u32) -> Ending {
    for number in 1..=processes {
        if number + 1 >= processes {
            sim.heal();
            world.api.drain(sim);
        }
        sim.event("coordinator", Glyph::Recover, || {
            (
                format!("coordinator-{number} starts and opens coordinator.db"),
                String::new(),
            )
        });
        let journal = world.journal();
        let mut coordinator = Coordinator {
            sim,
            world,
            journal,
        };
        match run_coordinator(&mut coordinator) {
            Ok(()) => return Ending::Done,
            Err(Stop::Hold(reason)) => return Ending::Held(reason),
            Err(stop) => {
                sim.event("coordinator", Glyph::Recover, || {
                    (
                        format!("coordinator-{number} ends: {stop}"),
                        "its memory is gone; coordinator.db remains".into(),
                    )
                });
            }
        }
    }
    Ending::Unfinished
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
    /// The commit time the service holds for the committed streams.
    pub service_commit_times: Vec<Option<u64>>,
    pub violations: Vec<Violation>,
}

/// Fates the graded calls may meet.
pub const APPEND_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const FINALIZE_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const COMMIT_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost, Fate::NotApplied];

/// Runs one schedule and returns what it left.
pub fn run_batch(sim: &mut Sim) -> Outcome {
    run_batch_with(sim, false)
}

/// Runs one schedule; with `lose_first_commit_response`, the first
/// `BatchCommitWriteStreams` is applied and its response lost, whatever the schedule says.
pub fn run_batch_with(sim: &mut Sim, lose_first_commit_response: bool) -> Outcome {
    let mut world = World::create(Faults {
        append: APPEND_FATES,
        finalize: FINALIZE_FATES,
        commit: COMMIT_FATES,
    });
    if lose_first_commit_response {
        world.api.script_next_commit(Fate::AppliedResponseLost);
    }
    let ending = run_processes(sim, &mut world, 5);
    let visible: Vec<i64> = world
        .api
        .read_table(TABLE)
        .iter()
        .map(|r| position_of(&r.row))
        .collect();
    let streams = world.api.stream_names();
    let streams_per_range: Vec<(String, usize)> = RANGES
        .iter()
        .map(|(worker, _, _)| {
            let with_rows = streams
                .iter()
                .filter(|s| world.api.stream_rows(s).iter().any(|r| r.batch == *worker))
                .count();
            (worker.to_string(), with_rows)
        })
        .collect();
    let commit_record: Option<(String, Option<i64>)> = world
        .keeper
        .query_row(
            "SELECT state, commit_time FROM batch_commit WHERE batch = ?1",
            [BATCH],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    let service_commit_times: Vec<Option<u64>> = streams
        .iter()
        .filter(|s| !world.api.stream_rows(s).is_empty())
        .map(|s| {
            world
                .api
                .get_write_stream(s)
                .ok()
                .and_then(|w| w.commit_time)
        })
        .collect();
    let mut outcome = Outcome {
        ending,
        visible,
        streams_per_range,
        commit_record,
        service_commit_times,
        violations: Vec::new(),
    };
    outcome.violations.extend(violation(&outcome));
    outcome
}

/// The invariants at the end of a schedule, in the order they are checked.
fn violation(o: &Outcome) -> Option<Violation> {
    for (worker, streams) in &o.streams_per_range {
        if *streams > 1 {
            return Some(Violation::new(
                "one append identity per source range",
                &[
                    format!("Let {worker}'s range be one unit of the batch."),
                    format!("Then {streams} pending streams received its rows."),
                    "Contradiction: retrying a commit keeps the write set; creating replacement streams and replaying their ranges makes new append identities. Reuse the journaled stream.".into(),
                ],
            ));
        }
    }
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
                        "Then, after the faults stopped, the table does not show it (the coordinators ended with {:?}).",
                        o.ending
                    ),
                    "Contradiction: a healed coordinator must finish the batch commit.".into(),
                ],
            ));
        }
    }
    let actual = o
        .service_commit_times
        .first()
        .copied()
        .flatten()
        .map(|t| t as i64);
    let recorded = o
        .commit_record
        .as_ref()
        .and_then(|(state, time)| (state == "COMMITTED").then_some(*time).flatten());
    if recorded.is_none() || recorded != actual {
        return Some(Violation::new(
            "the journal keeps the commit and its commit time",
            &[
                format!("Let the service's commit time of the batch be {actual:?}."),
                format!("Then the journal's commit record is {:?}.", o.commit_record),
                "Contradiction: the coordinator must record COMMITTED with the commit_time the service returned (or shows in GetWriteStream after a lost response).".into(),
            ],
        ));
    }
    None
}

/// One graded schedule: the verdict of [`run_batch`].
pub fn batch_scenario(sim: &mut Sim) -> Verdict {
    match run_batch(sim).violations.into_iter().next() {
        Some(violation) => Err(violation),
        None => Ok(()),
    }
}

fn scope(max_faults: usize) -> Scope {
    Scope {
        lab: "09",
        scenario: "batch",
        max_faults,
    }
}

/// Explores every schedule of the batch with up to `max_faults` faults.
pub fn explore_batch(max_faults: usize) -> Exploration {
    fault::explore(scope(max_faults), batch_scenario)
}

/// Every one-fault schedule and what it broke.
pub fn crash_matrix() -> CrashMatrix {
    CrashMatrix::from_exploration(&fault::explore_all(scope(1), batch_scenario))
}

fn replay_batch(token: &Token) -> Replay {
    fault::replay(token, batch_scenario)
}

/// The scenarios `cargo labs replay 09 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("batch", replay_batch)];

/// The first failure of the batch exploration with the learner's code, as the chapter
/// shows it (generated, so the book cannot drift from what `cargo labs check 09` prints).
fn first_batch_failure() -> String {
    match explore_batch(2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the batch scenario passes\n".to_string(),
    }
}

/// The figures of chapter 9.
pub fn figures() -> Vec<(&'static str, String)> {
    let commit = Sequence::new(
        "Pending streams: one atomic commit, a lost response, recovery by inspection",
        &[
            "coordinator.db",
            "coordinator",
            "Storage Write API",
            "table daily",
        ],
    )
    .call(
        "coordinator",
        "Storage Write API",
        "CreateWriteStream PENDING (W1, W2)",
    )
    .call(
        "coordinator",
        "coordinator.db",
        "W1 → S1, W2 → S2 (before any append)",
    )
    .call("coordinator", "Storage Write API", "AppendRows S1@0, S2@0")
    .note("table daily", "nothing visible")
    .call(
        "coordinator",
        "Storage Write API",
        "FinalizeWriteStream S1, S2",
    )
    .call(
        "coordinator",
        "coordinator.db",
        "W1, W2 FINALIZED (row counts)",
    )
    .note("table daily", "still nothing visible")
    .call("coordinator", "coordinator.db", "D1 COMMITTING")
    .call(
        "coordinator",
        "Storage Write API",
        "BatchCommitWriteStreams [S1, S2]",
    )
    .note("Storage Write API", "commits both atomically")
    .reply(
        "Storage Write API",
        "table daily",
        "5 rows visible at commit_time t",
    )
    .lost("Storage Write API", "coordinator", "commit_time t")
    .crash("coordinator", "dies: D1 is COMMITTING")
    .divider("a new process inspects; it does not replay")
    .call("coordinator", "Storage Write API", "GetWriteStream S1, S2")
    .reply("Storage Write API", "coordinator", "commit_time t (both)")
    .call("coordinator", "coordinator.db", "D1 COMMITTED at t");
    vec![
        ("09-pending-commit.svg", commit.to_svg()),
        ("09-first-failure.txt", first_batch_failure()),
        ("09-crash-matrix.txt", crash_matrix().render()),
    ]
}
