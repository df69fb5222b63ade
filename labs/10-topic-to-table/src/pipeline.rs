//! Your part: the producer transaction and the consumer transaction.
//!
//! The harness runs them inside the SDK's retry loop: it begins a transaction, calls your
//! body, commits the transaction when the body returns `Ok`, and on an error (`ABORTED`,
//! `OVERLOADED`, `UNAVAILABLE`, `UNDETERMINED`) rolls it back and calls the body again (with
//! backoff on the simulated clock). After a successful commit of a producer transaction it calls
//! `produced`; after a successful commit of a consumer transaction it feeds the batch to the
//! validator.
//!
//! The graded suite checks, under seeded chaos and forced lock conflicts: no forward gap in
//! any producer's sequence (lost = 0), the sink holds every committed message exactly once
//! (an audit reads the whole table back), and lock conflicts did happen (aborts > 0).

use crate::harness::{
    BATCH, CONSUMER, Consumer, Producer, SINK, bump_hot_row, decode_payload, encode_payload,
};
use labkit::fault::Sim;
use sim_topic::{Batch, Tx, Ydb, YdbError};

// ANCHOR: produce
/// One attempt of the producer transaction: bump the producer's hot row (a read-modify-write
/// that takes an optimistic lock) and write the next message with the transactional writer.
pub fn produce(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    producer: &mut Producer,
) -> Result<(), YdbError> {
    bump_hot_row(db, sim, producer.actor, tx, producer.hot_key)?;
    let seq_no = producer.next_seq_no;
    let payload = encode_payload(producer.writer_id, seq_no, producer.now);
    tx.write(producer.writer_id, seq_no, payload);
    // TODO: this attempt may still be aborted or fail at commit, and the retry loop will
    // call `produce` again. Should the sequence number move here?
    producer.next_seq_no += 1;
    Ok(())
}

/// Called once the producer's transaction has committed.
pub fn produced(producer: &mut Producer) {
    // TODO: what is known only now, after the commit returned Ok?
    let _ = producer;
}
// ANCHOR_END: produce

// ANCHOR: consume
/// One attempt of the consumer transaction: read a batch, validate each message, upsert it
/// into the sink keyed by `(writer_id, seq_no)`, bump the consumer's hot row. Returns the
/// batch, which the harness validates after the commit.
pub fn consume(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    consumer: &Consumer,
) -> Result<Batch, YdbError> {
    // TODO: this reads the batch and commits its offset on its own, outside `tx`. If `tx`
    // is then aborted, where does the retried attempt start reading?
    let batch = db.read_batch(sim, consumer.actor, CONSUMER, BATCH)?;
    db.commit_offsets(sim, consumer.actor, CONSUMER, &batch)?;
    for message in &batch.messages {
        if let Some((writer_id, seq_no, _)) = decode_payload(&message.payload) {
            db.upsert(tx, SINK, (writer_id, seq_no), message.payload.clone());
        }
    }
    bump_hot_row(db, sim, consumer.actor, tx, consumer.hot_key)?;
    Ok(batch)
}
// ANCHOR_END: consume
