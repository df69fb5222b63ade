//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part, shard_of};

/// The table has four shards: the number is part of the schema.
const SHARDS: u32 = 4;

/// The primary key of the order's row.
pub fn physical_key(order: &Order, _shards: u32) -> Key {
    Key::new([
        Part::Int(shard_of(&order.order_id, SHARDS)),
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}

/// The key ranges that hold every order created in `[start, end)`.
pub fn time_window(start: i64, end: i64, _shards: u32) -> Vec<KeyRange> {
    (0..SHARDS as i64)
        .map(|shard| {
            KeyRange::new(
                Key::new([Part::Int(shard), Part::Int(start)]),
                Key::new([Part::Int(shard), Part::Int(end)]),
            )
        })
        .collect()
}
