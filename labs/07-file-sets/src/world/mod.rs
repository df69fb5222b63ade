//! The world your code talks to. Complete code: read it, do not change it.
//!
//! One simulated Cloud Storage origin (`sim_storage::ObjectStore`, SQLite in memory, one
//! per schedule) with two buckets: `datasets` for the files of each run and `releases`
//! for the acceptance manifest `accounts-positions/manifest.json`. Three identities use
//! it through a [`Gcs`] handle: the publisher, the reporting consumer and an analyst who
//! should only read.
//!
//! * [`dataset`](mod@dataset): a run's accounts and positions, their CSV files, the report.
//! * [`manifest`](mod@manifest): the acceptance manifest's format.
//! * [`gcs`]: the handle every request goes through.
//! * [`state`]: the schedule's [`World`], the actors and how another one is switched in.

mod dataset;
pub mod gcs;
mod manifest;
pub mod state;

pub use dataset::{
    Account, Dataset, Position, Report, dataset, parse_accounts, parse_positions, report, run_tag,
};
pub use gcs::Gcs;
pub use manifest::{FileRef, Manifest};
pub use state::{Actor, Peer, World, Write};

use labkit::fault::Crash;
use sim_storage::StorageError;
use std::fmt;

/// The bucket that holds the data files of every run.
pub const DATA: &str = "datasets";
/// The bucket that holds the acceptance manifest.
pub const RELEASES: &str = "releases";
/// The acceptance manifest: the one object consumers start from.
pub const MANIFEST: &str = "accounts-positions/manifest.json";

/// The identity that publishes datasets.
pub const PUBLISHER: &str = "serviceAccount:publisher@bank-data.iam";
/// The identity of the reporting job that consumes them.
pub const CONSUMER: &str = "serviceAccount:reports@bank-data.iam";
/// An analyst who reads the data; nothing they do may change what consumers accept.
pub const ANALYST: &str = "user:analyst@bank.example";
/// Another team's job that shares the `datasets` bucket: it restates positions in place
/// and keeps notes beside them. Its access is not yours to change.
pub const RESTATEMENTS: &str = "serviceAccount:restatements@risk-data.iam";
/// The harness's own read-only identity, used to check invariants.
pub const AUDITOR: &str = "serviceAccount:auditor@bank-data.iam";

/// The run the world starts with, already accepted; the run being published; the next
/// night's run, which a second publisher process may publish at the same time.
pub const RUN_1: &str = "run-1";
pub const RUN_2: &str = "run-2";
pub const RUN_3: &str = "run-3";

/// Why an actor's attempt stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The publisher process crashed (its last write may have been applied).
    Crashed(Crash),
    /// The store answered with an error status (403, 404, 412, 416).
    Http(StorageError),
    /// The actor refused to go on: an incomplete, mixed or foreign set, and the reason.
    Rejected(String),
}

impl Error {
    /// The HTTP status, when the store answered with an error.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Http(e) => Some(e.code()),
            _ => None,
        }
    }
}

impl From<Crash> for Error {
    fn from(c: Crash) -> Self {
        Error::Crashed(c)
    }
}

impl From<StorageError> for Error {
    fn from(e: StorageError) -> Self {
        Error::Http(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Crashed(c) => write!(f, "{c}"),
            Error::Http(e) => write!(f, "{e}"),
            Error::Rejected(why) => write!(f, "rejected: {why}"),
        }
    }
}
