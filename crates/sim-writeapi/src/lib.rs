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
//!
//! [`Sim`]: labkit::fault::Sim
//! [`Fate`]: labkit::fault::Fate
//! [`Fate::Rejected`]: labkit::fault::Fate::Rejected

mod rows;
mod service;
mod status;

pub use rows::{
    AppendResult, AppendRowsRequest, BatchCommitWriteStreamsResponse, Connection, Faults, Row,
    StreamType, TableRow, WriteStream,
};
pub use service::WriteApi;
pub use status::{
    AppendError, Code, RowError, RowErrorCode, Status, StorageError, StorageErrorCode,
};

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

/// The full resource name of a stream of `table`.
pub fn stream_name(table: &str, id: &str) -> String {
    format!("projects/p/datasets/d/tables/{table}/streams/{id}")
}

/// The last part of a stream name (`s1`, `_default`), for timelines.
pub fn short(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}
