//! A small experiment on one reader session: two transactions read through it, and the
//! one that read later commits first.

use crate::world::{CONSUMER, SINK, Sim, Tx, Ydb, encode_payload};
use sim_topic::Chaos;

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

fn offsets_read(db: &mut Ydb, sim: &mut Sim, tx: &mut Tx, max: usize) -> Vec<i64> {
    let batch = db.receive_batch_with_tx(sim, "consumer", tx, CONSUMER, max);
    let batch = batch.expect("no chaos here");
    batch.messages.iter().map(|m| m.offset).collect()
}

/// What became of two transactions on one session, and where the next one read.
pub struct TwoOnOneSession {
    pub later_committed: bool,
    pub earlier_committed: bool,
    pub next_read_from: Option<i64>,
}

/// Through one reader session T1 reads offsets 0–1 and stays open, T2 reads 2–3 and
/// commits first, then T1 commits; then a new transaction reads.
pub fn later_transaction_commits_first() -> TwoOnOneSession {
    let (mut db, mut sim) = topic_with(6);
    let mut t1 = db.begin();
    assert_eq!(offsets_read(&mut db, &mut sim, &mut t1, 2), [0, 1]);
    let mut t2 = db.begin();
    assert_eq!(offsets_read(&mut db, &mut sim, &mut t2, 2), [2, 3]);
    let later_committed = db.commit(&mut sim, "consumer", t2).is_ok();
    let earlier_committed = db.commit(&mut sim, "consumer", t1).is_ok();
    let mut next = db.begin();
    let read = offsets_read(&mut db, &mut sim, &mut next, 2);
    TwoOnOneSession {
        later_committed,
        earlier_committed,
        next_read_from: read.first().copied(),
    }
}
