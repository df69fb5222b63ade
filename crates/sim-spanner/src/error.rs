//! What the simulated API answers: the canonical error codes ([`Code`]), an error
//! ([`SpannerError`]), and a successful commit ([`CommitResponse`]).

use std::fmt;

/// The canonical error codes this simulator returns (google.rpc.Code names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Definite: the transaction did not commit; retry the whole transaction. Returned by
    /// a commit, or by a DML statement inside the transaction; after it the attempt is
    /// over and every further call on it answers ABORTED again.
    Aborted,
    /// Indefinite: no response within the deadline; the commit may or may not have applied.
    /// A read whose timestamp lies further in the future than its deadline ends with it
    /// too, having returned nothing.
    DeadlineExceeded,
    /// Definite: an `Insert` found its row already there; nothing was applied.
    AlreadyExists,
    /// Definite: an `Update` found no row; nothing was applied.
    NotFound,
    /// Definite: the request does not fit the state it meets: a read at a timestamp older
    /// than version GC keeps, or a call on a transaction that has already ended (committed,
    /// rolled back, or whose commit failed).
    FailedPrecondition,
    /// Definite: the request is not valid as asked (a bounded-staleness bound on a
    /// transaction that is not single-use).
    InvalidArgument,
    /// Indefinite: Spanner "has lost track of the transaction outcome" of a commit; read
    /// the database to learn what happened. Returned only where a scenario asks for it
    /// ([`Database::answer_unknown_commits_with`]).
    ///
    /// [`Database::answer_unknown_commits_with`]: crate::Database::answer_unknown_commits_with
    Unknown,
    /// Indefinite when it ends a commit: the client cancelled the call while the commit was
    /// in flight, and the server may have applied it. Returned only where a scenario asks
    /// for it ([`Database::answer_unknown_commits_with`]).
    ///
    /// [`Database::answer_unknown_commits_with`]: crate::Database::answer_unknown_commits_with
    Cancelled,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::Aborted => "ABORTED",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::NotFound => "NOT_FOUND",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::Unknown => "UNKNOWN",
            Code::Cancelled => "CANCELLED",
        }
    }

    /// True when a commit that ended with this code may or may not have applied:
    /// DEADLINE_EXCEEDED, UNKNOWN and CANCELLED. Only a read of the database tells.
    pub fn is_outcome_unknown(self) -> bool {
        matches!(
            self,
            Code::DeadlineExceeded | Code::Unknown | Code::Cancelled
        )
    }
}

/// An error returned by the database or the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpannerError {
    pub code: Code,
}

impl SpannerError {
    pub(crate) fn new(code: Code) -> Self {
        SpannerError { code }
    }
}

impl fmt::Display for SpannerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code.name())
    }
}

impl std::error::Error for SpannerError {}

/// What a successful commit returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitResponse {
    pub commit_timestamp: u64,
}
