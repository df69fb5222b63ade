//! The observe phase: pending streams on the simulated Storage Write API. Two workers
//! write their ranges of batch D1 into pending streams; a coordinator finalizes and
//! commits them. Every verdict is computed from the service's answers and from a query of
//! the table; nothing here holds an answer: `cargo labs run` compares what the run
//! observed with your sealed predictions.

mod failures;
mod limits;
mod visibility;

use labkit::fault::{Fate, Sim};
use labkit::{Observation, Report};
use sim_writeapi::{
    AppendRowsRequest, BatchCommitWriteStreamsResponse, Faults, Row, Status, StreamType, WriteApi,
    short,
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

    /// A service whose calls meet `faults`, the fates picked in order by `path` (one entry
    /// per AppendRows, FinalizeWriteStream and BatchCommitWriteStreams).
    fn with_faults(faults: Faults, path: &[usize]) -> Self {
        Batch {
            api: WriteApi::new(&[TABLE]).with_faults(faults),
            sim: Sim::replaying(path),
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

    /// A worker whose one append meets `fate`: its stream and what the append answered.
    fn worker_meeting(
        &mut self,
        fate: Fate,
        worker: &str,
        first: u64,
        end: u64,
    ) -> (String, Result<(), Status>) {
        let stream = self
            .api
            .create_write_stream(&mut self.sim, TABLE, StreamType::Pending)
            .expect("create")
            .name;
        self.api.script_next_append(fate);
        let answer = self.append(&stream, 0, rows(worker, first, end));
        (stream, answer)
    }

    /// Both workers' streams, appended (not finalized): W1 0–1, W2 2–4.
    fn both_workers(&mut self) -> [String; 2] {
        [self.worker("W1", 0, 2), self.worker("W2", 2, 5)]
    }

    // ANCHOR: coordinator
    /// The coordinator as listed: finalize every stream of the group, then commit it. A
    /// commit without an answer is sent again; one answered with stream errors is taken
    /// for a failed batch, and the workers write their ranges again into new streams.
    fn coordinate(&mut self, mut group: Vec<String>) {
        loop {
            for stream in &group {
                let _row_count = self.finalize(stream);
            }
            match self.commit(&group) {
                Ok(answer) if answer.stream_errors.is_empty() => return,
                Ok(_stream_errors) => group = self.both_workers().to_vec(),
                Err(_no_answer) => {}
            }
        }
    }
    // ANCHOR_END: coordinator

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

    /// How many times source position `p` of D1 appears in the table.
    fn copies(&self, p: u64) -> usize {
        let source = format!("D1:{p}");
        let rows = self.api.read_table(TABLE);
        rows.iter().filter(|r| r.row.source == source).count()
    }

    /// Whether any position of `first..end` appears in the table.
    fn shows_any(&self, first: u64, end: u64) -> bool {
        (first..end).any(|p| self.copies(p) > 0)
    }

    /// Whether every position of `first..end` appears in the table.
    fn shows(&self, first: u64, end: u64) -> bool {
        (first..end).all(|p| self.copies(p) > 0)
    }

    /// The most times one source position appears in the table.
    fn most_copies(&self) -> usize {
        (0..5).map(|p| self.copies(p)).max().unwrap_or(0)
    }

    /// The streams whose rows the table shows (`s1`, `s2`, …), in creation order.
    fn visible_streams(&self) -> Vec<String> {
        let rows = self.api.read_table(TABLE);
        (self.api.stream_names().iter())
            .filter(|name| rows.iter().any(|r| &r.write_stream == *name))
            .map(|name| short(name).to_string())
            .collect()
    }

    /// `GetWriteStream`'s commit_time of `stream`.
    fn commit_time(&self, stream: &str) -> Option<u64> {
        self.api.get_write_stream(stream).expect("get").commit_time
    }
}

/// A commit's stream errors as the run shows them: `none`, or each stream with its code.
fn error_names(response: &BatchCommitWriteStreamsResponse) -> String {
    let names: Vec<String> = (response.stream_errors.iter())
        .map(|e| format!("{} {}", short(&e.entity), e.code.name()))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// What a request answered, as the run shows it: `OK`, or the error's code.
fn answered<T>(result: &Result<T, Status>) -> &'static str {
    result.as_ref().map_or_else(|e| e.code.name(), |_| "OK")
}

/// What FinalizeWriteStream answered: its row_count, or the error's code.
fn finalized(result: &Result<u64, Status>) -> String {
    match result {
        Ok(rows) => format!("row_count {rows}"),
        Err(e) => e.code.name().into(),
    }
}

/// A stream's commit_time as GetWriteStream shows it: unset until the stream commits.
fn commit_time_text(time: Option<u64>) -> String {
    time.map_or_else(|| "unset".into(), |t| t.to_string())
}

/// Runs the observe phase: one function per section of the run.
pub fn run() -> Report {
    let mut obs = Observation::new("pending-streams");
    let mut summary = serde_json::Map::new();
    visibility::before_the_commit(&mut obs, &mut summary);
    visibility::one_unfinalized_stream(&mut summary);
    failures::an_append_lost_before_the_service(&mut summary);
    failures::the_listed_coordinator(&mut obs);
    failures::a_lost_commit_request(&mut obs, &mut summary);
    failures::lost_append_responses(&mut obs, &mut summary);
    limits::the_night_schedule(&mut obs, &mut summary);
    obs.finish(None, serde_json::Value::Object(summary))
}
