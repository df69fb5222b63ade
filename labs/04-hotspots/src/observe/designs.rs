//! The key designs the observe phase compares, each with the ranges its time-range query
//! reads. `shards` is N for the designs that use it.

use crate::scenarios::{Measurement, SPLITS, columns, measure, workload};
use crate::world::{Key, KeyRange, Order, Part, shard_of};
use sim_ranges::Table;

/// A key design: a name, the key and the query's ranges.
pub struct Design {
    pub name: &'static str,
    pub key: fn(&Order, u32) -> Key,
    pub window: fn(i64, i64, u32) -> Vec<KeyRange>,
}

/// One range per value of the first part, `[(first, start), (first, end))`.
fn per_prefix(firsts: impl Iterator<Item = i64>, start: i64, end: i64) -> Vec<KeyRange> {
    firsts
        .map(|first| {
            KeyRange::new(
                Key::new([Part::Int(first), Part::Int(start)]),
                Key::new([Part::Int(first), Part::Int(end)]),
            )
        })
        .collect()
}

/// The whole key space (every key starts with a number).
fn everything() -> Vec<KeyRange> {
    vec![KeyRange::new(
        Key::default(),
        Key::new([Part::Int(i64::MAX)]),
    )]
}

// ANCHOR: designs
/// `PRIMARY KEY (created_at, order_id)`.
pub const TIMESTAMP_FIRST: Design = Design {
    name: "timestamp first",
    key: |o, _| Key::new([Part::Int(o.created_at), Part::from(o.order_id.as_str())]),
    window: |start, end, _| {
        vec![KeyRange::new(
            Key::new([start.into()]),
            Key::new([end.into()]),
        )]
    },
};

/// `PRIMARY KEY (created_at DESC, order_id)`, modelled as the negated time.
pub const REVERSED: Design = Design {
    name: "reversed timestamp",
    key: |o, _| Key::new([Part::Int(-o.created_at), Part::from(o.order_id.as_str())]),
    window: |start, end, _| {
        // Newest first: the window's last millisecond sorts first.
        let from = Key::new([Part::Int(1 - end)]);
        vec![KeyRange::new(from, Key::new([Part::Int(1 - start)]))]
    },
};

/// A hash of the business key first (like a UUID): `PRIMARY KEY (id_hash, order_id)`.
pub const HASH_FIRST: Design = Design {
    name: "hash first",
    key: |o, _| {
        let hash = shard_of(&o.order_id, u32::MAX);
        Key::new([Part::Int(hash), Part::from(o.order_id.as_str())])
    },
    window: |_, _, _| everything(),
};

/// A shard from the business key's hash, then time, then the business key:
/// `PRIMARY KEY (shard, created_at, order_id)` with `shard` in `0..N`.
pub const SHARD_PREFIX: Design = Design {
    name: "shard prefix",
    key: |o, n| {
        let shard = shard_of(&o.order_id, n);
        Key::new([
            shard.into(),
            o.created_at.into(),
            o.order_id.as_str().into(),
        ])
    },
    window: |start, end, n| per_prefix(0..n as i64, start, end),
};
// ANCHOR_END: designs

/// The shard prefix, with the shard taken from the customer instead of the order.
pub const CUSTOMER_SHARD: Design = Design {
    name: "customer shard",
    key: |o, n| {
        let shard = shard_of(&o.customer.to_string(), n);
        Key::new([
            shard.into(),
            o.created_at.into(),
            o.order_id.as_str().into(),
        ])
    },
    window: |start, end, n| per_prefix(0..n as i64, start, end),
};

/// `PRIMARY KEY (created_at, shard, order_id)`: the shard after the time.
pub const SHARD_AFTER_TIME: Design = Design {
    name: "shard after time",
    key: |o, n| {
        let shard = shard_of(&o.order_id, n);
        Key::new([
            o.created_at.into(),
            shard.into(),
            o.order_id.as_str().into(),
        ])
    },
    window: TIMESTAMP_FIRST.window,
};

/// `PRIMARY KEY (customer, created_at, order_id)`: the customer first.
pub const CUSTOMER_FIRST: Design = Design {
    name: "customer first",
    key: |o, _| {
        Key::new([
            o.customer.into(),
            o.created_at.into(),
            o.order_id.as_str().into(),
        ])
    },
    window: |start, end, _| per_prefix(0..1000, start, end),
};

/// The shard prefix without the business key: `PRIMARY KEY (shard, created_at)`.
pub const SHARD_THEN_TIME: Design = Design {
    name: "shard then time",
    key: |o, n| Key::new([shard_of(&o.order_id, n).into(), o.created_at.into()]),
    window: SHARD_PREFIX.window,
};

/// The shard-prefix table, queried with the time-first design's window.
pub const SHARD_PREFIX_TIME_WINDOW: Design = Design {
    name: "shard prefix, time-first window",
    key: SHARD_PREFIX.key,
    window: TIMESTAMP_FIRST.window,
};

/// Measures `design` with N = `shards`, with or without an index on `created_at`.
pub fn measure_design(design: &Design, shards: u32, with_time_index: bool) -> Measurement {
    measure(
        &|order| (design.key)(order, shards),
        &|start, end| (design.window)(start, end, shards),
        with_time_index,
    )
}

/// Inserts `orders` under `design`'s keys; a refused insert is skipped.
pub fn insert_all(table: &mut Table, design: &Design, shards: u32, orders: &[Order]) {
    for order in orders {
        let _ = table.insert((design.key)(order, shards), columns(order));
    }
}

/// The history under `design`, with an index on `indexed` if given, cut into [`SPLITS`]
/// splits by size; returns the table, the history and the live orders still to come.
pub fn with_history(
    design: &Design,
    shards: u32,
    indexed: Option<&str>,
) -> (Table, Vec<Order>, Vec<Order>) {
    let (history, live) = workload();
    let mut table = Table::new("Orders");
    if let Some(column) = indexed {
        table.create_index("Index", &[column]);
    }
    insert_all(&mut table, design, shards, &history);
    table.split_by_size(SPLITS);
    (table, history, live)
}

/// The table once the history and the live orders are in under `design`.
pub fn written(design: &Design, shards: u32, indexed: Option<&str>) -> (Table, Vec<Order>) {
    let (mut table, history, live) = with_history(design, shards, indexed);
    insert_all(&mut table, design, shards, &live);
    (table, history)
}
