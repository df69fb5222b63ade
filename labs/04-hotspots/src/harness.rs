//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! A table of orders on the simulated range-partitioned store (`sim-ranges`). A
//! deterministic workload over simulated time: first a history of orders, which the store
//! cuts into [`SPLITS`] splits of equal size (as Spanner splits data that exists), then
//! the live orders, whose writes each split counts. The measurement is what a load
//! rehearsal would record: writes per split, the busiest split's share, and the number of
//! splits the critical query ("orders created in a time window") has to read.

use crate::keys::{physical_key, time_window};
use labkit::fault::{
    self, Exploration, Fate, Glyph, Replay, Rng, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::BarChart;
use labkit::hash::Fnv64;
use sim_ranges::{Columns, Key, KeyRange, Part, Status, Table, busiest_share};

/// N: the number of shards a shard-prefix key may use.
pub const SHARDS: u32 = 4;
/// The number of splits the store cuts the history into.
pub const SPLITS: usize = 8;
/// Orders written before the store splits the table.
pub const HISTORY: usize = 800;
/// Orders written afterwards, while the write counters run.
pub const LIVE: usize = 400;
/// The workload's seed: the same seed, the same orders, the same numbers.
pub const SEED: u64 = 4;

/// One order. `order_id` is the stable business key: the same intent always carries the
/// same id, so a retried write can be recognised by it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub order_id: String,
    pub customer: i64,
    /// Simulated time in milliseconds; it only grows.
    pub created_at: i64,
}

/// The workload: `HISTORY + LIVE` orders over simulated time, 1 to 5 ms apart, with
/// business ids that do not follow time (they come from the customer and a counter).
pub fn workload() -> (Vec<Order>, Vec<Order>) {
    let mut rng = Rng::new(SEED);
    let mut now = 1_000_000;
    let mut orders = Vec::new();
    for n in 0..HISTORY + LIVE {
        now += 1 + rng.below(5) as i64;
        let customer = rng.below(1000) as i64;
        orders.push(Order {
            order_id: format!("c{customer:03}-{n:05}"),
            customer,
            created_at: now,
        });
    }
    let live = orders.split_off(HISTORY);
    (orders, live)
}

/// A stable shard number in `0..shards` computed from the business key alone (FNV-1a),
/// so the same order always lands in the same shard.
pub fn shard_of(order_id: &str, shards: u32) -> i64 {
    let mut hash = Fnv64::new();
    hash.write(order_id.as_bytes());
    (hash.finish() % shards.max(1) as u64) as i64
}

/// The row written for an order: the business key and the time stay columns of their
/// own, whatever the physical key looks like.
pub fn columns(order: &Order) -> Columns {
    let mut row = Columns::new();
    row.insert("order_id".into(), Part::from(order.order_id.as_str()));
    row.insert("customer".into(), Part::Int(order.customer));
    row.insert("created_at".into(), Part::Int(order.created_at));
    row
}

/// The critical query's window: the middle half of the live period.
pub fn query_window(live: &[Order]) -> (i64, i64) {
    let first = live.first().map_or(0, |o| o.created_at);
    let last = live.last().map_or(0, |o| o.created_at);
    let quarter = (last - first) / 4;
    (first + quarter, last - quarter)
}

/// What one key design measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Live writes per split of the table.
    pub writes_per_split: Vec<u64>,
    /// The busiest split's share of the live writes.
    pub busiest_share: f64,
    /// Live writes per split of the index on `created_at`, when the table has one.
    pub index_writes_per_split: Option<Vec<u64>>,
    /// The distinct splits the time-range query read.
    pub query_splits: Vec<usize>,
    /// The order ids the query returned (after filtering on `created_at`), sorted.
    pub query_result: Vec<String>,
    /// The order ids really created inside the window, sorted.
    pub expected_result: Vec<String>,
}

/// Runs the workload through one key design and measures it.
pub fn measure(
    key: &dyn Fn(&Order) -> Key,
    window: &dyn Fn(i64, i64) -> Vec<KeyRange>,
    with_time_index: bool,
) -> Measurement {
    let (history, live) = workload();
    let mut table = Table::new("Orders");
    if with_time_index {
        table.create_index("OrdersByCreatedAt", &["created_at"]);
    }
    for order in &history {
        insert_once(&mut table, key(order), order);
    }
    table.split_by_size(SPLITS);
    for order in &live {
        insert_once(&mut table, key(order), order);
    }
    let (start, end) = query_window(&live);
    let mut query_splits = Vec::new();
    let mut query_result = Vec::new();
    for range in window(start, end) {
        let read = table.read(&range);
        query_splits.extend(read.splits);
        for (_, row) in read.rows {
            // The query's predicate: a range that reads too much is filtered here, a
            // range that reads too little shows up as a missing order.
            if let (Some(Part::Int(t)), Some(Part::Text(id))) =
                (row.get("created_at"), row.get("order_id"))
                && (start..end).contains(t)
            {
                query_result.push(id.clone());
            }
        }
    }
    query_splits.sort_unstable();
    query_splits.dedup();
    query_result.sort();
    let mut expected_result: Vec<String> = history
        .iter()
        .chain(&live)
        .filter(|o| (start..end).contains(&o.created_at))
        .map(|o| o.order_id.clone())
        .collect();
    expected_result.sort();
    let writes_per_split = table.data().writes_per_split().to_vec();
    Measurement {
        busiest_share: busiest_share(&writes_per_split),
        writes_per_split,
        index_writes_per_split: table
            .index("OrdersByCreatedAt")
            .ok()
            .map(|index| index.writes_per_split().to_vec()),
        query_splits,
        query_result,
        expected_result,
    }
}

fn insert_once(table: &mut Table, key: Key, order: &Order) {
    if let Err(status) = table.insert(key, columns(order)) {
        panic!("the workload writes each order once, yet {status}");
    }
}

/// The learner's design, measured.
pub fn measure_learner_design() -> Measurement {
    measure(
        &|order| physical_key(order, SHARDS),
        &|start, end| time_window(start, end, SHARDS),
        false,
    )
}

// ANCHOR: retried_inserts
/// The graded scenario for identity: a writer inserts a few orders; the fault core may
/// lose the response of any insert after the store applied it, and the writer then
/// retries, computing the key again from the order. A stable key makes the retry answer
/// `ALREADY_EXISTS` (the row is there: done); an unstable one writes a second row.
pub fn retried_inserts(sim: &mut Sim) -> Verdict {
    let (_, live) = workload();
    let orders = &live[..4];
    let mut table = Table::new("Orders");
    for order in orders {
        let key = physical_key(order, SHARDS);
        let applied = table.insert(key.clone(), columns(order));
        let fate = sim.fate("insert", &[Fate::Ok, Fate::AppliedResponseLost]);
        sim.event("writer", glyph(fate), || {
            let client = match fate {
                Fate::Ok => format!("insert {} at {key}: ok", order.order_id),
                _ => format!("insert {} at {key}: DEADLINE_EXCEEDED", order.order_id),
            };
            (client, format!("store: {}", describe(&applied)))
        });
        if fate == Fate::AppliedResponseLost {
            let again = physical_key(order, SHARDS);
            let retry = table.insert(again.clone(), columns(order));
            sim.event("writer", Glyph::Normal, || {
                (
                    format!("retry {} at {again}", order.order_id),
                    format!("store: {}", describe(&retry)),
                )
            });
        }
    }
    for order in orders {
        let rows: Vec<&Key> = table
            .data()
            .rows()
            .filter(|(_, row)| row.get("order_id") == Some(&Part::from(order.order_id.as_str())))
            .map(|(key, _)| key)
            .collect();
        if rows.len() != 1 {
            let keys: Vec<String> = rows.iter().map(|k| k.to_string()).collect();
            return Err(Violation::new(
                "one row per business key",
                &[
                    format!("Let order {} be written once and retried once.", order.order_id),
                    format!("Then the table holds {} rows for it: {}.", rows.len(), keys.join(", ")),
                    "Contradiction: a retry computed a different physical key, so the store could not recognise it."
                        .to_string(),
                ],
            ));
        }
    }
    Ok(())
}
// ANCHOR_END: retried_inserts

fn glyph(fate: Fate) -> Glyph {
    if fate.is_indefinite() {
        Glyph::Indefinite
    } else {
        Glyph::Normal
    }
}

fn describe(result: &Result<(), Status>) -> String {
    match result {
        Ok(()) => "row inserted".into(),
        Err(status) => status.to_string(),
    }
}

/// Explores every schedule of lost responses (up to four, one per order).
pub fn explore_retried_inserts() -> Exploration {
    let scope = Scope {
        lab: "04",
        scenario: "retried-inserts",
        max_faults: 4,
    };
    fault::explore(scope, retried_inserts)
}

fn replay_retried_inserts(token: &Token) -> Replay {
    fault::replay(token, retried_inserts)
}

/// The scenarios `cargo labs replay 04 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("retried-inserts", replay_retried_inserts)];

/// A key design the observe phase compares: a name, the key and the query's ranges.
pub struct Design {
    pub name: &'static str,
    pub key: fn(&Order) -> Key,
    pub window: fn(i64, i64) -> Vec<KeyRange>,
}

// ANCHOR: designs
/// `PRIMARY KEY (created_at, order_id)`.
pub const TIMESTAMP_FIRST: Design = Design {
    name: "timestamp first",
    key: |o| Key::new([Part::Int(o.created_at), Part::from(o.order_id.as_str())]),
    window: |start, end| {
        vec![KeyRange::new(
            Key::new([Part::Int(start)]),
            Key::new([Part::Int(end)]),
        )]
    },
};

/// The same key in descending order: `PRIMARY KEY (created_at DESC, order_id)`,
/// modelled as the negated time.
pub const REVERSED: Design = Design {
    name: "reversed timestamp",
    key: |o| Key::new([Part::Int(-o.created_at), Part::from(o.order_id.as_str())]),
    window: |start, end| {
        vec![KeyRange::new(
            Key::new([Part::Int(-end + 1)]),
            Key::new([Part::Int(-start + 1)]),
        )]
    },
};

/// A hash of the business key first (like a UUID): `PRIMARY KEY (id_hash, order_id)`.
/// Nothing in the key follows time, so a time query has to read the whole table.
pub const HASH_FIRST: Design = Design {
    name: "hash first",
    key: |o| {
        Key::new([
            Part::Int(shard_of(&o.order_id, u32::MAX)),
            Part::from(o.order_id.as_str()),
        ])
    },
    window: |_, _| {
        vec![KeyRange::new(
            Key::default(),
            Key::new([Part::Int(i64::MAX)]),
        )]
    },
};

/// A shard prefix from the business key's hash, then time, then the business key:
/// `PRIMARY KEY (shard, created_at, order_id)`.
pub const SHARD_PREFIX: Design = Design {
    name: "shard prefix",
    key: |o| {
        Key::new([
            Part::Int(shard_of(&o.order_id, SHARDS)),
            Part::Int(o.created_at),
            Part::from(o.order_id.as_str()),
        ])
    },
    window: |start, end| {
        (0..SHARDS as i64)
            .map(|s| {
                KeyRange::new(
                    Key::new([Part::Int(s), Part::Int(start)]),
                    Key::new([Part::Int(s), Part::Int(end)]),
                )
            })
            .collect()
    },
};
// ANCHOR_END: designs

/// Measures one of the observe phase's designs.
pub fn measure_design(design: &Design, with_time_index: bool) -> Measurement {
    measure(&design.key, &design.window, with_time_index)
}

/// The bar chart of writes per split, and the same numbers as a Markdown table.
pub fn figures() -> Vec<(&'static str, String)> {
    let rows: Vec<(String, Vec<u64>)> = writes_by_design();
    let chart = BarChart {
        title: format!("Live writes per split ({LIVE} inserts, {SPLITS} splits, N = {SHARDS})"),
        y_label: "writes".into(),
        categories: (1..=SPLITS).map(|s| format!("split {s}")).collect(),
        series: rows
            .iter()
            .map(|(name, writes)| (name.clone(), writes.iter().map(|&w| w as f64).collect()))
            .collect(),
    };
    let mut table = String::from("| design |");
    for s in 1..=SPLITS {
        table.push_str(&format!(" split {s} |"));
    }
    table.push_str(" busiest share |\n|---|");
    table.push_str(&"---:|".repeat(SPLITS + 1));
    table.push('\n');
    for (name, writes) in &rows {
        table.push_str(&format!("| {name} |"));
        for w in writes {
            table.push_str(&format!(" {w} |"));
        }
        table.push_str(&format!(" {:.2} |\n", busiest_share(writes)));
    }
    vec![
        ("04-writes-per-split.svg", chart.to_svg()),
        ("04-writes-per-split.md", table),
    ]
}

/// Writes per split for each design of the observe phase, plus the time index of the
/// shard-prefix table.
pub fn writes_by_design() -> Vec<(String, Vec<u64>)> {
    let mut rows = Vec::new();
    for design in [&TIMESTAMP_FIRST, &REVERSED, &HASH_FIRST, &SHARD_PREFIX] {
        rows.push((
            design.name.to_string(),
            measure_design(design, false).writes_per_split,
        ));
    }
    let indexed = measure_design(&SHARD_PREFIX, true);
    rows.push((
        "index on created_at".to_string(),
        indexed.index_writes_per_split.unwrap_or_default(),
    ));
    rows
}
