//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! * Source partition **P7**, positions 1000–1004, retained and immutable: reading a range
//!   twice gives the same rows (the seed's "explicit source-retention contract").
//! * The simulated Storage Write API (`sim-writeapi`) with one table, `ledger`. Every
//!   `AppendRows` can answer, lose its response after the rows were appended, lose the
//!   request, or land later.
//! * `journal.db`, a SQLite file: the writer's memory after its process is gone. Its
//!   schema is [`JOURNAL_SCHEMA`]; the writer's lease, the stream it writes to, one record
//!   per batch, the rows it had to quarantine and the source checkpoint live there.
//! * Writer processes. Each opens `journal.db`, runs [`run_writer`] and may crash at any
//!   [`Writer::step`] or while it waits for an `AppendRows` response. After a crash its
//!   memory and its connections are gone and a new process starts. In the stale-owner
//!   scenarios, the first process can instead *pause* at a step: its lease lapses, a new
//!   owner takes over and finishes the partition, and then the old process wakes up and
//!   carries on with what it had in memory.

use crate::ledger::run_writer;
use labkit::fault::{
    self, Crash, CrashMatrix, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict,
    Violation,
};
use labkit::figure::Sequence;
use rusqlite::{Connection, OpenFlags};
use sim_writeapi::{
    AppendError, AppendResult, AppendRowsRequest, Faults, Row, StreamType, WriteApi, short,
};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The source partition of the seed's ledger.
pub const PARTITION: &str = "P7";
/// Its positions: batch A = 1000–1002, batch B = 1003–1004; the checkpoint ends at 1005.
pub const SOURCE_FIRST: i64 = 1000;
pub const SOURCE_END: i64 = 1005;
/// The largest batch the writer cuts, so A has three rows and B two.
pub const MAX_BATCH_ROWS: i64 = 3;
/// The destination table.
pub const TABLE: &str = "ledger";
/// The serialization version recorded with every fingerprint.
pub const SERIALIZATION_VERSION: i64 = 1;

// ANCHOR: schema
/// The journal. `journal.state` is one of `PREPARED`, `SENT`, `UNKNOWN`, `CONFIRMED`,
/// `REJECTED`, `HELD` (stopped for reconciliation); `source_first..source_end` is the batch's source range (end exclusive).
/// Why a writer process stopped before finishing the partition.
#[derive(Debug)]
pub enum Stop {
    /// The process crashed (a crash point, or while waiting for a response).
    Crash(Crash),
    /// The lease belongs to a newer owner epoch: this process is stale and must stop.
    Fenced {
        mine: i64,
        current: i64,
    },
    /// The evidence does not prove what happened: stop and reconcile, do not guess.
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
            Stop::Fenced { mine, current } => {
                write!(f, "fenced: my epoch {mine}, the lease is at {current}")
            }
            Stop::Hold(reason) => write!(f, "hold for reconciliation: {reason}"),
            Stop::Retry(reason) => write!(f, "gives up, to be restarted: {reason}"),
            Stop::Sql(e) => write!(f, "journal error: {e}"),
        }
    }
}

/// The states of a journal record.
pub mod state {
    pub const PREPARED: &str = "PREPARED";
    pub const SENT: &str = "SENT";
    pub const UNKNOWN: &str = "UNKNOWN";
    pub const CONFIRMED: &str = "CONFIRMED";
    pub const REJECTED: &str = "REJECTED";
    pub const HELD: &str = "HELD";
}

pub const JOURNAL_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS lease (
    partition   TEXT PRIMARY KEY,
    owner_epoch INTEGER NOT NULL,
    owner       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS stream (
    partition    TEXT PRIMARY KEY,
    write_stream TEXT NOT NULL,
    owner_epoch  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    batch_id              TEXT PRIMARY KEY,
    partition             TEXT NOT NULL,
    destination           TEXT NOT NULL,
    write_stream          TEXT NOT NULL,
    row_offset            INTEGER NOT NULL,
    row_count             INTEGER NOT NULL,
    source_first          INTEGER NOT NULL,
    source_end            INTEGER NOT NULL,
    fingerprint           TEXT NOT NULL,
    serialization_version INTEGER NOT NULL,
    state                 TEXT NOT NULL,
    evidence              TEXT NOT NULL DEFAULT '',
    replaces              TEXT,
    owner_epoch           INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS quarantine (
    partition   TEXT NOT NULL,
    position    INTEGER NOT NULL,
    batch_id    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    owner_epoch INTEGER NOT NULL,
    PRIMARY KEY (partition, position)
);
CREATE TABLE IF NOT EXISTS checkpoint (
    partition     TEXT PRIMARY KEY,
    next_position INTEGER NOT NULL,
    owner_epoch   INTEGER NOT NULL
);
";
// ANCHOR_END: schema

/// One journal record, as the graded suite reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub batch_id: String,
    pub write_stream: String,
    pub row_offset: i64,
    pub row_count: i64,
    pub source_first: i64,
    pub source_end: i64,
    pub fingerprint: String,
    pub state: String,
    pub replaces: Option<String>,
}

/// Reads every journal record, by offset then batch id.
pub fn records(journal: &Connection) -> Vec<Record> {
    journal
        .prepare(
            "SELECT batch_id, write_stream, row_offset, row_count, source_first, source_end,
                    fingerprint, state, replaces
             FROM journal ORDER BY row_offset, batch_id",
        )
        .and_then(|mut s| {
            s.query_map([], |r| {
                Ok(Record {
                    batch_id: r.get(0)?,
                    write_stream: r.get(1)?,
                    row_offset: r.get(2)?,
                    row_count: r.get(3)?,
                    source_first: r.get(4)?,
                    source_end: r.get(5)?,
                    fingerprint: r.get(6)?,
                    state: r.get(7)?,
                    replaces: r.get(8)?,
                })
            })?
            .collect()
        })
        .expect("journal records")
}

/// The source checkpoint: the next position the source would deliver after a restart.
pub fn checkpoint(journal: &Connection) -> i64 {
    journal
        .query_row(
            "SELECT next_position FROM checkpoint WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .unwrap_or(SOURCE_FIRST)
}

/// The positions the journal quarantined (rows the table refused), in order.
pub fn quarantined(journal: &Connection) -> Vec<i64> {
    journal
        .prepare("SELECT position FROM quarantine WHERE partition = ?1 ORDER BY position")
        .and_then(|mut s| s.query_map([PARTITION], |r| r.get(0))?.collect())
        .expect("quarantine")
}

/// The source-position part of a row's `source` column (`P7:1003` → 1003).
pub fn position_of(row: &Row) -> i64 {
    row.source
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a P7:position source column")
}

// ANCHOR: fingerprint
/// The fingerprint of an exact ordered row set: FNV-1a over a canonical serialization
/// (version, then each row's source and fields, in order). Computed over the rows, never
/// over a debug rendering.
pub fn fingerprint(rows: &[Row]) -> String {
    let mut canonical = format!("v{SERIALIZATION_VERSION}");
    for row in rows {
        canonical.push_str(&format!(
            "|{}:{}",
            row.source,
            row.unknown_field.as_deref().unwrap_or("")
        ));
    }
    labkit::hash::fnv64_hex(canonical.as_bytes())
}
// ANCHOR_END: fingerprint

/// What the world looks like in one graded schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The first process may pause at a step while a new owner takes over.
    pub stale_owner: bool,
    /// This source position carries a field the table schema does not have.
    pub bad_row: Option<i64>,
    /// Before the writer starts, a misconfigured client has written this many rows of its
    /// own at the start of the stream the writer will create (the "wrong offset" drill).
    pub foreign_rows: i64,
    /// The first `AppendRows` is applied, its response lost, and the process dies waiting
    /// (the seed's T4), whatever the fault schedule says.
    pub lose_first_response_and_crash: bool,
    /// The fates every `AppendRows` may meet.
    pub append_fates: &'static [Fate],
}

impl Setup {
    pub const LEDGER: Setup = Setup {
        stale_owner: false,
        bad_row: None,
        foreign_rows: 0,
        lose_first_response_and_crash: false,
        append_fates: APPEND_FATES,
    };
}

/// The source: immutable, retained rows of partition P7.
#[derive(Clone, Debug)]
pub struct Source {
    bad_row: Option<i64>,
}

impl Source {
    /// The rows at positions `first..end`, in order, with an empty `batch` column.
    pub fn read(&self, first: i64, end: i64) -> Vec<Row> {
        (first..end.min(SOURCE_END))
            .map(|position| {
                let mut row = Row::new(format!("{PARTITION}:{position}"), "");
                if self.bad_row == Some(position) {
                    row.unknown_field = Some("discount_code".into());
                }
                row
            })
            .collect()
    }
}

static WORLDS: AtomicU64 = AtomicU64::new(0);

/// The durable things: the journal database, the service, the source.
pub struct World {
    /// The journal's URI: a shared in-memory SQLite database that lives as long as
    /// `keeper`, so it outlives every writer process (a file would do the same, slower).
    uri: String,
    keeper: Connection,
    pub api: WriteApi,
    pub source: Source,
    setup: Setup,
    /// A misconfigured client writes its rows when the first stream is created.
    foreign_pending: i64,
    first_append_done: bool,
    /// The stale process paused once already.
    paused: bool,
    /// What the new owner left, taken when the stale process wakes up.
    stale_snapshot: Option<String>,
    processes: u32,
    violations: Vec<Violation>,
}

impl World {
    pub fn create(setup: Setup, faults: Faults) -> World {
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let uri = format!(
            "file:boundary-lab08-{}-{n}?mode=memory&cache=shared",
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
            source: Source {
                bad_row: setup.bad_row,
            },
            setup,
            foreign_pending: setup.foreign_rows,
            first_append_done: false,
            paused: false,
            stale_snapshot: None,
            processes: 0,
            violations: Vec::new(),
        }
    }

    /// Opens the journal as a fresh process would.
    pub fn journal(&self) -> Connection {
        open(&self.uri)
    }

    /// The source positions of every row a query of the table sees, in table order.
    pub fn table_positions(&self) -> Vec<i64> {
        self.api
            .read_table(TABLE)
            .iter()
            .filter(|r| !r.row.batch.starts_with("foreign"))
            .map(|r| position_of(&r.row))
            .collect()
    }
}

fn open(uri: &str) -> Connection {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags).expect("open journal")
}

/// One writer process: its own connection to `journal.db` (closed at a crash) and the
/// service. The owner name is the process's; the epoch is what the lease says.
pub struct Writer<'a> {
    sim: &'a mut Sim,
    world: &'a mut World,
    journal: Connection,
    owner: String,
    /// Only the first process of a stale-owner scenario may pause, and only once.
    may_pause: bool,
}

impl Writer<'_> {
    /// The process's connection to `journal.db`.
    pub fn journal(&mut self) -> &mut Connection {
        &mut self.journal
    }

    /// This process's name (`writer-1`, `writer-2`, …).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub fn source(&self) -> &Source {
        &self.world.source
    }

    /// Writes a line to the timeline (only recorded when a schedule is replayed).
    pub fn note(&mut self, describe: impl FnOnce() -> String) {
        self.sim.note("writer", describe);
    }

    // ANCHOR: step
    /// A crash point: the process may die here (`Err(Crash)`, propagate it with `?`).
    /// In a stale-owner scenario the first process may instead stop here while its lease
    /// lapses and a new owner takes over; it then resumes with what it had in memory.
    pub fn step(&mut self, point: &'static str) -> Result<(), Crash> {
        let options: &[&'static str] = if self.may_pause && !self.world.paused {
            &["continue", "crash", "pause while a new owner takes over"]
        } else {
            &["continue", "crash"]
        };
        match self.sim.choose(point, options) {
            0 => Ok(()),
            1 => {
                self.sim.event("writer", Glyph::Crash, || {
                    (
                        format!("crash at {point}"),
                        "memory and connections lost".into(),
                    )
                });
                Err(Crash { point })
            }
            _ => {
                self.world.paused = true;
                let owner = self.owner.clone();
                self.sim.event("writer", Glyph::Fault, || {
                    (
                        format!("{owner} pauses at {point}"),
                        "its lease lapses; a new owner takes over".into(),
                    )
                });
                // The new owner takes the lease and works; it may finish, or crash and
                // leave work unfinished for a third owner.
                let _takeover = run_one_process(self.sim, self.world, false);
                self.sim.event("writer", Glyph::Fault, || {
                    (
                        format!("{owner} wakes up after {point}"),
                        "stale owner: everything it does now must be refused".into(),
                    )
                });
                self.world.stale_snapshot = Some(snapshot(self.world));
                Ok(())
            }
        }
    }
    // ANCHOR_END: step

    /// `CreateWriteStream` of type COMMITTED on the `ledger` table.
    pub fn create_stream(&mut self) -> Result<String, Crash> {
        let stream = self
            .world
            .api
            .create_write_stream(self.sim, TABLE, StreamType::Committed)
            .expect("CreateWriteStream on an existing table");
        if self.world.foreign_pending > 0 {
            // The drill: another, misconfigured client writes to this stream first.
            let rows: Vec<Row> = (0..self.world.foreign_pending)
                .map(|i| Row::new(format!("X:{i}"), "foreign"))
                .collect();
            self.world.foreign_pending = 0;
            let connection = self
                .world
                .api
                .connect(self.sim, &stream.name)
                .expect("connect");
            let _ = self.world.api.append_rows(
                self.sim,
                &connection,
                AppendRowsRequest { offset: None, rows },
            );
            self.world.api.disconnect(&connection);
            self.sim.event("other", Glyph::Fault, || {
                (
                    String::new(),
                    "a misconfigured client appended its own rows at offset 0".into(),
                )
            });
        }
        self.step("writer:after-create-stream")?;
        Ok(stream.name)
    }

    // ANCHOR: append
    /// `AppendRows` of `rows` at `offset` on `write_stream`, on a fresh connection that is
    /// closed afterwards. The outer `Err(Crash)` is a process that died while waiting for
    /// the response; the inner result is the response (or the transport error:
    /// DEADLINE_EXCEEDED when the response was lost, whatever happened to the rows).
    pub fn append(
        &mut self,
        write_stream: &str,
        offset: i64,
        rows: Vec<Row>,
    ) -> Result<Result<AppendResult, AppendError>, Crash> {
        let connection = match self.world.api.connect(self.sim, write_stream) {
            Ok(connection) => connection,
            Err(status) => {
                return Ok(Err(AppendError {
                    status,
                    row_errors: Vec::new(),
                }));
            }
        };
        let forced =
            self.world.setup.lose_first_response_and_crash && !self.world.first_append_done;
        self.world.first_append_done = true;
        let request = AppendRowsRequest {
            offset: Some(offset as u64),
            rows,
        };
        if forced {
            self.world.api.script_next_append(Fate::AppliedResponseLost);
        }
        let response = self.world.api.append_rows(self.sim, &connection, request);
        self.world.api.disconnect(&connection);
        if forced {
            self.sim.event("writer", Glyph::Crash, || {
                (
                    "crash while waiting for the AppendRows response".into(),
                    String::new(),
                )
            });
            return Err(Crash {
                point: "writer:waiting-for-append",
            });
        }
        self.step("writer:after-append")?;
        Ok(response)
    }
    // ANCHOR_END: append
}

/// The durable state a stale owner must not change: journal, quarantine, checkpoint. (It
/// may still hold objects capable of I/O; an append of the journaled batch at its
/// journaled offset is harmless, and the other invariants check the table.)
fn snapshot(world: &World) -> String {
    let journal = &world.keeper;
    format!(
        "{:?} quarantine {:?} checkpoint {}",
        records(journal),
        quarantined(journal),
        checkpoint(journal),
    )
}

impl World {
    fn start_process(&mut self) -> u32 {
        self.processes += 1;
        self.processes
    }
}

/// How a run of writer processes ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A process returned `Ok`: the partition is written and checkpointed.
    Done,
    /// A process stopped to hold for reconciliation, with its reason.
    Held(String),
    /// No process finished within the allowed number of processes.
    Unfinished,
}

/// Starts one writer process (the first one of a stale-owner scenario may pause) and
/// runs it until it returns; checks the checkpoint invariant after it.
fn run_one_process(
    sim: &mut Sim,
    world: &mut World,
    top_level: bool,
) -> (u32, String, Result<(), Stop>) {
    let number = world.start_process();
    let owner = format!("writer-{number}");
    let may_pause = top_level && world.setup.stale_owner && number == 1;
    sim.event("writer", Glyph::Recover, || {
        (
            format!("{owner} starts and opens journal.db"),
            String::new(),
        )
    });
    let journal = world.journal();
    let mut writer = Writer {
        sim,
        world,
        journal,
        owner: owner.clone(),
        may_pause,
    };
    let result = run_writer(&mut writer);
    drop(writer);
    if let Some(violation) = checkpoint_violation(world) {
        world.violations.push(violation);
    }
    if let Err(stop) = &result
        && !top_level
    {
        sim.event("writer", Glyph::Recover, || {
            (format!("{owner} ends: {stop}"), String::new())
        });
    }
    (number, owner, result)
}

/// Runs writer processes one after another until one finishes or holds, at most
/// `processes` of them; the last two run with every fault healed. Each process's end is
/// checked against the checkpoint invariant.
fn run_processes(sim: &mut Sim, world: &mut World, processes: u32) -> Ending {
    // A hold must survive a restart: after the first one, the supervisor starts one more
    // process, which must hold again.
    let mut held: Option<String> = None;
    for attempt in 1..=processes {
        if attempt + 1 >= processes {
            sim.heal();
            world.api.drain(sim);
        }
        let (number, owner, result) = run_one_process(sim, world, true);
        if let Some(before) = world.stale_snapshot.take()
            && number == 1
        {
            let stale_end = match &result {
                Ok(()) => "it finished".to_string(),
                Err(stop) => stop.to_string(),
            };
            sim.note("writer", || format!("{owner} (stale) ends: {stale_end}"));
            let after = snapshot(world);
            if before != after {
                world.violations.push(Violation::new(
                    "a stale owner changes nothing",
                    &[
                        format!("Let {owner} be the first owner, paused while a new owner took the lease (a higher epoch)."),
                        "Then, after it woke up, the journal or the checkpoint differed from what it found.".into(),
                        format!("Before: {before}"),
                        format!("After:  {after}"),
                        "Contradiction: every transition must be fenced by the owner epoch; an older epoch is refused.".into(),
                    ],
                ));
            }
            // The stale process's end is not the run's: later owners carry on.
            continue;
        }
        match result {
            Ok(()) => {
                if let Some(reason) = held {
                    world.violations.push(Violation::new(
                        "a hold survives a restart",
                        &[
                            format!("Let a writer hold for reconciliation: {reason}."),
                            format!("Then the supervisor restarted it, and {owner} went on and finished the partition."),
                            "Contradiction: a hold is a decision for a human. Record it in the journal, and have every later process stop at it.".into(),
                        ],
                    ));
                }
                return Ending::Done;
            }
            Err(Stop::Hold(reason)) => {
                sim.note("writer", || format!("{owner} holds: {reason}"));
                if held.is_some() {
                    return Ending::Held(reason);
                }
                held = Some(reason);
            }
            Err(stop) => {
                sim.event("writer", Glyph::Recover, || {
                    (
                        format!("{owner} ends: {stop}"),
                        "its memory is gone; journal.db remains".into(),
                    )
                });
            }
        }
    }
    Ending::Unfinished
}

/// The checkpoint is never ahead of confirmed data: every position before it is in the
/// table or quarantined.
fn checkpoint_violation(world: &World) -> Option<Violation> {
    let journal = &world.keeper;
    let next = checkpoint(journal);
    let in_table = world.table_positions();
    let quarantine = quarantined(journal);
    let missing =
        (SOURCE_FIRST..next).find(|p| !in_table.contains(p) && !quarantine.contains(p))?;
    Some(Violation::new(
        "the checkpoint is never ahead of confirmed data",
        &[
            format!("Let the source checkpoint of {PARTITION} be {next}: a restart would resume there."),
            format!("Then position {missing} is below it, but it is neither in the table nor quarantined."),
            "Contradiction: after a restart the source would never deliver it again: it is lost. Advance the checkpoint only after the batch is confirmed.".into(),
        ],
    ))
}

/// The invariants at the end of a schedule.
fn final_violation(world: &World, ending: &Ending, expect_done: bool) -> Option<Violation> {
    let journal = &world.keeper;
    let in_table = world.table_positions();
    let quarantine = quarantined(journal);
    for position in SOURCE_FIRST..SOURCE_END {
        let copies = in_table.iter().filter(|p| **p == position).count();
        if copies > 1 {
            let streams: Vec<String> = world
                .api
                .read_table(TABLE)
                .iter()
                .filter(|r| r.row.source == format!("{PARTITION}:{position}"))
                .map(|r| format!("{}@{}", short(&r.write_stream), r.offset.unwrap_or(0)))
                .collect();
            return Some(Violation::new(
                "no row is duplicated",
                &[
                    format!("Let {PARTITION}:{position} be one source record."),
                    format!("Then the table holds it {copies} times: {}.", streams.join(", ")),
                    "Contradiction: one record, one row. A retry must reuse the journaled stream and offset; a new stream, or a new offset for the same batch, is a new write.".into(),
                ],
            ));
        }
        if expect_done && copies == 0 && !quarantine.contains(&position) {
            return Some(Violation::new(
                "no row is lost",
                &[
                    format!("Let {PARTITION}:{position} be one source record."),
                    format!("Then, after every fault healed and the writers finished ({ending:?}), it is neither in the table nor quarantined."),
                    "Contradiction: every record must arrive, or be set aside with its row error as evidence.".into(),
                ],
            ));
        }
    }
    if expect_done && (*ending != Ending::Done || checkpoint(journal) != SOURCE_END) {
        return Some(Violation::new(
            "the writer finishes once faults stop",
            &[
                "Let the faults stop (the last processes run healed).".to_string(),
                format!(
                    "Then the writers ended with {ending:?} and the checkpoint at {}, not {SOURCE_END}.",
                    checkpoint(journal)
                ),
                "Contradiction: with no faults left, recovery must resolve every record and advance the checkpoint.".into(),
            ],
        ));
    }
    None
}

/// Fates every graded `AppendRows` may meet.
pub const APPEND_FATES: &[Fate] = &[
    Fate::Ok,
    Fate::AppliedResponseLost,
    Fate::NotApplied,
    Fate::AppliedLater,
];

/// The result of one schedule, for tests that look at more than the verdict.
pub struct Outcome {
    pub ending: Ending,
    pub records: Vec<Record>,
    pub checkpoint: i64,
    pub quarantined: Vec<i64>,
    /// (stream, offset, source position) of every row of the writer in the table.
    pub table: Vec<(String, i64, i64)>,
    /// How many application-created streams hold at least one of the writer's rows.
    pub streams_with_rows: usize,
    pub violations: Vec<Violation>,
}

/// Runs one schedule of the ledger in `setup` and returns everything it left.
pub fn run_ledger(sim: &mut Sim, setup: Setup) -> Outcome {
    let faults = Faults {
        append: setup.append_fates,
        ..Faults::NONE
    };
    let mut world = World::create(setup, faults);
    let ending = run_processes(sim, &mut world, 5);
    world.api.drain(sim);
    let expect_done = setup.foreign_rows == 0;
    let mut violations = std::mem::take(&mut world.violations);
    violations.extend(final_violation(&world, &ending, expect_done));
    let journal = &world.keeper;
    let table: Vec<(String, i64, i64)> = world
        .api
        .read_table(TABLE)
        .iter()
        .filter(|r| !r.row.batch.starts_with("foreign"))
        .map(|r| {
            (
                short(&r.write_stream).to_string(),
                r.offset.unwrap_or(0) as i64,
                position_of(&r.row),
            )
        })
        .collect();
    let mut streams: Vec<&String> = table.iter().map(|(s, _, _)| s).collect();
    streams.dedup();
    Outcome {
        ending,
        records: records(journal),
        checkpoint: checkpoint(journal),
        quarantined: quarantined(journal),
        streams_with_rows: streams.len(),
        table,
        violations,
    }
}

/// One graded schedule: the verdict of [`run_ledger`].
pub fn ledger_scenario(sim: &mut Sim, setup: Setup) -> Verdict {
    match run_ledger(sim, setup).violations.into_iter().next() {
        Some(violation) => Err(violation),
        None => Ok(()),
    }
}

fn scope(scenario: &'static str, max_faults: usize) -> Scope {
    Scope {
        lab: "08",
        scenario,
        max_faults,
    }
}

/// Explores every schedule of the ledger with up to `max_faults` faults.
pub fn explore_ledger(max_faults: usize) -> Exploration {
    fault::explore(scope("ledger", max_faults), |sim| {
        ledger_scenario(sim, Setup::LEDGER)
    })
}

/// A first owner that may pause and wake up after a takeover; appends may lose their
/// response (the other fates are explored by the ledger scenario).
pub const STALE_OWNER: Setup = Setup {
    stale_owner: true,
    append_fates: &[Fate::Ok, Fate::AppliedResponseLost],
    ..Setup::LEDGER
};

/// The same, with a first owner that may pause and wake up after a takeover.
pub fn explore_stale_owner(max_faults: usize) -> Exploration {
    let setup = STALE_OWNER;
    fault::explore(scope("stale-owner", max_faults), move |sim| {
        ledger_scenario(sim, setup)
    })
}

/// The same, with position 1004 carrying a field the table schema does not have.
pub fn explore_schema_rejection(max_faults: usize) -> Exploration {
    let setup = Setup {
        bad_row: Some(1004),
        ..Setup::LEDGER
    };
    fault::explore(scope("schema", max_faults), move |sim| {
        ledger_scenario(sim, setup)
    })
}

/// Every one-fault schedule of the ledger and what it broke: the crash-point matrix.
pub fn crash_matrix() -> CrashMatrix {
    let setup = Setup {
        stale_owner: true,
        ..Setup::LEDGER
    };
    let all = fault::explore_all(scope("stale-owner", 1), move |sim| {
        ledger_scenario(sim, setup)
    });
    CrashMatrix::from_exploration(&all)
}

fn replay_ledger(token: &Token) -> Replay {
    fault::replay(token, |sim| ledger_scenario(sim, Setup::LEDGER))
}

fn replay_stale_owner(token: &Token) -> Replay {
    fault::replay(token, |sim| ledger_scenario(sim, STALE_OWNER))
}

fn replay_schema(token: &Token) -> Replay {
    let setup = Setup {
        bad_row: Some(1004),
        ..Setup::LEDGER
    };
    fault::replay(token, move |sim| ledger_scenario(sim, setup))
}

/// The scenarios `cargo labs replay 08 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("ledger", replay_ledger),
    ("stale-owner", replay_stale_owner),
    ("schema", replay_schema),
];

/// The first failure of the ledger exploration with the learner's code, as the chapter
/// shows it (generated, so the book cannot drift from what `cargo labs check 08` prints).
fn first_ledger_failure() -> String {
    match explore_ledger(2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the ledger scenario passes\n".to_string(),
    }
}

/// The figures of chapter 8.
pub fn figures() -> Vec<(&'static str, String)> {
    let journal = Sequence::new(
        "Journal protocol: a lost response, a crash, a proven retry",
        &["source P7", "journal.db", "writer", "Storage Write API"],
    )
    .call(
        "writer",
        "journal.db",
        "lease: owner_epoch 1 → 2 (compare-and-swap)",
    )
    .call("writer", "Storage Write API", "CreateWriteStream COMMITTED")
    .reply("Storage Write API", "writer", "stream S")
    .call("writer", "journal.db", "stream P7 → S (epoch 2)")
    .call("writer", "source P7", "read 1000–1002")
    .call(
        "writer",
        "journal.db",
        "A: S@0, 3 rows, H(A), PREPARED (epoch 2)",
    )
    .call("writer", "journal.db", "A: PREPARED → SENT (epoch 2)")
    .call(
        "writer",
        "Storage Write API",
        "AppendRows S offset 0, rows of A",
    )
    .note("Storage Write API", "appends rows 0–2")
    .lost("Storage Write API", "writer", "OK offset 0")
    .crash("writer", "dies waiting: A is SENT, outcome unknown")
    .divider("a new process: read durable state before any network state")
    .call("writer", "journal.db", "lease: owner_epoch 2 → 3")
    .reply("journal.db", "writer", "stream S; A SENT at S@0, H(A)")
    .call(
        "writer",
        "source P7",
        "re-read 1000–1002; fingerprint = H(A)?",
    )
    .call(
        "writer",
        "Storage Write API",
        "AppendRows S offset 0, the same rows",
    )
    .reply("Storage Write API", "writer", "ALREADY_EXISTS")
    .note(
        "writer",
        "journal proves: same stream, offset, H(A), was sent",
    )
    .call("writer", "journal.db", "A: SENT → CONFIRMED (epoch 3)")
    .call("writer", "journal.db", "checkpoint → 1003 (epoch 3)")
    .call(
        "writer",
        "journal.db",
        "B: S@3, 2 rows, H(B), PREPARED → SENT",
    )
    .call(
        "writer",
        "Storage Write API",
        "AppendRows S offset 3, rows of B",
    )
    .reply("Storage Write API", "writer", "OK offset 3")
    .call(
        "writer",
        "journal.db",
        "B: CONFIRMED; checkpoint → 1005 (epoch 3)",
    );
    let stale = Sequence::new(
        "Owner fencing: a stale writer wakes up after a takeover",
        &["writer-1 (epoch 1)", "journal.db", "writer-2 (epoch 2)"],
    )
    .call("writer-1 (epoch 1)", "journal.db", "A PREPARED (epoch 1)")
    .note("writer-1 (epoch 1)", "pauses (GC, partition, VM freeze)")
    .call("writer-2 (epoch 2)", "journal.db", "lease: epoch 1 → 2")
    .call(
        "writer-2 (epoch 2)",
        "journal.db",
        "recovers A, writes B, checkpoint 1005",
    )
    .note("writer-1 (epoch 1)", "wakes up with A in memory")
    .call(
        "writer-1 (epoch 1)",
        "journal.db",
        "A: PREPARED → SENT (epoch 1)?",
    )
    .reply(
        "journal.db",
        "writer-1 (epoch 1)",
        "refused: lease epoch is 2",
    )
    .note("writer-1 (epoch 1)", "stops: no append, no checkpoint");
    vec![
        ("08-journal-protocol.svg", journal.to_svg()),
        ("08-stale-owner.svg", stale.to_svg()),
        ("08-first-failure.txt", first_ledger_failure()),
        ("08-crash-matrix.txt", crash_matrix().render()),
    ]
}
