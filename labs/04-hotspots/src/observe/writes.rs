//! Section 1: where the live inserts land, per key design.

use super::designs::{
    CUSTOMER_FIRST, CUSTOMER_SHARD, REVERSED, SHARD_AFTER_TIME, SHARD_PREFIX, TIMESTAMP_FIRST,
    measure_design,
};
use crate::scenarios::SHARDS;
use labkit::Observation;
use sim_ranges::{busiest, busiest_share};

/// The limit the graded suite sets on the busiest split's share: 1.5/N.
pub fn limit(shards: u32) -> f64 {
    1.5 / shards as f64
}

/// The multiple-choice bucket of a busiest-split share.
fn share_bucket(share: f64) -> &'static str {
    match share {
        s if s <= 0.19 => "a",
        s if s <= 0.375 => "b",
        s if s <= 0.75 => "c",
        _ => "d",
    }
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
    obs.ask("With the shard prefix (N = 4), does the busiest split take at most 0.375 (1.5/N) of the live inserts?", sharded.busiest_share <= limit(SHARDS));
    let index = sharded.index_writes_per_split.clone().unwrap_or_default();
    obs.ask("The shard-prefix table gets an index on `created_at`. Do the index's live writes reach more than one of its splits?", busiest_share(&index) < 1.0);
    let customer_shard = measure_design(&CUSTOMER_SHARD, SHARDS, false);
    obs.ask("Variation: with the shard computed from the customer id instead of the order id, does the busiest split take at most 0.375?", customer_shard.busiest_share <= limit(SHARDS));
    let after_time = measure_design(&SHARD_AFTER_TIME, SHARDS, false);
    obs.ask("Variation: with the key `(created_at, shard, order_id)`, do the live inserts land in more than one split?", after_time.busiest_share < 1.0);

    let hottest = busiest(&time_first.writes_per_split).map_or(0, |s| s + 1);
    let answer = match hottest {
        8 => "a",
        1 => "b",
        4 => "c",
        _ => "d",
    };
    let evidence = format!("writes per split {:?}", time_first.writes_per_split);
    obs.choose(
        "With `created_at` first, which split takes the most live inserts?",
        answer,
        evidence,
    );
    let written = sharded.writes_per_split.iter().filter(|&&w| w > 0).count();
    let answer = match written {
        1 => "a",
        4 => "b",
        8 => "c",
        _ => "?",
    };
    let evidence = format!("writes per split {:?}", sharded.writes_per_split);
    obs.choose(
        "With the shard prefix (N = 4), how many of the 8 splits take live inserts?",
        answer,
        evidence,
    );
    let evidence = format!("the busiest split took {:.3}", sharded.busiest_share);
    obs.choose("With the shard prefix (N = 4), what share of the live inserts does the busiest split take?",
        share_bucket(sharded.busiest_share),
        evidence,
    );
    another_shard_count(obs);
    customer_first(obs);
}

/// The shard prefix with N = 2.
fn another_shard_count(obs: &mut Observation) {
    let two = measure_design(&SHARD_PREFIX, 2, false);
    let evidence = format!(
        "writes per split {:?}: the busiest took {:.3}",
        two.writes_per_split, two.busiest_share
    );
    obs.choose(
        "Variation: the shard prefix with N = 2. What share does the busiest split take?",
        share_bucket(two.busiest_share),
        evidence,
    );
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
