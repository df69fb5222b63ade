//! The producer's transaction, the consumer's transaction and the settling of an unknown
//! commit, solved.

use topic_to_table::world::{
    BATCH, Batch, CONSUMER, Consumer, Producer, SINK, Sim, Tx, Ydb, YdbError, bump_hot_row,
    decode_payload, encode_payload,
};

// ANCHOR: produce
/// One attempt of the producer transaction: bump the producer's hot row and write the
/// next message with the transactional writer. Both commit together or not at all.
pub fn produce(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    producer: &mut Producer,
) -> Result<(), YdbError> {
    bump_hot_row(db, sim, producer.actor, tx, producer.hot_key)?;
    let payload = encode_payload(producer.writer_id, producer.next_seq_no, producer.now);
    tx.write(producer.writer_id, payload);
    // The sequence number stays: a retried attempt writes the same seq_no, so an aborted
    // attempt leaves no gap, and a commit that was applied although its answer was an
    // error comes back as the same message, which the sink's key absorbs.
    Ok(())
}

/// Called once the producer's transaction has committed: only now is the message durable,
/// so only now does the sequence number move on.
pub fn produced(producer: &mut Producer) {
    producer.next_seq_no += 1;
}
// ANCHOR_END: produce

// ANCHOR: consume
/// One attempt of the consumer transaction: read a batch within the transaction (its
/// offset advance commits with the sink rows, or rolls back with them), upsert each
/// message under its identity, bump the consumer's hot row.
pub fn consume(
    db: &mut Ydb,
    sim: &mut Sim,
    tx: &mut Tx,
    consumer: &Consumer,
) -> Result<Batch, YdbError> {
    let batch = db.receive_batch_with_tx(sim, consumer.actor, tx, CONSUMER, BATCH)?;
    for message in &batch.messages {
        // Keyed by the identity the payload carries: a message read again, or written
        // again by a retried producer, lands on the same row.
        if let Some((writer_id, seq_no, _)) = decode_payload(&message.payload) {
            db.upsert(tx, SINK, (writer_id, seq_no), message.payload.clone());
        }
    }
    bump_hot_row(db, sim, consumer.actor, tx, consumer.hot_key)?;
    Ok(batch)
}
// ANCHOR_END: consume

// ANCHOR: applied
/// The answer did not say, so read durable state back: the commit was applied exactly
/// when the consumer's committed offsets moved past the batch.
pub fn commit_was_applied(db: &Ydb, batch: &Batch) -> bool {
    let committed = db.committed_offsets(CONSUMER);
    (batch.ranges.iter()).all(|range| committed[range.partition as usize] >= range.to)
}
// ANCHOR_END: applied
