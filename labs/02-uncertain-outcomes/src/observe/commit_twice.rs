//! A transaction the application drives itself, committed again after its commit failed.

use super::naive::S1;
use crate::world::SETTLEMENTS;
use labkit::fault::{self, Scope, Sim};
use sim_spanner::{Code, Database, Mutation, Row};

/// What one schedule of [`commit_twice`] showed.
#[derive(Clone, Debug)]
pub struct CommitTwice {
    /// The fault the schedule took, as `site=option` (`none` without one).
    pub fault: String,
    pub first: Result<(), Code>,
    /// Was the row in the database when the first commit returned?
    pub applied: bool,
    pub again: Result<(), Code>,
}

// ANCHOR: commit_twice
/// S1's pending row, committed by a transaction the application drives itself (begin,
/// buffer, commit); when that commit fails, the same transaction is committed again.
pub fn commit_twice(sim: &mut Sim) -> CommitTwice {
    let mut db = Database::new();
    let mut txn = db.begin_transaction();
    txn.buffer(Mutation::Insert {
        table: SETTLEMENTS,
        key: S1.id.into(),
        row: Row::new()
            .with("amount", S1.amount)
            .with("status", "pending"),
    })
    .expect("a new transaction is open");
    let first = txn.commit(&mut db, sim).map(|_| ()).map_err(|e| e.code);
    let applied = db.read(SETTLEMENTS, S1.id).is_some();
    let again = if first.is_err() {
        txn.commit(&mut db, sim).map(|_| ()).map_err(|e| e.code)
    } else {
        Ok(())
    };
    CommitTwice {
        fault: (sim.fault_list().pop()).map_or_else(
            || "none".into(),
            |f| super::naive::in_the_services_words(&f),
        ),
        first,
        applied,
        again,
    }
}
// ANCHOR_END: commit_twice

/// Every schedule of [`commit_twice`] with at most one fault (each outcome of its commit).
pub fn explore_commit_twice() -> Vec<CommitTwice> {
    let mut all = Vec::new();
    let scope = Scope {
        lab: "02",
        scenario: "commit-twice",
        max_faults: 1,
    };
    fault::explore_all(scope, |sim| {
        all.push(commit_twice(sim));
        Ok(())
    });
    all
}
