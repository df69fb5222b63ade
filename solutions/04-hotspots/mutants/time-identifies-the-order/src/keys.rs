//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part, shard_of};

/// The primary key of the order's row.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    // Shard and time already make the key unique: the order id is in its own column.
    Key::new([
        Part::Int(shard_of(&order.order_id, shards)),
        Part::Int(order.created_at),
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
