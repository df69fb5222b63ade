//! Variations the chapter does not walk through, each run here so that the answers to the
//! questions about them are observed: a sequence number moved inside the body, an unknown
//! commit taken for a failure, an unknown commit under either retry setting, a
//! writer restarted with the SDK's default producer id.

use super::protocols::{
    ONE_TRANSACTION, consume_in_tx, produce_in_tx, produce_outside_moving_seq_no, upsert_batch,
};
use crate::scenarios::{Config, Protocol, run_pipeline};
use crate::world::{
    Batch, CONSUMER, Consumer, HOT, Producer, SINK, Sim, Tx, Ydb, YdbError, decode_payload,
    encode_payload,
};
use sim_topic::{Chaos, RetrySettings};

/// Commit faults and lock breaks, no killed connection.
const COMMIT_FAULTS: Chaos = Chaos {
    kill_connections: false,
    ..Chaos::ALL
};

fn producer() -> Producer {
    Producer {
        actor: "p0",
        writer_id: 0,
        next_seq_no: 1,
        hot_key: 0,
        now: 0,
    }
}

/// Producer p0 sends one message with `protocol` under `chaos`, the faults it meets picked
/// by `path`, until a commit returns Ok. Returns the database.
pub(super) fn one_message(chaos: Chaos, protocol: Protocol, path: &[usize]) -> Ydb {
    let mut db = Ydb::in_memory(1, chaos);
    db.create_table(HOT);
    db.create_table(SINK);
    let mut sim = Sim::replaying(path);
    let mut p = producer();
    for _attempt in 0..path.len() + 1 {
        let mut tx = db.begin();
        if (protocol.produce)(&mut db, &mut sim, &mut tx, &mut p).is_err() {
            db.rollback(&mut sim, "p0", tx);
            continue;
        }
        if db.commit(&mut sim, "p0", tx).is_ok() {
            (protocol.produced)(&mut p);
            break;
        }
    }
    db
}

/// Drains the topic into the sink with the one-transaction consumer, fault-free.
pub(super) fn drain(db: &mut Ydb) {
    let mut sim = Sim::fault_free();
    let consumer = Consumer {
        actor: "consumer",
        reader_id: 0,
        hot_key: 0,
    };
    loop {
        let mut tx = db.begin();
        let batch = consume_in_tx(db, &mut sim, &mut tx, &consumer).expect("fault-free");
        if batch.messages.is_empty() {
            break;
        }
        db.commit(&mut sim, "consumer", tx).expect("fault-free");
    }
}

/// The starter's producer: the sequence number moves inside the body.
fn produce_moving_seq_no(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    producer: &mut Producer,
) -> Result<(), YdbError> {
    produce_in_tx(db, sim, tx, producer)?;
    producer.next_seq_no += 1;
    Ok(())
}

/// That producer (writing with the plain writer when `plain`, through `tx_writer`
/// otherwise) sends two messages; the first one's first commit is ABORTED. Returns the
/// seq_nos the topic holds, in the topic's order.
pub fn seq_no_moved_in_the_body(plain: bool) -> Vec<i64> {
    let produce = if plain {
        produce_outside_moving_seq_no
    } else {
        produce_moving_seq_no
    };
    let protocol = Protocol {
        produce,
        produced: |_| {},
        ..ONE_TRANSACTION
    };
    let mut db = Ydb::in_memory(1, COMMIT_FAULTS);
    db.create_table(HOT);
    let mut sim = Sim::replaying(&[1, 0, 0]);
    let mut p = producer();
    for _message in 0..2 {
        for _attempt in 0..2 {
            let mut tx = db.begin();
            (protocol.produce)(&mut db, &mut sim, &mut tx, &mut p).expect("no kill");
            if db.commit(&mut sim, "p0", tx).is_ok() {
                break;
            }
        }
    }
    (db.all_messages().iter())
        .filter_map(|m| decode_payload(&m.payload).map(|(_, seq_no, _)| seq_no))
        .collect()
}

/// A consumer commit of 0#1 and 0#2 is applied but answers UNAVAILABLE; the application
/// takes the error for a failure and validates nothing. Returns how many times the
/// validator is fed 0#1 before the consumer finds nothing more to read.
pub fn unknown_commit_taken_for_a_failure() -> usize {
    let mut db = Ydb::in_memory(
        1,
        Chaos {
            commit_faults: true,
            ..Chaos::NONE
        },
    );
    db.create_table(SINK);
    // Without lock breaks a commit's options are: 0 ok, 1 OVERLOADED, 2 UNAVAILABLE
    // applied, …; the plain writes meet no choice.
    let mut sim = Sim::replaying(&[2]);
    for seq_no in 1..=2 {
        let written = db.write(&mut sim, "p0", 0, encode_payload(0, seq_no, 0));
        written.expect("no connection is killed here");
    }
    let mut fed = 0;
    loop {
        let mut tx = db.begin();
        let batch = db.receive_batch_with_tx(&mut sim, "consumer", &mut tx, CONSUMER, 8);
        let batch = batch.expect("reads meet no faults here");
        if batch.messages.is_empty() {
            return fed;
        }
        upsert_batch(&db, &mut tx, &batch);
        if db.commit(&mut sim, "consumer", tx).is_ok() && holds_first(&batch) {
            fed += 1;
        }
    }
}

fn holds_first(batch: &Batch) -> bool {
    (batch.messages.iter()).any(|m| decode_payload(&m.payload).is_some_and(|(_, s, _)| s == 1))
}

/// One producer with one message and one consumer, under `RetrySettings` with
/// `idempotent`: the producer's first commit is applied but answers UNAVAILABLE. Returns
/// how many messages the topic holds at the end of the run.
pub fn copies_after_an_unavailable_commit(idempotent: bool) -> i64 {
    let config = Config {
        producers: 1,
        messages_per_producer: 1,
        hot_keys: 1,
        partitions: 1,
        chaos: Chaos {
            commit_faults: true,
            ..Chaos::NONE
        },
        retry: RetrySettings {
            idempotent,
            ..RetrySettings::default()
        },
    };
    // The producer's commit is the run's first choice; without lock breaks its options
    // are 0 ok, 1 OVERLOADED, 2 UNAVAILABLE applied, …
    let outcome = run_pipeline(&mut Sim::replaying(&[2]), config, ONE_TRANSACTION);
    assert_eq!(outcome.signals.unavailable, 1, "the scripted fault");
    assert!(outcome.producers_finished && outcome.drained);
    outcome.end_offsets.iter().sum()
}

/// A producer that numbers its messages itself (`auto_seqno=False`) and leaves `producer_id`
/// at the SDK's default, a random id per writer. Its commit of 0#2 is applied but answers
/// UNAVAILABLE; the process restarts, and the new writer sends 0#2 again under seq_no 2.
/// Returns how many copies of 0#2 the topic holds.
pub fn copies_after_a_restart_with_a_random_producer_id() -> usize {
    let mut db = Ydb::in_memory(
        1,
        Chaos {
            commit_faults: true,
            ..Chaos::NONE
        },
    );
    // Without lock breaks a commit's options are: 0 ok, 1 OVERLOADED, 2 UNAVAILABLE
    // applied, …: 0#1 commits, 0#2 is applied but answers UNAVAILABLE, the resend commits.
    let mut sim = Sim::replaying(&[0, 2, 0]);
    let first_process = db.random_producer_id();
    for seq_no in 1..=2 {
        let mut tx = db.begin();
        tx.write_with_seq_no(first_process, seq_no, encode_payload(0, seq_no, 0));
        let _unknown = db.commit(&mut sim, "p0", tx);
    }
    let after_restart = db.random_producer_id();
    let mut tx = db.begin();
    tx.write_with_seq_no(after_restart, 2, encode_payload(0, 2, 0));
    db.commit(&mut sim, "p0", tx)
        .expect("the scripted run commits");
    (db.all_messages().iter())
        .filter(|m| decode_payload(&m.payload).is_some_and(|(_, seq_no, _)| seq_no == 2))
        .count()
}
