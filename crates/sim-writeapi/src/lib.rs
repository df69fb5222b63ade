//! A simulated append-stream service modelled on the BigQuery Storage Write API (gRPC),
//! in its vocabulary: write streams of type `COMMITTED` and `PENDING` plus the special
//! `_default` stream; `CreateWriteStream`, `AppendRows` with an optional row `offset`,
//! `GetWriteStream`, `FinalizeWriteStream`, `BatchCommitWriteStreams`; the gRPC codes
//! `ALREADY_EXISTS`, `OUT_OF_RANGE`, `INVALID_ARGUMENT`, … with a [`StorageErrorCode`]
//! beside them, and [`RowError`]s (row index and [`RowErrorCode`]) for corrupted rows.
//!
//! Sources (each modelled behaviour has a test in `tests/` that quotes its sentence):
//!
//! * the RPC definitions and their comments in `google/cloud/bigquery/storage/v1/storage.proto`
//!   and `stream.proto` (<https://github.com/googleapis/googleapis>), published as
//!   <https://cloud.google.com/bigquery/docs/reference/storage/rpc/google.cloud.bigquery.storage.v1>;
//! * <https://cloud.google.com/bigquery/docs/write-api> (stream types),
//!   <https://cloud.google.com/bigquery/docs/write-api-streaming> (default stream,
//!   committed type), <https://cloud.google.com/bigquery/docs/write-api-batch> (pending
//!   type, time limits), <https://cloud.google.com/bigquery/docs/write-api-best-practices>
//!   (one connection per created stream, offsets),
//!   <https://cloud.google.com/bigquery/quotas#write-api-limits> (quotas); the request size
//!   limit is from the RPC reference's AppendRowsRequest.
//!
//! # Simplifications (say them in the chapter too)
//!
//! * One project and dataset; tables are plain names. The service never crashes and its
//!   state lives in plain structs: it is the *remote* side, whose durability is the
//!   service's promise, not the lab's concern. The lab's own durable state is in SQLite.
//! * Rows are small records ([`Row`]) with a declared size in bytes. A row that carries a
//!   value its column cannot take (out of range, a required field left empty) is
//!   *corrupted*: the request fails with a [`RowError`] (`FIELDS_ERROR`) for it. A field
//!   the table schema does not have is a schema mismatch of the whole request
//!   (`SCHEMA_MISMATCH_EXTRA_FIELDS`, no row errors); the real API learns the writer's
//!   schema once per connection, the simulator from the request's rows.
//! * `AppendRows` is a bidirectional stream: [`WriteApi::append_rows_pipelined`] sends
//!   several requests before reading any answer. After a request fails with an error
//!   response, the requests behind it come back `ABORTED`, not applied. After a lost
//!   response the connection is gone, and the requests behind it fail as on a closed
//!   connection (`UNAVAILABLE`, not applied); a real stream may have delivered some.
//! * `BUFFERED` streams and `FlushRows` are not modelled (no lab needs them);
//!   `CreateWriteStream` refuses them with `INVALID_ARGUMENT`.
//! * Time is the fault core's logical clock, one tick per simulated second
//!   ([`HOUR`]). The 24-hour and 4-hour limits of pending streams are checked when a
//!   stream is committed; an expired stream is reported as garbage-collected
//!   (`INVALID_STREAM_STATE`, the proto's own example).
//! * A second connection to an application-created stream while one is open is refused
//!   with `FAILED_PRECONDITION`: the documentation says only one may be active but does
//!   not name the error. A connection breaks after an indefinite outcome and must be
//!   reopened, which the documentation describes for real clients.
//! * A stream from another table in a `BatchCommitWriteStreams` call is reported as
//!   `STREAM_NOT_FOUND` (the proto only says all streams must belong to `parent`).
//! * Faults: every `AppendRows`, `FinalizeWriteStream` and `BatchCommitWriteStreams` asks
//!   the [`Sim`] for its [`Fate`] among the fates the scenario enables ([`Faults`]). A lost
//!   response is `DEADLINE_EXCEEDED`; "applied later" lands at the start of the service's
//!   next call. A refused `AppendRows` ([`Fate::Rejected`]) is an `AppendRowsResponse`
//!   whose `error` is `INTERNAL`: rows not accepted, the connection stays usable.
//!   `CreateWriteStream` and `GetWriteStream` always answer.

use labkit::fault::{Fate, Glyph, Sim};
use std::collections::BTreeMap;
use std::fmt;

/// One simulated second per logical tick; an hour is this many ticks.
pub const HOUR: u64 = 3600;
/// "After the stream is finalized and before it is committed, the data can remain in the
/// buffer for up to 4 hours." (write-api-batch)
pub const FINALIZED_BUFFER_LIMIT: u64 = 4 * HOUR;
/// "Pending streams must be committed within 24 hours." (write-api-batch). The page does not
/// say from when; the simulator counts from `CreateWriteStream` (the lab's reading).
pub const PENDING_COMMIT_LIMIT: u64 = 24 * HOUR;
/// The AppendRows request size limit. The published RPC reference (AppendRowsRequest) says
/// "The size of a single AppendRowsRequest must be less than 20 MB in size"; older
/// revisions of storage.proto said 10 MB. The lab only needs "there is a hard ceiling".
pub const MAX_REQUEST_BYTES: u64 = 20 * 1000 * 1000;
/// The special stream every table has.
pub const DEFAULT_STREAM: &str = "_default";

/// gRPC status codes the service returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    InvalidArgument,
    NotFound,
    AlreadyExists,
    FailedPrecondition,
    OutOfRange,
    /// "Request processing is aborted because of prior failures." (storage.proto)
    Aborted,
    Internal,
    Unavailable,
    DeadlineExceeded,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Aborted => "ABORTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        }
    }
}

/// `StorageError.StorageErrorCode` from storage.proto (the codes the simulator uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StorageErrorCode {
    StreamAlreadyCommitted,
    StreamNotFound,
    InvalidStreamType,
    InvalidStreamState,
    StreamFinalized,
    /// "There is a schema mismatch and it is caused by user schema has extra field than
    /// bigquery schema." (storage.proto)
    SchemaMismatchExtraFields,
    OffsetAlreadyExists,
    OffsetOutOfRange,
}

impl StorageErrorCode {
    pub fn name(self) -> &'static str {
        match self {
            StorageErrorCode::StreamAlreadyCommitted => "STREAM_ALREADY_COMMITTED",
            StorageErrorCode::StreamNotFound => "STREAM_NOT_FOUND",
            StorageErrorCode::InvalidStreamType => "INVALID_STREAM_TYPE",
            StorageErrorCode::InvalidStreamState => "INVALID_STREAM_STATE",
            StorageErrorCode::StreamFinalized => "STREAM_FINALIZED",
            StorageErrorCode::SchemaMismatchExtraFields => "SCHEMA_MISMATCH_EXTRA_FIELDS",
            StorageErrorCode::OffsetAlreadyExists => "OFFSET_ALREADY_EXISTS",
            StorageErrorCode::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
        }
    }
}

/// An error status: the gRPC code, the storage error code when there is one, a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub storage: Option<StorageErrorCode>,
    pub message: String,
}

impl Status {
    fn new(code: Code, storage: Option<StorageErrorCode>, message: impl Into<String>) -> Self {
        Status {
            code,
            storage,
            message: message.into(),
        }
    }

    /// True when the caller cannot know whether the request was applied.
    pub fn is_indefinite(&self) -> bool {
        self.code == Code::DeadlineExceeded
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code.name())?;
        if let Some(storage) = self.storage {
            write!(f, " ({})", storage.name())?;
        }
        Ok(())
    }
}

/// `StorageError`: one entry of `BatchCommitWriteStreamsResponse.stream_errors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageError {
    pub code: StorageErrorCode,
    /// The stream's name.
    pub entity: String,
    pub error_message: String,
}

/// `RowError.RowErrorCode` from storage.proto.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RowErrorCode {
    /// "One or more fields in the row has errors."
    FieldsError,
}

impl RowErrorCode {
    pub fn name(self) -> &'static str {
        match self {
            RowErrorCode::FieldsError => "FIELDS_ERROR",
        }
    }
}

/// `RowError`: "row level error info in a request": the index of the malformed row in the
/// request, a structured reason and a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    pub index: usize,
    pub code: RowErrorCode,
    pub message: String,
}

/// One row. The lab tables keep source coordinates and the batch identity as ordinary
/// columns, so a reader can reconcile the table with the source.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// Source coordinate, e.g. `P7:1000`.
    pub source: String,
    /// The writer's batch identity, an ordinary column.
    pub batch: String,
    /// Serialized size.
    pub bytes: u64,
    /// A field the table schema does not have: the writer's schema does not match the
    /// table's, and the whole request is refused (`SCHEMA_MISMATCH_EXTRA_FIELDS`).
    pub unknown_field: Option<String>,
    /// A value its column cannot take (out of range, a required field left empty): the
    /// row is corrupted and gets a `FIELDS_ERROR` row error.
    pub invalid_value: Option<String>,
}

impl Row {
    pub fn new(source: impl Into<String>, batch: impl Into<String>) -> Self {
        Row {
            source: source.into(),
            batch: batch.into(),
            bytes: 64,
            unknown_field: None,
            invalid_value: None,
        }
    }
}

/// `WriteStream.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamType {
    /// Data visible as soon as the append is acknowledged.
    Committed,
    /// Data invisible until the stream is finalized and batch-committed.
    Pending,
    /// Visible up to a flushed offset: not modelled, refused at creation.
    Buffered,
}

/// The `WriteStream` resource as `CreateWriteStream` and `GetWriteStream` return it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteStream {
    pub name: String,
    pub stream_type: StreamType,
    pub create_time: u64,
    /// "If a stream is of COMMITTED type, then it will have a commit_time same as
    /// create_time. If the stream is of PENDING type, empty commit_time means it is not
    /// committed." (stream.proto)
    pub commit_time: Option<u64>,
}

/// `AppendRowsRequest`: the stream is named by the connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendRowsRequest {
    pub offset: Option<u64>,
    pub rows: Vec<Row>,
}

/// `AppendRowsResponse.AppendResult`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppendResult {
    /// The row offset at which the append happened; `None` on the default stream.
    pub offset: Option<u64>,
}

/// An `AppendRowsResponse` with an `error`, or a transport error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendError {
    pub status: Status,
    /// "If a request failed due to corrupted rows, no rows in the batch will be appended.
    /// The API will return row level error info." (storage.proto)
    pub row_errors: Vec<RowError>,
}

impl AppendError {
    fn of(status: Status) -> Self {
        AppendError {
            status,
            row_errors: Vec::new(),
        }
    }
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.status)?;
        if !self.row_errors.is_empty() {
            let rows: Vec<String> = self
                .row_errors
                .iter()
                .map(|e| format!("{} {}", e.index, e.code.name()))
                .collect();
            write!(f, " row_errors [{}]", rows.join(", "))?;
        }
        Ok(())
    }
}

/// `BatchCommitWriteStreamsResponse`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchCommitWriteStreamsResponse {
    /// "This field will only exist when there are no stream errors." (storage.proto)
    pub commit_time: Option<u64>,
    pub stream_errors: Vec<StorageError>,
}

/// An open `AppendRows` connection (a bidirectional gRPC stream) to one write stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    id: u64,
    pub write_stream: String,
}

/// Which fates each kind of call may meet. Option 0 is always [`Fate::Ok`].
#[derive(Clone, Copy, Debug)]
pub struct Faults {
    pub append: &'static [Fate],
    pub finalize: &'static [Fate],
    pub commit: &'static [Fate],
}

impl Faults {
    /// Every call answers.
    pub const NONE: Faults = Faults {
        append: &[Fate::Ok],
        finalize: &[Fate::Ok],
        commit: &[Fate::Ok],
    };
}

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

/// A row as a query sees it: where it came from and the row itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableRow {
    pub write_stream: String,
    /// The row's offset in its stream (`None` for the default stream).
    pub offset: Option<u64>,
    pub row: Row,
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

/// The full resource name of a stream of `table`.
pub fn stream_name(table: &str, id: &str) -> String {
    format!("projects/p/datasets/d/tables/{table}/streams/{id}")
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

    /// `CreateWriteStream`: a new application-created stream of `table`.
    pub fn create_write_stream(
        &mut self,
        sim: &mut Sim,
        table: &str,
        stream_type: StreamType,
    ) -> Result<WriteStream, Status> {
        self.settle(sim);
        if !self.tables.iter().any(|t| t == table) {
            return Err(Status::new(
                Code::NotFound,
                None,
                format!("table {table} not found"),
            ));
        }
        if stream_type == StreamType::Buffered {
            return Err(Status::new(
                Code::InvalidArgument,
                None,
                "BUFFERED streams are not modelled by this simulator",
            ));
        }
        let name = stream_name(table, &format!("s{}", self.next_stream));
        self.next_stream += 1;
        let now = sim.now();
        self.streams.insert(
            name.clone(),
            Stream {
                seq: self.next_stream - 1,
                table: table.to_string(),
                stream_type,
                state: State::Open,
                create_time: now,
                finalize_time: None,
                commit_time: if stream_type == StreamType::Committed {
                    Some(now)
                } else {
                    None
                },
                rows: Vec::new(),
                connection: None,
            },
        );
        sim.note("writeapi", || {
            format!("CreateWriteStream {:?} -> {}", stream_type, short(&name))
        });
        self.get_write_stream(&name)
    }

    /// `GetWriteStream`.
    pub fn get_write_stream(&self, name: &str) -> Result<WriteStream, Status> {
        if is_default(name) {
            let table = table_of(name).unwrap_or_default();
            if self.tables.iter().any(|t| t == table) {
                return Ok(WriteStream {
                    name: name.to_string(),
                    stream_type: StreamType::Committed,
                    create_time: 0,
                    commit_time: Some(0),
                });
            }
        }
        let stream = self.streams.get(name).ok_or_else(|| not_found(name))?;
        Ok(WriteStream {
            name: name.to_string(),
            stream_type: stream.stream_type,
            create_time: stream.create_time,
            commit_time: stream.commit_time,
        })
    }

    /// Opens an `AppendRows` connection. The default stream takes any number of
    /// connections; an application-created stream only one at a time.
    pub fn connect(&mut self, sim: &mut Sim, write_stream: &str) -> Result<Connection, Status> {
        self.settle(sim);
        let id = self.next_connection;
        if is_default(write_stream) {
            let table = table_of(write_stream).unwrap_or_default();
            if !self.tables.iter().any(|t| t == table) {
                return Err(not_found(write_stream));
            }
            self.next_connection += 1;
            self.default_connections += 1;
            return Ok(Connection {
                id,
                write_stream: write_stream.to_string(),
            });
        }
        let stream = self
            .streams
            .get_mut(write_stream)
            .ok_or_else(|| not_found(write_stream))?;
        if stream.connection.is_some() {
            return Err(Status::new(
                Code::FailedPrecondition,
                None,
                "an application-created stream can have only one active connection",
            ));
        }
        self.next_connection += 1;
        stream.connection = Some(id);
        Ok(Connection {
            id,
            write_stream: write_stream.to_string(),
        })
    }

    /// Closes a connection (the client is done, or its process died).
    pub fn disconnect(&mut self, connection: &Connection) {
        if let Some(stream) = self.streams.get_mut(&connection.write_stream)
            && stream.connection == Some(connection.id)
        {
            stream.connection = None;
        }
    }

    fn connection_is_open(&self, connection: &Connection) -> bool {
        if is_default(&connection.write_stream) {
            return true;
        }
        self.streams
            .get(&connection.write_stream)
            .is_some_and(|s| s.connection == Some(connection.id))
    }

    /// `AppendRows` on an open connection. The fate of the call comes from the `Sim`:
    /// a lost response is `DEADLINE_EXCEEDED` and breaks the connection.
    pub fn append_rows(
        &mut self,
        sim: &mut Sim,
        connection: &Connection,
        request: AppendRowsRequest,
    ) -> Result<AppendResult, AppendError> {
        self.settle(sim);
        if !self.connection_is_open(connection) {
            return Err(AppendError::of(Status::new(
                Code::Unavailable,
                None,
                "the connection is closed; reconnect",
            )));
        }
        let name = connection.write_stream.clone();
        let fate = match self.scripted.take() {
            Some(fate) => fate,
            None => sim.fate("writeapi:AppendRows", self.faults.append),
        };
        let rows = request.rows.len();
        let outcome = match fate {
            Fate::Ok | Fate::AppliedResponseLost => Some(self.apply_append(&name, &request)),
            Fate::AppliedLater => {
                self.in_flight.push(InFlight {
                    write_stream: name.clone(),
                    request: request.clone(),
                });
                None
            }
            Fate::Rejected | Fate::NotApplied => None,
        };
        let seen: Result<AppendResult, AppendError> = match fate {
            Fate::Ok => outcome.clone().expect("applied"),
            // An AppendRowsResponse whose `error` is set: the rows were not accepted, and
            // the connection stays open for the next request.
            Fate::Rejected => Err(AppendError::of(Status::new(
                Code::Internal,
                None,
                "server-side error; the rows were not accepted",
            ))),
            _ => Err(AppendError::of(Status::new(
                Code::DeadlineExceeded,
                None,
                "no response",
            ))),
        };
        if fate.is_indefinite() {
            // No response: the connection is gone; the client has to open a new one.
            self.disconnect(connection);
        }
        let glyph = match &seen {
            Ok(_) => Glyph::Normal,
            Err(e) if e.status.is_indefinite() => Glyph::Indefinite,
            Err(_) => Glyph::Error,
        };
        sim.event("writeapi", glyph, || {
            let client = format!(
                "AppendRows {} offset={} rows={} -> {}",
                short(&name),
                request.offset.map_or("none".into(), |o| o.to_string()),
                rows,
                match &seen {
                    Ok(r) => format!("OK at {}", r.offset.map_or("end".into(), |o| o.to_string())),
                    Err(e) => e.to_string(),
                }
            );
            let truth = match (&outcome, fate) {
                (Some(Ok(r)), _) if fate != Fate::Ok => format!(
                    "applied at {}, response lost",
                    r.offset.map_or("end".into(), |o| o.to_string())
                ),
                (Some(Err(e)), _) if fate != Fate::Ok => format!("refused {e}, response lost"),
                (None, Fate::AppliedLater) => "still in flight: lands later".into(),
                (None, Fate::Rejected) => "refused: not applied".into(),
                (None, _) if fate != Fate::Ok => "not applied".into(),
                _ => String::new(),
            };
            (client, truth)
        });
        seen
    }

    /// `AppendRows` with several requests in flight on one connection, answered in order.
    /// Each request meets the same fates as [`WriteApi::append_rows`] until one fails with
    /// an error response (`ALREADY_EXISTS`, `OUT_OF_RANGE`, `INVALID_ARGUMENT`, …): every
    /// request behind it is answered `ABORTED` and not applied.
    pub fn append_rows_pipelined(
        &mut self,
        sim: &mut Sim,
        connection: &Connection,
        requests: Vec<AppendRowsRequest>,
    ) -> Vec<Result<AppendResult, AppendError>> {
        let mut answers = Vec::with_capacity(requests.len());
        let mut failed = false;
        for request in requests {
            if failed {
                let rows = request.rows.len();
                sim.event("writeapi", Glyph::Error, || {
                    (
                        format!(
                            "AppendRows {} offset={} rows={rows} -> ABORTED",
                            short(&connection.write_stream),
                            request.offset.map_or("none".into(), |o| o.to_string()),
                        ),
                        "behind a failed request: not applied".into(),
                    )
                });
                answers.push(Err(AppendError::of(Status::new(
                    Code::Aborted,
                    None,
                    "request processing is aborted because of prior failures",
                ))));
                continue;
            }
            let answer = self.append_rows(sim, connection, request);
            failed = answer.as_ref().is_err_and(|e| !e.status.is_indefinite());
            answers.push(answer);
        }
        answers
    }

    /// What the server does with a request that reached it.
    fn apply_append(
        &mut self,
        name: &str,
        request: &AppendRowsRequest,
    ) -> Result<AppendResult, AppendError> {
        let bytes: u64 = request.rows.iter().map(|r| r.bytes).sum();
        if bytes >= MAX_REQUEST_BYTES {
            return Err(AppendError::of(Status::new(
                Code::InvalidArgument,
                None,
                format!("request of {bytes} bytes exceeds the AppendRows size limit"),
            )));
        }
        if let Some(field) = request.rows.iter().find_map(|r| r.unknown_field.as_ref()) {
            // The writer's schema has a field the table lacks: the request as a whole.
            return Err(AppendError::of(Status::new(
                Code::InvalidArgument,
                Some(StorageErrorCode::SchemaMismatchExtraFields),
                format!("the writer's schema has field {field}, which the table lacks"),
            )));
        }
        let row_errors: Vec<RowError> = request
            .rows
            .iter()
            .enumerate()
            .filter_map(|(index, row)| {
                row.invalid_value.as_ref().map(|value| RowError {
                    index,
                    code: RowErrorCode::FieldsError,
                    message: format!("invalid value: {value}"),
                })
            })
            .collect();
        if !row_errors.is_empty() {
            // The request fails as a whole (INVALID_ARGUMENT: "a malformed request or data");
            // the reasons are per row, in `row_errors`.
            return Err(AppendError {
                status: Status::new(
                    Code::InvalidArgument,
                    None,
                    "corrupted rows; no row of the request was appended",
                ),
                row_errors,
            });
        }
        if is_default(name) {
            if request.offset.is_some() {
                return Err(AppendError::of(Status::new(
                    Code::InvalidArgument,
                    None,
                    "an offset is not allowed on the _default stream",
                )));
            }
            let table = table_of(name).unwrap_or_default().to_string();
            self.default_rows
                .entry(table)
                .or_default()
                .extend(request.rows.iter().cloned());
            return Ok(AppendResult { offset: None });
        }
        let stream = self
            .streams
            .get_mut(name)
            .ok_or_else(|| AppendError::of(not_found(name)))?;
        if stream.state != State::Open {
            return Err(AppendError::of(Status::new(
                Code::InvalidArgument,
                Some(StorageErrorCode::StreamFinalized),
                "the stream is finalized",
            )));
        }
        let end = stream.rows.len() as u64;
        match request.offset {
            Some(offset) if offset < end => Err(AppendError::of(Status::new(
                Code::AlreadyExists,
                Some(StorageErrorCode::OffsetAlreadyExists),
                format!("offset {offset} has already been written (end of stream {end})"),
            ))),
            Some(offset) if offset > end => Err(AppendError::of(Status::new(
                Code::OutOfRange,
                Some(StorageErrorCode::OffsetOutOfRange),
                format!("offset {offset} is beyond the end of stream {end}"),
            ))),
            _ => {
                stream.rows.extend(request.rows.iter().cloned());
                Ok(AppendResult { offset: Some(end) })
            }
        }
    }

    /// `FinalizeWriteStream`: no more appends. Returns `row_count`.
    pub fn finalize_write_stream(&mut self, sim: &mut Sim, name: &str) -> Result<u64, Status> {
        self.settle(sim);
        if is_default(name) {
            return Err(Status::new(
                Code::InvalidArgument,
                None,
                "Finalize is not supported on the '_default' stream",
            ));
        }
        if !self.streams.contains_key(name) {
            return Err(not_found(name));
        }
        let fate = sim.fate("writeapi:FinalizeWriteStream", self.faults.finalize);
        let now = sim.now();
        let applied = matches!(fate, Fate::Ok | Fate::AppliedResponseLost);
        let stream = self.streams.get_mut(name).expect("checked");
        if applied && stream.state == State::Open {
            stream.state = State::Finalized;
            stream.finalize_time = Some(now);
        }
        let row_count = stream.rows.len() as u64;
        sim.event(
            "writeapi",
            if fate == Fate::Ok {
                Glyph::Normal
            } else {
                Glyph::Indefinite
            },
            || {
                (
                    format!(
                        "FinalizeWriteStream {} -> {}",
                        short(name),
                        if fate == Fate::Ok {
                            format!("row_count {row_count}")
                        } else {
                            "DEADLINE_EXCEEDED".into()
                        }
                    ),
                    if fate == Fate::Ok {
                        String::new()
                    } else {
                        fate.label().into()
                    },
                )
            },
        );
        if fate == Fate::Ok {
            Ok(row_count)
        } else {
            Err(Status::new(Code::DeadlineExceeded, None, "no response"))
        }
    }

    /// Why one stream cannot be committed now, if it cannot.
    fn commit_error(&self, parent: &str, name: &str, now: u64) -> Option<StorageError> {
        let error = |code: StorageErrorCode, message: &str| {
            Some(StorageError {
                code,
                entity: name.to_string(),
                error_message: message.to_string(),
            })
        };
        let Some(stream) = self.streams.get(name).filter(|s| s.table == parent) else {
            return error(
                StorageErrorCode::StreamNotFound,
                "no such stream in the parent table",
            );
        };
        if stream.stream_type != StreamType::Pending {
            return error(
                StorageErrorCode::InvalidStreamType,
                "only PENDING streams are committed",
            );
        }
        match stream.state {
            State::Committed => error(
                StorageErrorCode::StreamAlreadyCommitted,
                "already committed",
            ),
            State::Open => error(
                StorageErrorCode::InvalidStreamState,
                "the stream is not finalized",
            ),
            State::Finalized => {
                let finalized = stream.finalize_time.unwrap_or(now);
                if now.saturating_sub(stream.create_time) > PENDING_COMMIT_LIMIT
                    || now.saturating_sub(finalized) > FINALIZED_BUFFER_LIMIT
                {
                    error(
                        StorageErrorCode::InvalidStreamState,
                        "the stream is garbaged (time limit)",
                    )
                } else {
                    None
                }
            }
        }
    }

    /// `BatchCommitWriteStreams`: atomically commits finalized `PENDING` streams of one
    /// parent table. With stream errors, none is committed and there is no commit time.
    pub fn batch_commit_write_streams(
        &mut self,
        sim: &mut Sim,
        parent: &str,
        write_streams: &[String],
    ) -> Result<BatchCommitWriteStreamsResponse, Status> {
        self.settle(sim);
        let fate = match self.scripted_commit.take() {
            Some(fate) => fate,
            None => sim.fate("writeapi:BatchCommitWriteStreams", self.faults.commit),
        };
        let now = sim.now();
        let applied = matches!(fate, Fate::Ok | Fate::AppliedResponseLost);
        let mut response = BatchCommitWriteStreamsResponse {
            commit_time: None,
            stream_errors: write_streams
                .iter()
                .filter_map(|name| self.commit_error(parent, name, now))
                .collect(),
        };
        if applied && response.stream_errors.is_empty() {
            for name in write_streams {
                let stream = self.streams.get_mut(name).expect("checked");
                stream.state = State::Committed;
                stream.commit_time = Some(now);
            }
            response.commit_time = Some(now);
        }
        sim.event(
            "writeapi",
            if fate == Fate::Ok {
                Glyph::Normal
            } else {
                Glyph::Indefinite
            },
            || {
                let outcome = if response.stream_errors.is_empty() && applied {
                    format!("commit_time {now}")
                } else if applied {
                    let errors: Vec<String> = response
                        .stream_errors
                        .iter()
                        .map(|e| format!("{} {}", short(&e.entity), e.code.name()))
                        .collect();
                    format!("stream_errors [{}]", errors.join(", "))
                } else {
                    "nothing committed".into()
                };
                if fate == Fate::Ok {
                    (
                        format!("BatchCommitWriteStreams -> {outcome}"),
                        String::new(),
                    )
                } else {
                    (
                        "BatchCommitWriteStreams -> DEADLINE_EXCEEDED".into(),
                        format!("{}: {outcome}", fate.label()),
                    )
                }
            },
        );
        if fate == Fate::Ok {
            Ok(response)
        } else {
            Err(Status::new(Code::DeadlineExceeded, None, "no response"))
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

fn not_found(name: &str) -> Status {
    Status::new(
        Code::NotFound,
        Some(StorageErrorCode::StreamNotFound),
        format!("stream {} not found", short(name)),
    )
}

/// The last part of a stream name (`s1`, `_default`), for timelines.
pub fn short(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}
