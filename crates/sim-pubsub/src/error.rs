//! The simulated API's errors ([`Code`], [`PubSubError`]) and the documented rule for a
//! resource's name, which every call that takes a name checks first.

use std::fmt;

/// The canonical error codes the simulated API returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    NotFound,
    AlreadyExists,
    InvalidArgument,
    /// A publish the service did not accept (after the client's own retries).
    Unavailable,
    /// A publish that timed out (after the client's own retries): it may have been stored.
    DeadlineExceeded,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PubSubError {
    pub code: Code,
    pub message: String,
}

impl PubSubError {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        PubSubError {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for PubSubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = match self.code {
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::Unavailable => "UNAVAILABLE",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        };
        write!(f, "{code}: {}", self.message)
    }
}

impl std::error::Error for PubSubError {}

/// A resource ID (the last part of `projects/{project}/topics/{topic}`, of a
/// subscription's or a snapshot's name): "must start with a letter, and contain only
/// letters ([A-Za-z]), numbers ([0-9]), dashes (-), underscores (_), periods (.), tildes
/// (~), plus (+) or percent signs (%). It must be between 3 and 255 characters in length,
/// and it must not start with "goog"." A name that breaks the rule is INVALID_ARGUMENT
/// whatever exists: the request is malformed, not about a missing resource.
pub(crate) fn check_name(kind: &str, name: &str) -> Result<(), PubSubError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.~+%".contains(c);
    let problem = if name.is_empty() {
        Some("is empty")
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some("must start with a letter")
    } else if !(3..=255).contains(&name.len()) {
        Some("must be between 3 and 255 characters long")
    } else if !name.chars().all(allowed) {
        Some("may contain only letters, numbers, - _ . ~ + %")
    } else if name.starts_with("goog") {
        Some("must not start with \"goog\"")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(PubSubError::new(
            Code::InvalidArgument,
            format!("the {kind} name {name:?} {problem}"),
        )),
        None => Ok(()),
    }
}
