//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_SHARD: AtomicU64 = AtomicU64::new(0);

/// The primary key of the order's row.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    // Deal the orders out to the shards in turn: a perfectly even spread.
    let shard = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % shards.max(1) as u64;
    Key::new([
        Part::Int(shard as i64),
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}

/// The key ranges that hold every order created in `[start, end)`.
pub fn time_window(start: i64, end: i64, shards: u32) -> Vec<KeyRange> {
    (0..shards as i64)
        .map(|shard| {
            KeyRange::new(
                Key::new([Part::Int(shard), Part::Int(start)]),
                Key::new([Part::Int(shard), Part::Int(end)]),
            )
        })
        .collect()
}
