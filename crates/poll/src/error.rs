//! The server's one error type. Its kind decides the HTTP status (see
//! [`RefusalKind::status`]), and its message is the sentence the learner or the teacher
//! reads: every refusal says what was wrong and what to do instead.

use workbook::poll::wire::{Refusal, RefusalKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollError {
    pub kind: RefusalKind,
    pub message: String,
    /// Seconds after which a refused client may try again (a flood's refusal).
    pub retry_after: Option<u64>,
}

impl PollError {
    pub fn new(kind: RefusalKind, message: impl Into<String>) -> PollError {
        PollError {
            kind,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn status(&self) -> u16 {
        self.kind.status()
    }

    /// The JSON body a learner's CLI reads.
    pub fn refusal(&self) -> Refusal {
        Refusal {
            kind: self.kind,
            error: self.message.clone(),
        }
    }
}

impl std::fmt::Display for PollError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PollError {}

impl From<rusqlite::Error> for PollError {
    fn from(e: rusqlite::Error) -> PollError {
        PollError::new(
            RefusalKind::Internal,
            format!("the poll's database failed ({e}); the vote was not stored, send it again"),
        )
    }
}

pub type Result<T, E = PollError> = std::result::Result<T, E>;
