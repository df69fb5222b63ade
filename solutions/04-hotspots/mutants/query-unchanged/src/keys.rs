//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part, shard_of};

/// The primary key of the order's row.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    Key::new([
        Part::Int(shard_of(&order.order_id, shards)),
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}

/// The key ranges that hold every order created in `[start, end)`.
pub fn time_window(start: i64, end: i64, _shards: u32) -> Vec<KeyRange> {
    // The shard only changes where rows are written; the window is still a time range.
    vec![KeyRange::new(
        Key::new([Part::Int(start)]),
        Key::new([Part::Int(end)]),
    )]
}
