//! The observe phase: pending streams on the simulated Storage Write API. Two workers
//! write their ranges of batch D1 into pending streams; a coordinator finalizes and
//! commits them. Every verdict is computed from the service's answers and from a query of
//! the table; the answer keys live in `lab.toml`.

mod failures;
mod limits;
mod visibility;

use labkit::fault::{Fate, Sim};
use labkit::{Observation, Report};
use sim_writeapi::{
    AppendRowsRequest, BatchCommitWriteStreamsResponse, Row, Status, StreamType, WriteApi,
};

const TABLE: &str = "daily";

/// The rows of `worker`'s range `first..end` of batch D1.
fn rows(worker: &str, first: u64, end: u64) -> Vec<Row> {
    (first..end)
        .map(|p| Row::new(format!("D1:{p}"), worker))
        .collect()
}

/// A service and its fault-free `Sim`; a fault is scripted where a section needs one.
struct Batch {
    api: WriteApi,
    sim: Sim,
}

impl Batch {
    fn new() -> Self {
        Batch {
            api: WriteApi::new(&[TABLE]),
            sim: Sim::fault_free(),
        }
    }

    /// A service whose next `BatchCommitWriteStreams` meets `fate`.
    fn with_next_commit(fate: Fate) -> Self {
        let mut batch = Batch::new();
        batch.api.script_next_commit(fate);
        batch
    }

    // ANCHOR: worker
    /// A worker: a pending stream with its range appended at offset 0.
    fn worker(&mut self, worker: &str, first: u64, end: u64) -> String {
        let stream = self
            .api
            .create_write_stream(&mut self.sim, TABLE, StreamType::Pending)
            .expect("create")
            .name;
        self.append(&stream, 0, rows(worker, first, end))
            .expect("append");
        stream
    }
    // ANCHOR_END: worker

    /// One `AppendRows` at `offset`, on a connection opened for it.
    fn append(&mut self, stream: &str, offset: u64, rows: Vec<Row>) -> Result<(), Status> {
        let connection = self.api.connect(&mut self.sim, stream)?;
        let request = AppendRowsRequest {
            offset: Some(offset),
            rows,
        };
        let response = self.api.append_rows(&mut self.sim, &connection, request);
        self.api.disconnect(&connection);
        response.map(|_| ()).map_err(|e| e.status)
    }

    /// Both workers' streams, appended (not finalized): W1 0–1, W2 2–4.
    fn both_workers(&mut self) -> [String; 2] {
        [self.worker("W1", 0, 2), self.worker("W2", 2, 5)]
    }

    fn finalize(&mut self, stream: &str) -> Result<u64, Status> {
        self.api.finalize_write_stream(&mut self.sim, stream)
    }

    fn commit(&mut self, streams: &[String]) -> Result<BatchCommitWriteStreamsResponse, Status> {
        self.api
            .batch_commit_write_streams(&mut self.sim, TABLE, streams)
    }

    /// How many rows a query of the table returns.
    fn visible(&self) -> usize {
        self.api.read_table(TABLE).len()
    }

    /// The most times one source position appears in the table.
    fn most_copies(&self) -> usize {
        let sources: Vec<String> = self
            .api
            .read_table(TABLE)
            .into_iter()
            .map(|r| r.row.source)
            .collect();
        sources
            .iter()
            .map(|s| sources.iter().filter(|t| *t == s).count())
            .max()
            .unwrap_or(0)
    }
}

/// The names of a response's stream errors, for evidence.
fn error_names(response: &BatchCommitWriteStreamsResponse) -> Vec<&'static str> {
    response
        .stream_errors
        .iter()
        .map(|e| e.code.name())
        .collect()
}

/// Runs the observe phase: one function per section of the run.
pub fn run() -> Report {
    let mut obs = Observation::new("pending-streams");
    let mut summary = serde_json::Map::new();
    visibility::invisible_until_the_commit(&mut obs, &mut summary);
    visibility::one_unfinalized_stream(&mut obs, &mut summary);
    failures::a_lost_commit_response(&mut obs);
    failures::replacement_streams(&mut obs);
    failures::a_commit_lost_before_it_was_applied(&mut obs);
    limits::the_time_limits(&mut obs, &mut summary);
    obs.finish(None, serde_json::Value::Object(summary))
}
