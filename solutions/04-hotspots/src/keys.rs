//! The reference solution: a shard prefix computed from the business key, then the time,
//! then the business key itself.

use hotspots::world::{Key, KeyRange, Order, Part, shard_of};

// ANCHOR: physical_key
/// `PRIMARY KEY (shard, created_at, order_id)`, where `shard` is a stable hash of
/// `order_id` in `0..shards`. Within a shard the rows stay in time order, so the live
/// inserts go to the end of each of the `shards` key ranges instead of the end of one;
/// the business key ends the key, untouched, so a retry computes the same key.
pub fn physical_key(order: &Order, shards: u32) -> Key {
    Key::new([
        Part::Int(shard_of(&order.order_id, shards)),
        Part::Int(order.created_at),
        Part::from(order.order_id.as_str()),
    ])
}
// ANCHOR_END: physical_key

// ANCHOR: time_window
/// One range per shard: `[(shard, start), (shard, end))`. The query reads `shards`
/// ranges, each of them a contiguous run of one shard's rows in time order.
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
// ANCHOR_END: time_window
