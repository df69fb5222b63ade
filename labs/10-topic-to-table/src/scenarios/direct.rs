//! Four small scenarios, each explored under every fate of its commits: a producer whose
//! transaction is retried, a producer operation the application declines, a consumer whose
//! transaction is retried, and a consumer commit whose outcome is unknown.

use super::Protocol;
use crate::world::{
    BATCH, CONSUMER, Consumer, HOT, Producer, SINK, Sim, Ydb, decode_payload, encode_payload,
};
use labkit::fault::{self, Exploration, Scope, Verdict, Violation};
use sim_topic::Chaos;

/// Commits may be refused, lost or applied without an answer, and locks may break; no
/// connection is killed outside a commit.
const COMMIT_FATES: Chaos = Chaos {
    kill_connections: false,
    commit_faults: true,
    lock_breaks: true,
};
/// Attempts per message before a scenario gives up (more than its faults can use).
const ATTEMPTS: usize = 6;

fn database(chaos: Chaos) -> Ydb {
    let mut db = Ydb::in_memory(1, chaos);
    db.create_table(HOT);
    db.create_table(SINK);
    db
}

/// The `(writer, seq_no)` of every message in `db`'s topic, from the payloads.
fn topic_identities(db: &Ydb) -> Vec<(i64, i64)> {
    (db.all_messages().iter())
        .filter_map(|m| decode_payload(&m.payload).map(|(w, s, _)| (w, s)))
        .collect()
}

/// Producer p0 sends two messages, each through the retry loop: begin, your `produce`,
/// commit, your `produced` after a commit that returned `Ok`.
pub fn producer_retry(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut db = database(COMMIT_FATES);
    let mut producer = Producer {
        actor: "p0",
        writer_id: 0,
        next_seq_no: 1,
        hot_key: 0,
        now: 0,
    };
    for _message in 1..=2 {
        for _attempt in 0..ATTEMPTS {
            let mut tx = db.begin();
            producer.now = sim.now();
            if (yours.produce)(&mut db, sim, &mut tx, &mut producer).is_err() {
                db.rollback(sim, "p0", tx);
            } else if db.commit(sim, "p0", tx).is_ok() {
                (yours.produced)(&mut producer);
                break;
            }
        }
    }
    let mut held: Vec<i64> = topic_identities(&db).iter().map(|(_, s)| *s).collect();
    held.dedup();
    if held == [1, 2] && producer.next_seq_no == 3 {
        return Ok(());
    }
    let invariant = if held.len() < 2 {
        "each committed message gets its own seq_no"
    } else {
        "a retried producer attempt writes the same seq_no again"
    };
    Err(Violation::new(
        invariant,
        &[
            "Let producer p0 commit two messages, each retried until its commit returns Ok.".into(),
            "Then the topic holds seq_no 1 and 2 (a message retried after an applied \
             commit may be there twice), and the next message is seq_no 3."
                .into(),
            format!(
                "Contradiction: the topic holds seq_nos {held:?} and the next is seq_no {}.",
                producer.next_seq_no
            ),
        ],
    ))
}

/// Two messages wait in the topic; the consumer drains them through the retry loop:
/// begin, your `consume`, commit (or roll back when the body failed).
pub fn consumer_retry(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut db = database(COMMIT_FATES);
    for seq_no in 1..=2 {
        let written = db.write(sim, "p0", 0, encode_payload(0, seq_no, 0));
        written.expect("no connection is killed here");
    }
    let consumer = Consumer {
        actor: "consumer",
        reader_id: 0,
        hot_key: 0,
    };
    for _attempt in 0..2 * ATTEMPTS {
        let mut tx = db.begin();
        match (yours.consume)(&mut db, sim, &mut tx, &consumer) {
            Err(_) => db.rollback(sim, "consumer", tx),
            Ok(batch) if batch.messages.is_empty() => break,
            Ok(_) => {
                let _ = db.commit(sim, "consumer", tx);
            }
        }
    }
    let rows: Vec<(i64, i64)> = (db.all_rows(SINK).iter())
        .filter_map(|(_, p)| decode_payload(p).map(|(w, s, _)| (w, s)))
        .collect();
    let offsets = db.committed_offsets(CONSUMER);
    if rows == [(0, 1), (0, 2)] && offsets == [2] {
        return Ok(());
    }
    Err(Violation::new(
        "a failed consumer attempt loses no message",
        &[
            "Let the topic hold 0#1 and 0#2, and the consumer read until a batch is empty.".into(),
            "Then the sink holds 0#1 and 0#2 once each, and the committed offset is 2.".into(),
            format!(
                "Contradiction: the sink holds {rows:?} and the committed offset is {offsets:?}."
            ),
        ],
    ))
}

/// One consumer transaction reads 0#1 and 0#2 and upserts them; its commit meets one fate.
/// When the answer leaves the outcome unknown, your `commit_was_applied` must tell.
pub fn unknown_commit(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut db = database(Chaos {
        commit_faults: true,
        ..Chaos::NONE
    });
    for seq_no in 1..=2 {
        let written = db.write(sim, "p0", 0, encode_payload(0, seq_no, 0));
        written.expect("no connection is killed here");
    }
    let mut tx = db.begin();
    let batch = db.receive_batch_with_tx(sim, "consumer", &mut tx, CONSUMER, BATCH);
    let batch = batch.expect("no connection is killed here");
    for message in &batch.messages {
        db.upsert(&mut tx, SINK, (0, message.seq_no), message.payload.clone());
    }
    let Err(error) = db.commit(sim, "consumer", tx) else {
        return Ok(());
    };
    if !error.status.is_indefinite() {
        return Ok(());
    }
    let applied = db.committed_offsets(CONSUMER) == [2];
    let answer = (yours.applied)(&db, &batch);
    if answer == applied {
        return Ok(());
    }
    let invariant = if applied {
        "commit_was_applied recognises an applied commit"
    } else {
        "commit_was_applied recognises a lost commit"
    };
    Err(Violation::new(
        invariant,
        &[
            format!(
                "Let the consumer's commit of {} answer {}.",
                super::describe_batch(&batch, &[0]),
                error.status.name()
            ),
            format!("Then commit_was_applied answered {answer}."),
            format!(
                "Contradiction: the commit {} applied: the committed offset is {:?}.",
                if applied { "had been" } else { "was not" },
                db.committed_offsets(CONSUMER)
            ),
        ],
    ))
}

/// Producer p0 runs three business operations, each through the retry loop. The second
/// is declined by the application after its body ran (a business check fails): the
/// application raises an error the retry loop does not retry, so its transaction rolls
/// back and that operation is over. The first and third commit.
pub fn declined_transaction(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut db = database(COMMIT_FATES);
    let mut producer = Producer {
        actor: "p0",
        writer_id: 0,
        next_seq_no: 1,
        hot_key: 0,
        now: 0,
    };
    // Each attempt runs at a time of its own, which its message carries as write_ts.
    let (mut clock, mut declined_at) = (0, None);
    for operation in 1..=3 {
        for _attempt in 0..ATTEMPTS {
            clock += 1;
            producer.now = clock;
            let mut tx = db.begin();
            if (yours.produce)(&mut db, sim, &mut tx, &mut producer).is_err() {
                db.rollback(sim, "p0", tx);
            } else if operation == 2 {
                sim.note("p0", || {
                    "the application declines the operation: ROLLBACK".into()
                });
                db.rollback(sim, "p0", tx);
                declined_at = Some(clock);
                break;
            } else if db.commit(sim, "p0", tx).is_ok() {
                (yours.produced)(&mut producer);
                break;
            }
        }
    }
    let published: Vec<String> = (db.all_messages().iter())
        .filter(|m| decode_payload(&m.payload).is_some_and(|(_, _, ts)| Some(ts) == declined_at))
        .map(|m| m.payload.clone())
        .collect();
    if published.is_empty() {
        return Ok(());
    }
    Err(Violation::new(
        "a declined business transaction publishes nothing",
        &[
            format!(
                "Let producer p0's second operation run its body at time {} and the \
                 application then decline it: its transaction rolls back and is not retried.",
                declined_at.unwrap_or_default()
            ),
            "Then nothing of that operation exists: not its hot-row bump, not its message.".into(),
            format!(
                "Contradiction: the topic holds {published:?}, written at that time, for an \
                 operation whose transaction never committed; the consumer will put it in the \
                 sink."
            ),
        ],
    ))
}

/// Every schedule of one of the scenarios above with up to `max_faults` faults.
pub fn explore_direct(yours: Protocol, scenario: &'static str, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "10",
        scenario,
        max_faults,
    };
    match scenario {
        "producer" => fault::explore(scope, |sim| producer_retry(yours, sim)),
        "consumer" => fault::explore(scope, |sim| consumer_retry(yours, sim)),
        "declined" => fault::explore(scope, |sim| declined_transaction(yours, sim)),
        _ => fault::explore(scope, |sim| unknown_commit(yours, sim)),
    }
}
