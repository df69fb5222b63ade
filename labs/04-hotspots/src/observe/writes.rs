//! Section 1: where the live inserts land, per key design, in the table and in an index.

use super::designs::{
    CUSTOMER_FIRST, CUSTOMER_SHARD, Design, SHARD_PREFIX, SHARD_THEN_TIME, TIMESTAMP_FIRST,
    measure_design, written,
};
use crate::scenarios::SHARDS;
use labkit::Observation;
use sim_ranges::{busiest, busiest_share};

/// The busiest split's share of the live writes of an index on `column`, under `design`.
fn index_busiest_share(design: &Design, column: &str) -> f64 {
    let (table, _) = written(design, SHARDS, Some(column));
    busiest_share(table.index("Index").expect("index").writes_per_split())
}

pub fn observe(obs: &mut Observation) {
    let time_first = measure_design(&TIMESTAMP_FIRST, SHARDS, false);
    let last = time_first.writes_per_split.len() - 1;
    obs.ask(
        "With `TIMESTAMP_FIRST`, does the table's last split take every live insert?",
        time_first.busiest_share == 1.0 && busiest(&time_first.writes_per_split) == Some(last),
    );
    let sharded = measure_design(&SHARD_PREFIX, SHARDS, true);
    obs.ask(
        "With `SHARD_PREFIX` (N = 4), does split 1 take any live inserts?",
        sharded.writes_per_split[0] > 0,
    );
    let sixteen = measure_design(&SHARD_PREFIX, 16, false);
    obs.ask("Variation: `SHARD_PREFIX` with N = 16. Does the busiest split take less than a tenth of the live inserts?", sixteen.busiest_share < 0.1);
    let index = sharded.index_writes_per_split.clone().unwrap_or_default();
    obs.ask("The `SHARD_PREFIX` table (N = 4) gets an index on `created_at`. Does the index's last split take every live write of the index?", index.last().is_some_and(|&w| w > 0) && busiest_share(&index) == 1.0);
    let under_shards = index_busiest_share(&SHARD_PREFIX, "customer");
    let under_time = index_busiest_share(&TIMESTAMP_FIRST, "customer");
    obs.ask("Variation: the index is on `customer` instead. Does its busiest split take a smaller share of the index's live writes under the `SHARD_PREFIX` table (N = 4) than under the `TIMESTAMP_FIRST` table?", under_shards < under_time);
    let customer_first = measure_design(&CUSTOMER_FIRST, SHARDS, false);
    obs.ask(
        "Variation: the key `(customer, created_at, order_id)`. Does split 2 take any live inserts?",
        customer_first.writes_per_split[1] > 0,
    );
    customer_shard(obs);
    without_order_id(obs);
}

/// The shard taken from the customer instead of the order.
fn customer_shard(obs: &mut Observation) {
    let m = measure_design(&CUSTOMER_SHARD, SHARDS, false);
    let answer = match m.busiest_share {
        s if s <= 0.275 => "a",
        s if s <= 0.4 => "b",
        s if s <= 0.625 => "c",
        _ => "d",
    };
    let evidence = format!(
        "writes per split {:?}: the busiest took {:.3}",
        m.writes_per_split, m.busiest_share
    );
    obs.choose("Variation: the shard taken from the customer id instead of the order id (N = 4). What share of the live inserts does the busiest split take?", answer, evidence);
}

/// `(shard, created_at)`: the shard prefix without the business key.
fn without_order_id(obs: &mut Observation) {
    let m = measure_design(&SHARD_THEN_TIME, SHARDS, false);
    let refused = m.collisions.len();
    let answer = match refused {
        0 => "d",
        1..=40 => "c",
        41..=150 => "b",
        _ => "a",
    };
    let evidence = format!("{refused} inserts refused");
    obs.choose("Variation: `SHARD_PREFIX` without `order_id`, key `(shard, created_at)` with N = 4. Of the 1,200 orders, history and live, how many does the store refuse with ALREADY_EXISTS?", answer, evidence);
}
