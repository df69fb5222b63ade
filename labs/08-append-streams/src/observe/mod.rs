//! The observe phase: what the simulated Storage Write API does with retries, offsets,
//! delayed and lost requests, a new stream, two writers and corrupted rows. Every
//! verdict is computed from what the service just answered and what a query of the
//! table then shows; nothing here holds an answer: `cargo labs run` compares what the
//! run observed with your sealed predictions.

mod decisions;
mod identity;
mod late;
mod retries;

use labkit::fault::{Fate, Sim};
use labkit::{Observation, Report};
use sim_writeapi::{
    AppendError, AppendResult, AppendRowsRequest, Faults, Row, StreamType, WriteApi,
};

const TABLE: &str = "ledger";

/// The rows of a batch of source partition P7: `first..end`, tagged with the batch id.
fn batch(id: &str, first: u64, end: u64) -> Vec<Row> {
    (first..end)
        .map(|p| Row::new(format!("P7:{p}"), id))
        .collect()
}

/// A small client: one service, and a `Sim` that is fault-free unless a section gives
/// it the fates of the appends it sends.
struct Client {
    api: WriteApi,
    sim: Sim,
}

impl Client {
    fn new() -> Self {
        Client {
            api: WriteApi::new(&[TABLE]),
            sim: Sim::fault_free(),
        }
    }

    /// A client whose appends meet `fates`, one after another (then `Ok`).
    fn with_append_fates(fates: &[Fate]) -> Self {
        let allowed = &[
            Fate::Ok,
            Fate::AppliedResponseLost,
            Fate::NotApplied,
            Fate::AppliedLater,
        ];
        let path: Vec<usize> = (fates.iter())
            .map(|f| {
                allowed
                    .iter()
                    .position(|a| a == f)
                    .expect("a modelled fate")
            })
            .collect();
        Client {
            api: WriteApi::new(&[TABLE]).with_faults(Faults {
                append: allowed,
                ..Faults::NONE
            }),
            sim: Sim::replaying(&path),
        }
    }

    fn create(&mut self) -> String {
        self.api
            .create_write_stream(&mut self.sim, TABLE, StreamType::Committed)
            .expect("create stream")
            .name
    }

    // ANCHOR: append
    /// One `AppendRows` on a fresh connection, as a simple client does it.
    fn append(
        &mut self,
        stream: &str,
        offset: Option<u64>,
        rows: Vec<Row>,
    ) -> Result<AppendResult, AppendError> {
        let connection = self.api.connect(&mut self.sim, stream).expect("connect");
        let request = AppendRowsRequest { offset, rows };
        let response = self.api.append_rows(&mut self.sim, &connection, request);
        self.api.disconnect(&connection);
        response
    }
    // ANCHOR_END: append

    /// Several `AppendRows` requests sent on one connection before any answer is read.
    fn append_pipelined(
        &mut self,
        stream: &str,
        requests: Vec<(Option<u64>, Vec<Row>)>,
    ) -> Vec<Result<AppendResult, AppendError>> {
        let connection = self.api.connect(&mut self.sim, stream).expect("connect");
        let requests = (requests.into_iter())
            .map(|(offset, rows)| AppendRowsRequest { offset, rows })
            .collect();
        let answers = (self.api).append_rows_pipelined(&mut self.sim, &connection, requests);
        self.api.disconnect(&connection);
        answers
    }

    /// A copy of this service with a fault-free `Sim`: a what-if on the same stream.
    fn copy(&self) -> Client {
        Client {
            api: self.api.clone(),
            sim: Sim::fault_free(),
        }
    }

    /// The source positions a query of the table sees, in table order.
    fn positions(&self) -> Vec<String> {
        (self.api.read_table(TABLE).into_iter())
            .map(|r| r.row.source)
            .collect()
    }

    /// The most copies of one source record in the table.
    fn most_copies(&self) -> usize {
        let positions = self.positions();
        (positions.iter())
            .map(|p| positions.iter().filter(|q| *q == p).count())
            .max()
            .unwrap_or(0)
    }

    /// How many copies of `source` the table holds.
    fn copies_of(&self, source: &str) -> usize {
        self.positions().iter().filter(|p| *p == source).count()
    }
}

/// The answer's name, for evidence: `OK at Some(3)`, `ALREADY_EXISTS`, …
fn code(result: &Result<AppendResult, AppendError>) -> String {
    match result {
        Ok(r) => format!("OK at {:?}", r.offset),
        Err(e) => e.status.code.name().to_string(),
    }
}

/// Runs the observe phase: one function per section of the run.
pub fn run() -> Report {
    let mut obs = Observation::new("append-streams");
    let mut summary = serde_json::Map::new();
    retries::the_default_stream(&mut obs, &mut summary);
    late::a_batch_in_place_of_a_delayed_one(&mut obs, &mut summary);
    retries::a_retry_at_the_same_offset(&mut summary);
    retries::offsets_count_rows(&mut summary);
    late::a_delayed_request(&mut summary);
    late::a_delayed_corrupted_request(&mut obs);
    late::a_rebuilt_batch(&mut obs);
    late::skipping_ahead(&mut summary);
    late::a_new_stream_after_a_delay(&mut summary);
    late::a_fence_after_a_delay(&mut obs, &mut summary);
    identity::a_new_stream_for_b(&mut summary);
    identity::two_writers_taking_turns(&mut obs);
    identity::a_corrupted_row(&mut obs, &mut summary);
    identity::hunting_for_an_offset(&mut summary);
    decisions::four_restart_choices(&mut summary);
    decisions::already_exists_without_proof(&mut summary);
    decisions::proceed_hold_or_reconcile(&mut summary);
    obs.finish(None, serde_json::Value::Object(summary))
}
