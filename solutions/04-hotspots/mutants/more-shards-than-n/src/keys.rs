//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part, shard_of};

/// One shard per split of the table.
const MANY_SHARDS: u32 = 8;

/// The primary key of the order's row.
pub fn physical_key(order: &Order, _shards: u32) -> Key {
    // More shards than asked for: the more places inserts land, the better.
    Key::new([
        Part::Int(shard_of(&order.order_id, MANY_SHARDS)),
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}

/// The key ranges that hold every order created in `[start, end)`.
pub fn time_window(start: i64, end: i64, _shards: u32) -> Vec<KeyRange> {
    (0..MANY_SHARDS as i64)
        .map(|shard| {
            KeyRange::new(
                Key::new([Part::Int(shard), Part::Int(start)]),
                Key::new([Part::Int(shard), Part::Int(end)]),
            )
        })
        .collect()
}
