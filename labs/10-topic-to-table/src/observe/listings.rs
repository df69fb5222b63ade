//! The two listings the chapter prints, each under scripted faults: the plain writer whose
//! write is lost, or stored and then followed by an abort; the offset committed at read
//! whose commit is lost before it was applied.

use super::protocols::{CONSUMER_OFFSET_AT_READ, PRODUCER_OUTSIDE};
use super::variations::{drain, one_message};
use crate::world::{Consumer, HOT, SINK, Sim, Ydb, encode_payload};
use sim_topic::Chaos;

/// The plain writer's write is killed before the message is stored, and nothing else
/// fails. Returns how many messages the topic holds.
pub fn plain_write_lost() -> usize {
    let chaos = Chaos {
        kill_connections: true,
        ..Chaos::NONE
    };
    // The write is killed, not applied (1); the SELECT answers (0); the commit meets no
    // choice.
    let db = one_message(chaos, PRODUCER_OUTSIDE, &[1, 0]);
    assert_eq!(db.stats().unavailable, 1, "the scripted fault");
    db.all_messages().len()
}

/// The plain writer's write is stored but its connection killed, then its hot-row commit
/// is ABORTED, then the retry commits. Returns (copies in the topic, sink rows once the
/// consumer has read everything).
pub fn plain_write_stored_then_aborted() -> (usize, usize) {
    let chaos = Chaos {
        commit_faults: false,
        ..Chaos::ALL
    };
    // Attempt 1: the write is killed after it was applied (2); the SELECT answers (0);
    // the commit meets a concurrent writer (1). Attempt 2: nothing unusual.
    let mut db = one_message(chaos, PRODUCER_OUTSIDE, &[2, 0, 1, 0, 0, 0]);
    let stats = db.stats();
    assert_eq!(
        (stats.unavailable, stats.locks_invalidated),
        (1, 1),
        "the two faults"
    );
    let copies = db.all_messages().len();
    drain(&mut db);
    (copies, db.all_rows(SINK).len())
}

/// The offset-at-read consumer reads 0#1 and 0#2; its `commit_with_ack` is killed before
/// it was applied; the retry loop runs the body again. Returns the sink's keys.
pub fn offset_commit_lost_before_it_applied() -> Vec<(i64, i64)> {
    let mut db = Ydb::in_memory(
        1,
        Chaos {
            kill_connections: true,
            ..Chaos::NONE
        },
    );
    db.create_table(HOT);
    db.create_table(SINK);
    // Two plain writes (0, 0), the read (0), commit_with_ack killed, not applied (1).
    let mut sim = Sim::replaying(&[0, 0, 0, 1]);
    for seq_no in 1..=2 {
        let written = db.write(&mut sim, "p0", 0, encode_payload(0, seq_no, 0));
        written.expect("the writes meet no fault here");
    }
    let consumer = Consumer {
        actor: "consumer",
        reader_id: 0,
        hot_key: 0,
    };
    for _attempt in 0..2 {
        let mut tx = db.begin();
        match (CONSUMER_OFFSET_AT_READ.consume)(&mut db, &mut sim, &mut tx, &consumer) {
            Ok(_) => {
                db.commit(&mut sim, "consumer", tx)
                    .expect("no commit fault here");
                break;
            }
            Err(_) => db.rollback(&mut sim, "consumer", tx),
        }
    }
    assert_eq!(db.stats().unavailable, 1, "the scripted fault");
    db.all_rows(SINK).into_iter().map(|(key, _)| key).collect()
}
