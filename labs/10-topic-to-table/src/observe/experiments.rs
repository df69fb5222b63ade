//! Small experiments on one reader and one commit, each run against the simulator.

use super::protocols::upsert_batch;
use crate::world::{BATCH, CONSUMER, SINK, Sim, Tx, Ydb, encode_payload};
use labkit::fault::{self, Scope};
use sim_topic::{Chaos, StatusCode};
use std::cell::RefCell;

/// A one-partition topic holding producer 0's messages 1..=n.
pub(super) fn topic_with(n: i64) -> (Ydb, Sim) {
    let mut db = Ydb::in_memory(1, Chaos::NONE);
    db.create_table(SINK);
    let mut sim = Sim::fault_free();
    for seq_no in 1..=n {
        let written = db.write(&mut sim, "p0", 0, encode_payload(0, seq_no, 0));
        written.expect("no chaos here");
    }
    (db, sim)
}

pub(super) fn offsets_read(db: &mut Ydb, sim: &mut Sim, tx: &mut Tx, max: usize) -> Vec<i64> {
    let batch = db.receive_batch_with_tx(sim, "consumer", tx, CONSUMER, max);
    let batch = batch.expect("no chaos here");
    batch.messages.iter().map(|m| m.offset).collect()
}

/// Reads a batch in a transaction and, while that transaction is still open (nothing
/// committed), reads again through the same reader session. Returns both reads' offsets.
pub fn reads_while_uncommitted() -> (Vec<i64>, Vec<i64>) {
    let (mut db, mut sim) = topic_with(4);
    let mut open = db.begin();
    let first = offsets_read(&mut db, &mut sim, &mut open, 2);
    let mut next = db.begin();
    let second = offsets_read(&mut db, &mut sim, &mut next, 2);
    (first, second)
}

/// Every fate of one consumer commit (a batch, its sink rows, its offset advance): for
/// each commit that answered `UNAVAILABLE`, whether it had been applied (the committed
/// offset moved and the sink row exists).
pub fn unavailable_commits_applied() -> Vec<bool> {
    let scope = Scope {
        lab: "10",
        scenario: "one-commit",
        max_faults: 1,
    };
    let applied = RefCell::new(Vec::new());
    fault::explore_all(scope, |sim| {
        let mut db = Ydb::in_memory(
            1,
            Chaos {
                commit_faults: true,
                ..Chaos::NONE
            },
        );
        db.create_table(SINK);
        let written = db.write(sim, "p0", 0, encode_payload(0, 1, 0));
        written.expect("plain writes meet no faults here");
        let mut tx = db.begin();
        let batch = db.receive_batch_with_tx(sim, "consumer", &mut tx, CONSUMER, BATCH);
        let batch = batch.expect("reads meet no faults here");
        upsert_batch(&db, &mut tx, &batch);
        if let Err(error) = db.commit(sim, "consumer", tx)
            && error.status == StatusCode::Unavailable
        {
            let moved = db.committed_offsets(CONSUMER)[0] > 0;
            let row = !db.all_rows(SINK).is_empty();
            applied.borrow_mut().push(moved && row);
        }
        Ok(())
    });
    applied.into_inner()
}
