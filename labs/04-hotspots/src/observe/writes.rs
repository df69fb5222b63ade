//! Section 1: where the live inserts land, per key design.

use super::designs::{
    CUSTOMER_FIRST, CUSTOMER_SHARD, REVERSED, SHARD_AFTER_TIME, SHARD_PREFIX, SHARD_THEN_TIME,
    TIMESTAMP_FIRST, measure_design,
};
use crate::scenarios::{HISTORY, LIVE, SHARDS};
use labkit::Observation;
use sim_ranges::{busiest, busiest_share};

/// The multiple-choice bucket of a busiest-split share.
fn share_bucket(share: f64) -> &'static str {
    match share {
        s if s <= 0.19 => "a",
        s if s <= 0.375 => "b",
        s if s <= 0.75 => "c",
        _ => "d",
    }
}

/// The 1-based numbers of the splits that took live inserts.
fn written_splits(writes: &[u64]) -> Vec<usize> {
    (writes.iter().enumerate())
        .filter(|(_, w)| **w > 0)
        .map(|(i, _)| i + 1)
        .collect()
}

pub fn observe(obs: &mut Observation) {
    let time_first = measure_design(&TIMESTAMP_FIRST, SHARDS, false);
    let reversed = measure_design(&REVERSED, SHARDS, false);
    let sharded = measure_design(&SHARD_PREFIX, SHARDS, true);
    obs.ask(
        "With `created_at` first, do all 400 live inserts land in one split?",
        time_first.busiest_share == 1.0,
    );
    obs.ask(
        "With `created_at DESC` first, is the busiest split the table's first split?",
        busiest(&reversed.writes_per_split) == Some(0),
    );
    obs.ask(
        "With the shard prefix (N = 4), does split 1 take any live inserts?",
        sharded.writes_per_split[0] > 0,
    );
    let index = sharded.index_writes_per_split.clone().unwrap_or_default();
    obs.ask("The shard-prefix table gets an index on `created_at`. Do the index's live writes reach more than one of its splits?", busiest_share(&index) < 1.0);
    let sixteen = measure_design(&SHARD_PREFIX, 16, false);
    obs.ask("Variation: the shard prefix with N = 16. Does the busiest split take at most 0.1 of the live inserts?", sixteen.busiest_share <= 0.1);
    let after_time = measure_design(&SHARD_AFTER_TIME, SHARDS, false);
    obs.ask("Variation: with the key `(created_at, shard, order_id)`, does one split take all 400 live inserts?", after_time.busiest_share == 1.0);
    rows_in_hot_split(obs);
    three_shards(obs);
    customer_shard(obs);
    without_order_id(obs);
    customer_first(obs);
}

/// With `created_at` first: the rows split 8 holds after the live inserts.
fn rows_in_hot_split(obs: &mut Observation) {
    let table = super::remedies::time_first_after_live();
    let last = table.data().splits() - 1;
    let rows = (table.data().rows())
        .filter(|(key, _)| table.data().split_of(key) == last)
        .count();
    let answer = match rows {
        100 => "a",
        150 => "b",
        400 => "c",
        500 => "d",
        _ => "?",
    };
    let evidence = format!("split {} holds {rows} rows", last + 1);
    obs.choose(
        "With `created_at` first, how many rows does split 8 hold once the live inserts are in?",
        answer,
        evidence,
    );
}

/// The shard prefix with N = 3: which splits take the live inserts.
fn three_shards(obs: &mut Observation) {
    let three = measure_design(&SHARD_PREFIX, 3, false);
    let written = written_splits(&three.writes_per_split);
    let answer = match written.as_slice() {
        [3, 6, 8] => "a",
        [1, 2, 3] => "b",
        [6, 7, 8] => "c",
        w if w.len() == 8 => "d",
        _ => "?",
    };
    let evidence = format!("writes per split {:?}", three.writes_per_split);
    obs.choose(
        "Variation: the shard prefix with N = 3. Which splits take the live inserts?",
        answer,
        evidence,
    );
}

/// The shard taken from the customer instead of the order.
fn customer_shard(obs: &mut Observation) {
    let m = measure_design(&CUSTOMER_SHARD, SHARDS, false);
    let evidence = format!(
        "writes per split {:?}: the busiest took {:.3}",
        m.writes_per_split, m.busiest_share
    );
    obs.choose("Variation: the shard taken from the customer id instead of the order id (N = 4). What share of the live inserts does the busiest split take?", share_bucket(m.busiest_share), evidence);
}

/// `(shard, created_at)`: the shard prefix without the business key.
fn without_order_id(obs: &mut Observation) {
    let m = measure_design(&SHARD_THEN_TIME, SHARDS, false);
    let refused = m.collisions.len();
    let share = refused as f64 / (HISTORY + LIVE) as f64;
    let answer = match refused {
        0 => "a",
        _ if share <= 0.1 => "b",
        _ if share <= 0.3 => "c",
        _ => "?",
    };
    let evidence = format!("{refused} of {} inserts refused", HISTORY + LIVE);
    obs.choose("Variation: the shard prefix without `order_id`, key `(shard, created_at)` with N = 4. What share of the 1,200 inserts does the store refuse with ALREADY_EXISTS?", answer, evidence);
}

/// `(customer, created_at, order_id)`.
fn customer_first(obs: &mut Observation) {
    let m = measure_design(&CUSTOMER_FIRST, SHARDS, false);
    let written = m.writes_per_split.iter().filter(|&&w| w > 0).count();
    let answer = match m.busiest_share {
        s if (0.25..0.5).contains(&s) && written > SHARDS as usize => "a",
        1.0 => "b",
        s if s <= 0.19 => "c",
        _ => "?",
    };
    let evidence = format!(
        "writes per split {:?}: the busiest took {:.3}",
        m.writes_per_split, m.busiest_share
    );
    obs.choose(
        "Variation: the key `(customer, created_at, order_id)`. Where do the live inserts land?",
        answer,
        evidence,
    );
}
