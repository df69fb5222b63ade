//! What a client sends and gets back: rows, streams and their types, the `AppendRows`
//! request and result, a connection, the batch commit's response, a row as a query sees
//! it, and which faults the calls may meet ([`Faults`]).

use crate::StorageError;
use labkit::fault::Fate;

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
    pub(crate) id: u64,
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

/// A row as a query sees it: where it came from and the row itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableRow {
    pub write_stream: String,
    /// The row's offset in its stream (`None` for the default stream).
    pub offset: Option<u64>,
    pub row: Row,
}
