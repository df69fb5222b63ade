//! Which faults the simulated cluster injects ([`Chaos`]), and the options the fault core
//! chooses among for a commit and for a plain call.

use crate::YdbError;
use crate::error::{UNAVAILABLE_COMMIT, UNDETERMINED_COMMIT};

/// Which faults the simulated cluster injects. Each enabled kind adds options to the fault
/// core's choices; a disabled kind adds none, so a fault-free run makes no choices at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chaos {
    /// Queries, topic reads, plain writes and plain offset commits can fail `UNAVAILABLE`
    /// (a connection killed); for a plain write or offset commit, sometimes after it was
    /// applied.
    pub kill_connections: bool,
    /// Commits can be refused (`OVERLOADED`), fail `UNAVAILABLE` (the connection broke) or
    /// end `UNDETERMINED` (the server could not tell): both applied or not.
    pub commit_faults: bool,
    /// A concurrent writer can break a transaction's locks just before it commits.
    pub lock_breaks: bool,
}

impl Chaos {
    pub const NONE: Chaos = Chaos {
        kill_connections: false,
        commit_faults: false,
        lock_breaks: false,
    };
    pub const ALL: Chaos = Chaos {
        kill_connections: true,
        commit_faults: true,
        lock_breaks: true,
    };
}

pub(crate) const COMMIT_ALL: [&str; 7] = [
    "ok",
    "a concurrent writer breaks the locks",
    "OVERLOADED (refused, not applied)",
    "UNAVAILABLE (connection lost, applied)",
    "UNAVAILABLE (connection lost, not applied)",
    "UNDETERMINED (applied; the server cannot tell)",
    "UNDETERMINED (not applied)",
];
pub(crate) const COMMIT_FAULTS: [CommitFault; 7] = [
    CommitFault::None,
    CommitFault::BreakLocks,
    CommitFault::Overloaded,
    CommitFault::UnavailableApplied,
    CommitFault::UnavailableNotApplied,
    CommitFault::UndeterminedApplied,
    CommitFault::UndeterminedNotApplied,
];
pub(crate) const READ_CALL: [&str; 2] = ["ok", "UNAVAILABLE (connection killed)"];
pub(crate) const EFFECT_CALL: [&str; 3] = [
    "ok",
    "UNAVAILABLE (connection killed, not applied)",
    "UNAVAILABLE (connection killed, applied)",
];

/// What the fault core decided for one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CommitFault {
    None,
    BreakLocks,
    Overloaded,
    UnavailableApplied,
    UnavailableNotApplied,
    UndeterminedApplied,
    UndeterminedNotApplied,
}

impl CommitFault {
    /// The error the client sees after the commit was applied, if any.
    pub(crate) fn after_applied(self) -> Option<YdbError> {
        match self {
            CommitFault::UnavailableApplied => Some(UNAVAILABLE_COMMIT),
            CommitFault::UndeterminedApplied => Some(UNDETERMINED_COMMIT),
            _ => None,
        }
    }
}

/// What the fault core decided for one plain call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallFault {
    None,
    KilledNotApplied,
    KilledApplied,
}
