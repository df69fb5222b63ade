//! A writer process: its connection to `journal.db`, the service, and the points where
//! the harness may crash it or, in a stale-owner scenario, pause it while a new owner
//! takes over.

use super::{Journal, Source, TABLE, World};
use labkit::fault::{Crash, Fate, Glyph, Sim};
use sim_writeapi::{AppendError, AppendResult, AppendRowsRequest, Row, StreamType};
use sqlite_pool::Db;
use std::rc::Rc;

/// How a new owner takes over while a stale one pauses: it runs writer processes, then
/// records in `World::stale_snapshot` what the stale owner must leave unchanged.
pub type Takeover = Rc<dyn Fn(&mut Sim, &mut World)>;

/// One writer process: its own connection to `journal.db` (closed at a crash) and the
/// service. The owner name is the process's; the epoch is what the lease says.
pub struct Writer<'a> {
    sim: &'a mut Sim,
    world: &'a mut World,
    journal: Rc<Db>,
    owner: String,
    number: u32,
    /// Only the first process of a stale-owner scenario may pause, and only once.
    may_pause: bool,
}

impl<'a> Writer<'a> {
    /// A new process, `writer-N`: it opens `journal.db` and remembers nothing else.
    pub fn start(sim: &'a mut Sim, world: &'a mut World, may_pause: bool) -> Self {
        world.processes += 1;
        let number = world.processes;
        let journal = Rc::clone(&world.journal);
        if !journal.is_autocommit() {
            // The previous process died inside a transaction: it never committed.
            journal.execute_batch("ROLLBACK").expect("roll back");
        }
        Writer {
            sim,
            world,
            journal,
            owner: format!("writer-{number}"),
            number,
            may_pause,
        }
    }

    /// This process's connection to `journal.db`.
    pub fn journal(&mut self) -> Journal<'_> {
        let points = Points {
            sim: self.sim,
            world: self.world,
            owner: &self.owner,
            may_pause: self.may_pause,
        };
        Journal::new(&self.journal, points)
    }

    /// This process's name (`writer-1`, `writer-2`, …).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Which process this is, counting from 1.
    pub fn number(&self) -> u32 {
        self.number
    }

    pub fn source(&self) -> &Source {
        &self.world.source
    }

    /// Writes a line to the timeline (only recorded when a schedule is replayed).
    pub fn note(&mut self, describe: impl FnOnce() -> String) {
        self.sim.note("writer", describe);
    }

    fn points(&mut self) -> Points<'_> {
        Points {
            sim: self.sim,
            world: self.world,
            owner: &self.owner,
            may_pause: self.may_pause,
        }
    }

    // ANCHOR: calls
    /// `CreateWriteStream` of type COMMITTED on the `ledger` table.
    pub fn create_stream(&mut self) -> Result<String, Crash> {
        let stream = (self.world.api)
            .create_write_stream(self.sim, TABLE, StreamType::Committed)
            .expect("CreateWriteStream on an existing table");
        self.foreign_client_writes_first(&stream.name);
        self.points().after_write("writer:after-create-stream")?;
        Ok(stream.name)
    }

    /// `AppendRows` of `rows` at `offset` on `write_stream`, on a connection opened for
    /// it. The outer `Err(Crash)` is a process that died while waiting for the response;
    /// the inner result is the response (DEADLINE_EXCEEDED when it was lost, whatever
    /// happened to the rows).
    pub fn append(
        &mut self,
        write_stream: &str,
        offset: i64,
        rows: Vec<Row>,
    ) -> Result<Result<AppendResult, AppendError>, Crash> {
        let setup = self.world.setup;
        let forced = setup.lose_first_response_and_crash && !self.world.first_append_done;
        self.world.first_append_done = true;
        if forced {
            self.world.api.script_next_append(Fate::AppliedResponseLost);
        }
        let response = self.send(write_stream, Some(offset as u64), rows);
        if forced {
            let crash = (
                "crash while waiting for the AppendRows response".into(),
                "".into(),
            );
            self.sim.event("writer", Glyph::Crash, || crash);
            return Err(Crash {
                point: "writer:waiting-for-append",
            });
        }
        self.points().after_write("writer:after-append")?;
        Ok(response)
    }
    // ANCHOR_END: calls

    /// One `AppendRows` on a connection that is opened for it and closed afterwards.
    fn send(
        &mut self,
        write_stream: &str,
        offset: Option<u64>,
        rows: Vec<Row>,
    ) -> Result<AppendResult, AppendError> {
        let api = &mut self.world.api;
        let connection = api.connect(self.sim, write_stream).map_err(|status| {
            let row_errors = Vec::new();
            AppendError { status, row_errors }
        })?;
        let response = api.append_rows(self.sim, &connection, AppendRowsRequest { offset, rows });
        api.disconnect(&connection);
        response
    }

    /// The drill: a misconfigured client appends its own rows to the first stream the
    /// writer creates.
    fn foreign_client_writes_first(&mut self, write_stream: &str) {
        if self.world.foreign_pending == 0 {
            return;
        }
        let rows = (0..self.world.foreign_pending)
            .map(|i| Row::new(format!("X:{i}"), "foreign"))
            .collect();
        self.world.foreign_pending = 0;
        let _ = self.send(write_stream, None, rows);
        let what = "a misconfigured client appended its own rows at offset 0";
        self.sim
            .event("other", Glyph::Fault, || (String::new(), what.into()));
    }
}

/// Where the harness may end a process or pause a stale owner: right after a durable
/// step, and (pause only) right after a read.
pub(super) struct Points<'p> {
    sim: &'p mut Sim,
    world: &'p mut World,
    owner: &'p str,
    may_pause: bool,
}

const CONTINUE: &str = "continue";
const CRASH: &str = "crash";
const PAUSE: &str = "pause while a new owner takes over";

impl Points<'_> {
    /// After a durable step: the process may crash here, or (a stale owner) pause.
    pub(super) fn after_write(&mut self, site: &'static str) -> Result<(), Crash> {
        let options: &[&'static str] = if self.may_pause && !self.world.paused {
            &[CONTINUE, CRASH, PAUSE]
        } else {
            &[CONTINUE, CRASH]
        };
        match options[self.sim.choose(site, options)] {
            CRASH => {
                let crash = (
                    format!("crash at {site}"),
                    "memory and connections lost".into(),
                );
                self.sim.event("writer", Glyph::Crash, || crash);
                Err(Crash { point: site })
            }
            PAUSE => {
                self.pause(site);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// After a read outside a transaction: a stale owner may pause here.
    pub(super) fn after_read(&mut self, site: &'static str) {
        if self.may_pause && !self.world.paused {
            let options = &[CONTINUE, PAUSE];
            if self.sim.choose(site, options) == 1 {
                self.pause(site);
            }
        }
    }

    /// The lease lapses; a new owner takes over and works; the stale owner wakes up.
    fn pause(&mut self, site: &'static str) {
        self.world.paused = true;
        let owner = self.owner;
        self.sim.event("writer", Glyph::Fault, || {
            let truth = "its lease lapses; a new owner takes over".into();
            (format!("{owner} pauses at {site}"), truth)
        });
        let takeover = Rc::clone(&self.world.takeover);
        takeover(self.sim, self.world);
        self.sim.event("writer", Glyph::Fault, || {
            let truth = "stale owner: everything it does now must be refused".into();
            (format!("{owner} wakes up after {site}"), truth)
        });
    }
}
