//! The graded worlds: a table of orders on the simulated range-partitioned store, a
//! deterministic workload over simulated time, and the measurement a load rehearsal
//! would record. First a history of orders, which the store cuts into [`SPLITS`] splits
//! of equal size (as Spanner splits data that exists); then the live orders, whose
//! writes each split counts; then the critical query, "orders created in a time window".
//! Also the exploration of retried inserts, `cargo labs replay 04 retried-inserts TOKEN`.

use crate::invariants;
use crate::world::{Key, KeyRange, Order, Part};
use labkit::fault::{self, Exploration, Fate, Glyph, Replay, Rng, Scope, Sim, Token, Verdict};
use sim_ranges::{Columns, Table, busiest_share};

/// Your functions from `keys.rs`, as the workload and the graded scenario call them
/// (`learner!`).
#[derive(Clone, Copy)]
pub struct Design {
    pub physical_key: fn(&Order, u32) -> Key,
    pub time_window: fn(i64, i64, u32) -> Vec<KeyRange>,
}

/// N: the number of shards the graded design may use.
pub const SHARDS: u32 = 4;
/// The number of splits the store cuts the history into.
pub const SPLITS: usize = 8;
/// Orders written before the store splits the table.
pub const HISTORY: usize = 800;
/// Orders written afterwards, while the write counters run.
pub const LIVE: usize = 400;
/// The workload's seed: the same seed, the same orders, the same numbers.
pub const SEED: u64 = 4;
/// The customer who places about three orders in ten.
pub const BIG_CUSTOMER: i64 = 42;

/// The workload: `HISTORY + LIVE` orders over simulated time, 0 to 4 ms apart (so some
/// share a millisecond), about three in ten from [`BIG_CUSTOMER`], with business ids
/// that do not follow time (they come from the customer and a counter).
pub fn workload() -> (Vec<Order>, Vec<Order>) {
    let mut rng = Rng::new(SEED);
    let mut now = 1_000_000;
    let mut orders = Vec::new();
    for n in 0..HISTORY + LIVE {
        now += rng.below(5) as i64;
        let customer = if rng.chance(3, 10) {
            BIG_CUSTOMER
        } else {
            rng.below(1000) as i64
        };
        orders.push(Order {
            order_id: format!("c{customer:03}-{n:05}"),
            customer,
            created_at: now,
        });
    }
    let live = orders.split_off(HISTORY);
    (orders, live)
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

/// The critical query's window, `[start, end)`: the middle half of the live period,
/// starting at the millisecond of the first live order created a quarter of the way in,
/// so that orders sit on its start, as they do on any boundary a busy table's query
/// names.
pub fn query_window(live: &[Order]) -> (i64, i64) {
    let first = live.first().map_or(0, |o| o.created_at);
    let last = live.last().map_or(0, |o| o.created_at);
    let quarter = (last - first) / 4;
    let start = live
        .iter()
        .map(|o| o.created_at)
        .find(|&t| t >= first + quarter)
        .unwrap_or(first + quarter);
    (start, last - quarter)
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
    /// The rows the query's ranges held, before it filtered on `created_at`.
    pub rows_read: usize,
    /// The order ids the query returned (after filtering on `created_at`), sorted.
    pub query_result: Vec<String>,
    /// The order ids really created inside the window, sorted.
    pub expected_result: Vec<String>,
    /// Orders refused because another order held their key: (refused, holder).
    pub collisions: Vec<(String, String)>,
}

/// Inserts `order` under `key`; a refusal is recorded with the order that holds the key.
fn insert(table: &mut Table, key: Key, order: &Order, collisions: &mut Vec<(String, String)>) {
    if table.insert(key.clone(), columns(order)).is_err() {
        let holder = match table.data().get(&key).and_then(|row| row.get("order_id")) {
            Some(Part::Text(id)) => id.clone(),
            _ => String::new(),
        };
        collisions.push((order.order_id.clone(), holder));
    }
}

/// Runs the query's ranges over `table`: the splits read, the rows read, and the ids of
/// the rows created in `[start, end)`, sorted.
fn run_query(
    table: &Table,
    ranges: Vec<KeyRange>,
    (start, end): (i64, i64),
) -> (Vec<usize>, usize, Vec<String>) {
    let (mut splits, mut rows_read, mut found) = (Vec::new(), 0, Vec::new());
    for range in ranges {
        let read = table.read(&range);
        splits.extend(read.splits);
        rows_read += read.rows.len();
        for (_, row) in read.rows {
            // The query's predicate: a range that reads too much is filtered here, a
            // range that reads too little shows up as a missing order.
            if let (Some(Part::Int(t)), Some(Part::Text(id))) =
                (row.get("created_at"), row.get("order_id"))
                && (start..end).contains(t)
            {
                found.push(id.clone());
            }
        }
    }
    splits.sort_unstable();
    splits.dedup();
    found.sort();
    (splits, rows_read, found)
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
    let mut collisions = Vec::new();
    for order in &history {
        insert(&mut table, key(order), order, &mut collisions);
    }
    table.split_by_size(SPLITS);
    for order in &live {
        insert(&mut table, key(order), order, &mut collisions);
    }
    let (start, end) = query_window(&live);
    let (query_splits, rows_read, query_result) =
        run_query(&table, window(start, end), (start, end));
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
        rows_read,
        query_result,
        expected_result,
        collisions,
    }
}

/// Your design, measured with `shards` shards.
pub fn measure_learner_design(yours: Design, shards: u32) -> Measurement {
    measure(
        &|order| (yours.physical_key)(order, shards),
        &|start, end| (yours.time_window)(start, end, shards),
        false,
    )
}

// ANCHOR: retried_inserts
/// The graded scenario for identity: a writer inserts a few orders; the fault core may
/// lose the response of any insert after the store applied it, and the writer then
/// retries, computing the key again from the order. A stable key makes the retry
/// answer `ALREADY_EXISTS` (the row is there: done); an unstable one writes a second
/// row.
pub fn retried_inserts(yours: Design, sim: &mut Sim) -> Verdict {
    let (_, live) = workload();
    let orders = &live[..4];
    let mut table = Table::new("Orders");
    for order in orders {
        let key = (yours.physical_key)(order, SHARDS);
        let applied = table.insert(key.clone(), columns(order));
        let fate = sim.fate("insert", &[Fate::Ok, Fate::AppliedResponseLost]);
        let glyph = if fate.is_indefinite() {
            Glyph::Indefinite
        } else {
            Glyph::Normal
        };
        sim.event("writer", glyph, || {
            let answer = match fate {
                Fate::Ok => "ok",
                _ => "DEADLINE_EXCEEDED",
            };
            let client = format!("insert {} at {key}: {answer}", order.order_id);
            (client, format!("store: {}", invariants::describe(&applied)))
        });
        if fate == Fate::AppliedResponseLost {
            let again = (yours.physical_key)(order, SHARDS);
            let retry = table.insert(again.clone(), columns(order));
            sim.event("writer", Glyph::Normal, || {
                let client = format!("retry {} at {again}", order.order_id);
                (client, format!("store: {}", invariants::describe(&retry)))
            });
        }
    }
    invariants::one_row_per_business_key(&table, orders)
}
// ANCHOR_END: retried_inserts

/// Explores every schedule of lost responses (up to four, one per order).
pub fn explore_retried_inserts(yours: Design) -> Exploration {
    let scope = Scope {
        lab: "04",
        scenario: "retried-inserts",
        max_faults: 4,
    };
    fault::explore(scope, |sim| retried_inserts(yours, sim))
}

fn replay_retried_inserts(yours: Design, token: &Token) -> Replay {
    fault::replay(token, |sim| retried_inserts(yours, sim))
}

/// The scenarios `cargo labs replay 04 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Design>)] =
    &[("retried-inserts", replay_retried_inserts)];
