//! The SDK's retry loop's settings: which status codes are retried, after which backoff.

use crate::{StatusCode, YdbError};

/// The retry settings of the SDK's retry loop (`ydb.RetrySettings`): which errors are
/// retried and after how many ticks. The classes follow the Python SDK (3.31.2,
/// `ydb/_errors.py`), which differs from YDB's status-code table for a broken connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetrySettings {
    /// Retries after the first attempt (`max_retries`).
    pub max_retries: u32,
    /// The first delay of the fast backoff, in ticks; doubled on each retry.
    pub fast_backoff: u64,
    /// The first delay of the slow backoff (`OVERLOADED`), in ticks; doubled on each retry.
    pub slow_backoff: u64,
    /// Whether the operation may be repeated after the server answered `UNDETERMINED`:
    /// true only when running it twice has the effect of running it once. The SDK does not
    /// consult it for a broken connection (`UNAVAILABLE`), which it always retries.
    pub idempotent: bool,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            max_retries: 10,
            fast_backoff: 2,
            slow_backoff: 8,
            idempotent: true,
        }
    }
}

impl RetrySettings {
    /// After `attempt` failed attempts (1 for the first failure) with `error`: `Some(delay)`
    /// to retry after `delay` ticks, `None` to give up.
    pub fn next_delay(&self, error: &YdbError, attempt: u32) -> Option<u64> {
        if attempt > self.max_retries {
            return None;
        }
        let base = match error.status {
            StatusCode::Aborted | StatusCode::ClientInternalError | StatusCode::Unavailable => {
                Some(self.fast_backoff)
            }
            StatusCode::Overloaded => Some(self.slow_backoff),
            StatusCode::Undetermined => self.idempotent.then_some(self.fast_backoff),
        };
        base.map(|base| base << (attempt - 1).min(6))
    }
}
