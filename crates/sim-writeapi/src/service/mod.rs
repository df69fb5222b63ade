//! The service ([`WriteApi`]): its state (tables, their streams and rows, the requests in
//! flight), the requests that land late, and what a query sees. The calls are in the
//! submodules, by concern: `streams` (creating, opening, finalizing a stream), `append`
//! (`AppendRows`) and `commit` (`BatchCommitWriteStreams`).

use crate::{
    AppendRowsRequest, DEFAULT_STREAM, Faults, Row, StreamType, TableRow, short, stream_name,
};
use labkit::fault::{Fate, Glyph, Sim};
use std::collections::BTreeMap;

mod append;
mod commit;
mod streams;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    Finalized,
    Committed,
}

#[derive(Clone, Debug)]
struct Stream {
    /// Creation order.
    seq: u64,
    table: String,
    stream_type: StreamType,
    state: State,
    create_time: u64,
    finalize_time: Option<u64>,
    commit_time: Option<u64>,
    rows: Vec<Row>,
    connection: Option<u64>,
}

/// A request that was accepted by the network but lands later.
#[derive(Clone, Debug)]
struct InFlight {
    write_stream: String,
    request: AppendRowsRequest,
}

/// The service: tables, their streams and the rows a query can see.
#[derive(Clone, Debug)]
pub struct WriteApi {
    pub faults: Faults,
    tables: Vec<String>,
    streams: BTreeMap<String, Stream>,
    /// Rows of the default streams, per table, in arrival order.
    default_rows: BTreeMap<String, Vec<Row>>,
    in_flight: Vec<InFlight>,
    /// A fate a scenario fixed for the next `AppendRows`, outside the explored choices.
    scripted: Option<Fate>,
    /// The same for the next `BatchCommitWriteStreams`.
    scripted_commit: Option<Fate>,
    next_stream: u64,
    next_connection: u64,
    default_connections: u64,
}

fn table_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("projects/p/datasets/d/tables/")?;
    rest.split('/').next()
}

fn is_default(name: &str) -> bool {
    name.ends_with(&format!("/streams/{DEFAULT_STREAM}"))
}

impl WriteApi {
    /// A service with the given tables and no faults.
    pub fn new(tables: &[&str]) -> Self {
        WriteApi {
            faults: Faults::NONE,
            tables: tables.iter().map(|t| t.to_string()).collect(),
            streams: BTreeMap::new(),
            default_rows: BTreeMap::new(),
            in_flight: Vec::new(),
            scripted: None,
            scripted_commit: None,
            next_stream: 1,
            next_connection: 1,
            default_connections: 0,
        }
    }

    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    /// Fixes the fate of the next `AppendRows` (a scripted fault, such as the seed's lost
    /// response at T4), without a choice of the fault core.
    pub fn script_next_append(&mut self, fate: Fate) {
        self.scripted = Some(fate);
    }

    /// Fixes the fate of the next `BatchCommitWriteStreams` (a scripted fault).
    pub fn script_next_commit(&mut self, fate: Fate) {
        self.scripted_commit = Some(fate);
    }

    /// Requests "applied later" land before the service handles anything else.
    fn settle(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let outcome = self.apply_append(&late.write_stream, &late.request);
            sim.event("writeapi", Glyph::Fault, || {
                (
                    String::new(),
                    format!(
                        "late AppendRows lands on {}: {}",
                        short(&late.write_stream),
                        match &outcome {
                            Ok(r) => format!("appended at offset {:?}", r.offset),
                            Err(e) => format!("refused {e}"),
                        }
                    ),
                )
            });
        }
    }

    /// A query of `table`: every visible row (committed streams and the default stream at
    /// once, pending streams after their batch commit), ordered by stream then offset.
    pub fn read_table(&self, table: &str) -> Vec<TableRow> {
        let mut rows = Vec::new();
        for (name, stream) in &self.streams {
            let visible = stream.table == table
                && match stream.stream_type {
                    StreamType::Committed => true,
                    _ => stream.state == State::Committed,
                };
            if visible {
                rows.extend(stream.rows.iter().enumerate().map(|(i, row)| TableRow {
                    write_stream: name.clone(),
                    offset: Some(i as u64),
                    row: row.clone(),
                }));
            }
        }
        if let Some(default_rows) = self.default_rows.get(table) {
            rows.extend(default_rows.iter().map(|row| TableRow {
                write_stream: stream_name(table, DEFAULT_STREAM),
                offset: None,
                row: row.clone(),
            }));
        }
        rows
    }

    /// How many rows a stream holds, visible or not (the simulator's truth, for checkers;
    /// the real API exposes this only through `FinalizeWriteStream`'s `row_count`).
    pub fn stream_rows(&self, name: &str) -> Vec<Row> {
        self.streams
            .get(name)
            .map(|s| s.rows.clone())
            .unwrap_or_default()
    }

    /// The names of every application-created stream, in creation order.
    pub fn stream_names(&self) -> Vec<String> {
        let mut streams: Vec<(&u64, &String)> = self
            .streams
            .iter()
            .map(|(name, s)| (&s.seq, name))
            .collect();
        streams.sort();
        streams.into_iter().map(|(_, n)| n.clone()).collect()
    }

    /// True while a request that will land later is in flight.
    pub fn has_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// Lets every in-flight request land (the end of a scenario).
    pub fn drain(&mut self, sim: &mut Sim) {
        self.settle(sim);
    }
}
