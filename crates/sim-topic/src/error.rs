//! The simulated server's errors: the status codes ([`StatusCode`]), an error with its
//! issue text ([`YdbError`]), and the errors the chaos gives a call.

use std::fmt;

/// The status codes this simulator returns: YDB's own operation statuses, and the gRPC
/// transport's `UNAVAILABLE` for a connection that broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusCode {
    /// 400040. Retryable: retry the entire transaction. Nothing was applied.
    Aborted,
    /// Status 400060, retryable with a slow backoff, idempotent or not: the request was
    /// refused before it ran (a shard's queue was full). Nothing was applied.
    Overloaded,
    /// The transport's gRPC code 14: the connection broke, and the server may or may not
    /// have applied the call. YDB's table calls it conditionally retryable; the Python SDK
    /// retries it whatever `idempotent` says (as `issues.Unavailable` on a stream,
    /// `issues.ConnectionLost` on a unary call).
    Unavailable,
    /// 400170, a status the server answers: it could not determine the outcome.
    /// Conditionally retryable: the SDK retries it only when the call is idempotent.
    Undetermined,
    /// The SDK's own `ClientInternalError`: the client failed the transaction before it
    /// sent the commit (a batch it read belongs to a reader session that has since ended).
    /// Nothing was applied; retryable with a fast backoff.
    ClientInternalError,
}

impl StatusCode {
    pub fn name(self) -> &'static str {
        match self {
            StatusCode::Aborted => "ABORTED",
            StatusCode::Overloaded => "OVERLOADED",
            StatusCode::Unavailable => "UNAVAILABLE",
            StatusCode::Undetermined => "UNDETERMINED",
            StatusCode::ClientInternalError => "CLIENT_INTERNAL_ERROR",
        }
    }

    /// True when the status says nothing about whether the call was applied.
    pub fn is_indefinite(self) -> bool {
        matches!(self, StatusCode::Unavailable | StatusCode::Undetermined)
    }
}

/// An error from the simulated server: a status code and its issue text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YdbError {
    pub status: StatusCode,
    pub issue: &'static str,
}

/// The issue text YDB puts in an `ABORTED` caused by a lock conflict.
pub const TLI: &str = "Transaction locks invalidated";

impl YdbError {
    /// True for the optimistic-lock conflict ("TLI").
    pub fn is_locks_invalidated(&self) -> bool {
        self.status == StatusCode::Aborted && self.issue == TLI
    }
}

impl fmt::Display for YdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status.name(), self.issue)
    }
}

impl std::error::Error for YdbError {}

/// The error a killed connection gives a plain call.
pub(crate) const KILLED: YdbError = YdbError {
    status: StatusCode::Unavailable,
    issue: "connection killed",
};

pub(crate) const UNAVAILABLE_COMMIT: YdbError = YdbError {
    status: StatusCode::Unavailable,
    issue: "connection lost during commit",
};
pub(crate) const UNDETERMINED_COMMIT: YdbError = YdbError {
    status: StatusCode::Undetermined,
    issue: "commit outcome unknown",
};
