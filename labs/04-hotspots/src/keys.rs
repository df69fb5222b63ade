//! **Your part.** The physical key of an order's row, and the key ranges the critical
//! query reads.
//!
//! The store keeps rows in key order and cuts them into splits; each split is served by
//! one server. Your key decides where the live inserts land (the graded suite measures
//! the busiest split's share of them) and how many splits the query "orders created in
//! `[start, end)`" must read (its fan-out). Keep the business key, `order_id`, intact in
//! the key: a retried insert must find the row it already wrote.
//!
//! Tools: `crate::harness::shard_of(order_id, shards)` is a stable hash of the business
//! key in `0..shards`. `Key::new([Part::Int(..), Part::from(..)])` builds a key;
//! `KeyRange::new(start, end)` is the half-open range `[start, end)`, and a key that is a
//! prefix of another sorts first.

use crate::harness::Order;
use sim_ranges::{Key, KeyRange, Part};

// ANCHOR: physical_key
/// The primary key of the order's row.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    // TODO: time first sends every new insert to the split at the end of the key space.
    // Put something before the time that spreads the writes over `shards` ranges and
    // that is computed from the business key alone, so a retry computes the same key.
    let _ = shards;
    Key::new([
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}
// ANCHOR_END: physical_key

// ANCHOR: time_window
/// The key ranges that hold every order created in `[start, end)`. Reading more than
/// that is allowed (the query filters on `created_at`); reading less loses orders.
pub fn time_window(start: i64, end: i64, shards: u32) -> Vec<KeyRange> {
    // TODO: with a prefix before the time, one range per prefix value.
    let _ = shards;
    vec![KeyRange::new(
        Key::new([Part::Int(start)]),
        Key::new([Part::Int(end)]),
    )]
}
// ANCHOR_END: time_window
