//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Key, KeyRange, Order, Part};

/// The primary key of the order's row.
pub fn physical_key(order: &Order, _shards: u32) -> Key {
    // Newest first: descending time keeps the inserts away from the end of the table.
    Key::new([
        Part::Int(-order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}

/// The key ranges that hold every order created in `[start, end)`.
pub fn time_window(start: i64, end: i64, _shards: u32) -> Vec<KeyRange> {
    vec![KeyRange::new(
        Key::new([Part::Int(1 - end)]),
        Key::new([Part::Int(1 - start)]),
    )]
}
