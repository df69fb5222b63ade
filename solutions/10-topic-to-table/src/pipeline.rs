//! The producer transaction and the consumer transaction, solved.
//!
//! The harness runs them inside the SDK's retry loop: it begins a transaction, calls the
//! body, commits when the body returns `Ok`, and on an error (`ABORTED`, `OVERLOADED`,
//! `UNAVAILABLE`, `UNDETERMINED`) rolls the transaction back and calls the body again. After
//! a successful commit of a producer transaction it calls `produced`; after a successful
//! commit of a consumer transaction it feeds the batch to the validator.

use crate::harness::{
    BATCH, CONSUMER, Consumer, Producer, SINK, bump_hot_row, decode_payload, encode_payload,
};
use labkit::fault::Sim;
use sim_topic::{Batch, Tx, Ydb, YdbError};

// ANCHOR: produce
/// One attempt of the producer transaction: bump the producer's hot row (a read-modify-write
/// that takes an optimistic lock) and write the next message with the transactional writer.
/// Both commit together or not at all.
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
    // The sequence number stays: a retried attempt must write the same seq_no, so an
    // aborted attempt leaves no gap, and a commit that was applied although its answer
    // was an error (UNAVAILABLE, UNDETERMINED) is recognised by the topic's deduplication.
    Ok(())
}

/// Called once the producer's transaction has committed: only now is the message durable,
/// so only now does the sequence number move on.
pub fn produced(producer: &mut Producer) {
    producer.next_seq_no += 1;
}
// ANCHOR_END: produce

// ANCHOR: consume
/// One attempt of the consumer transaction: read a batch within the transaction (its offset
/// advance commits with the sink rows, or rolls back with them), validate each message,
/// upsert it into the sink keyed by `(writer_id, seq_no)`, bump the consumer's hot row.
pub fn consume(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    consumer: &Consumer,
) -> Result<Batch, YdbError> {
    let batch = db.receive_batch_with_tx(sim, consumer.actor, tx, CONSUMER, BATCH)?;
    for message in &batch.messages {
        // Validate: the identity is the one embedded in the payload. A malformed payload is
        // not written (the validator skips it too).
        if let Some((writer_id, seq_no, _)) = decode_payload(&message.payload) {
            // Keyed by the message's identity: a redelivery after a rollback upserts the
            // same key again instead of adding a row.
            db.upsert(tx, SINK, (writer_id, seq_no), message.payload.clone());
        }
    }
    bump_hot_row(db, sim, consumer.actor, tx, consumer.hot_key)?;
    Ok(batch)
}
// ANCHOR_END: consume
