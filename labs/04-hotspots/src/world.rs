//! What your key design talks to. Complete code: read it, do not change it.
//!
//! An order carries its business key (`order_id`), its customer and the time it was
//! created. The store (`sim-ranges`, modelled on how Spanner places rows) keeps rows
//! sorted by a [`Key`]: a tuple of [`Part`]s compared part by part, where a key that is a
//! prefix of another sorts first, so `(3)` < `(3, "a")` < `(4)`. A [`KeyRange`] is the
//! half-open range `[start, end)`.

pub use sim_ranges::{Key, KeyRange, Part};

use labkit::hash::Fnv64;

/// One order. `order_id` is the stable business key: the same intent always carries the
/// same id, so a retried write can be recognised by it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub order_id: String,
    pub customer: i64,
    /// Simulated time in milliseconds; it never decreases, and several orders can share
    /// a millisecond.
    pub created_at: i64,
}

/// A stable number in `0..shards` computed from `text` alone (FNV-1a): the same text,
/// the same number, in every process and on every retry.
pub fn shard_of(text: &str, shards: u32) -> i64 {
    let mut hash = Fnv64::new();
    hash.write(text.as_bytes());
    (hash.finish() % shards.max(1) as u64) as i64
}
