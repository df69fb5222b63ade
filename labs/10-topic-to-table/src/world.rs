//! The world your pipeline talks to (complete; you do not edit it): the names of the
//! tables and the consumer, the producer and the consumer as the harness hands them to
//! you, the message codec, and the hot-row bump every transaction makes. It also
//! re-exports the simulated database's types, so `pipeline.rs` needs only this module.

pub use labkit::fault::Sim;
pub use sim_topic::{Batch, Tx, Ydb, YdbError};

/// The contention table: a few hot rows every transaction reads and bumps.
pub const HOT: &str = "hot";
/// The sink table, keyed by `(writer_id, seq_no)`.
pub const SINK: &str = "sink";
/// The consumer (group) name whose offsets the topic keeps.
pub const CONSUMER: &str = "sink-writer";
/// The largest batch a consumer transaction reads.
pub const BATCH: usize = 8;

/// One producer: a writer id, its next sequence number and the hot row it bumps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// The name in timelines.
    pub actor: &'static str,
    pub writer_id: i64,
    /// The sequence number the next message gets (the first is 1).
    pub next_seq_no: i64,
    /// `writer_id % hot_keys`: the row of `hot` this producer's transactions bump.
    pub hot_key: i64,
    /// The current time on the logical clock, for the message's `write_ts`.
    pub now: u64,
}

/// The consumer: its name and the hot row it bumps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consumer {
    pub actor: &'static str,
    pub reader_id: i64,
    pub hot_key: i64,
}

/// A self-describing payload, as in the seed: `writer_id:seq_no:write_ts:<padding>`.
pub fn encode_payload(writer_id: i64, seq_no: i64, write_ts: u64) -> String {
    format!("{writer_id}:{seq_no}:{write_ts}:pad")
}

/// `(writer_id, seq_no, write_ts)` from a payload, or `None` when it is malformed.
pub fn decode_payload(payload: &str) -> Option<(i64, i64, u64)> {
    let mut parts = payload.split(':');
    let writer_id = parts.next()?.parse().ok()?;
    let seq_no = parts.next()?.parse().ok()?;
    let write_ts = parts.next()?.parse().ok()?;
    Some((writer_id, seq_no, write_ts))
}

/// Reads hot row `key` (taking an optimistic lock on it) and upserts it plus one.
pub fn bump_hot_row(
    db: &mut Ydb,
    sim: &mut Sim,
    actor: &'static str,
    tx: &mut Tx,
    key: i64,
) -> Result<(), YdbError> {
    let value = db.select(sim, actor, tx, HOT, (key, 0))?;
    let value: i64 = value.and_then(|v| v.parse().ok()).unwrap_or(0);
    db.upsert(tx, HOT, (key, 0), (value + 1).to_string());
    Ok(())
}
