//! What the service answers when it refuses: gRPC status codes ([`Code`]), the storage
//! error codes of `StorageError` ([`StorageErrorCode`]), a [`Status`], a stream's error in a
//! batch commit ([`StorageError`]), the per-row errors of an append ([`RowError`]) and the
//! error of an `AppendRows` ([`AppendError`]).

use crate::short;
use std::fmt;

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
    pub(crate) fn new(
        code: Code,
        storage: Option<StorageErrorCode>,
        message: impl Into<String>,
    ) -> Self {
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

/// An `AppendRowsResponse` with an `error`, or a transport error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendError {
    pub status: Status,
    /// "If a request failed due to corrupted rows, no rows in the batch will be appended.
    /// The API will return row level error info." (storage.proto)
    pub row_errors: Vec<RowError>,
}

impl AppendError {
    pub(crate) fn of(status: Status) -> Self {
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

pub(crate) fn not_found(name: &str) -> Status {
    Status::new(
        Code::NotFound,
        Some(StorageErrorCode::StreamNotFound),
        format!("stream {} not found", short(name)),
    )
}
