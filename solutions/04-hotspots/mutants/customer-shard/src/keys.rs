//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part, shard_of};

/// The primary key of the order's row.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    // A customer's orders stay together in one shard, in time order.
    Key::new([
        Part::Int(shard_of(&order.customer.to_string(), shards)),
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
