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
    obs.check(
        "timestamp-first keys send every new insert to one range",
        time_first.busiest_share == 1.0,
    );
    obs.check(
        "reversed timestamps send new inserts to the first range",
        busiest(&reversed.writes_per_split) == Some(0),
    );
    obs.check(
        "a shard prefix keeps the busiest range near 1/N",
        sharded.busiest_share <= limit(SHARDS),
    );
    let index = sharded.index_writes_per_split.clone().unwrap_or_default();
    obs.check(
        "an index led by the timestamp concentrates its writes in one range",
        busiest_share(&index) == 1.0,
    );
    let customer_shard = measure_design(&CUSTOMER_SHARD, SHARDS, false);
    obs.check(
        "a shard taken from the customer keeps the busiest range near 1/N",
        customer_shard.busiest_share <= limit(SHARDS),
    );
    let after_time = measure_design(&SHARD_AFTER_TIME, SHARDS, false);
    obs.check(
        "a shard placed after the time spreads new inserts",
        after_time.busiest_share < 1.0,
    );

    let hottest = busiest(&time_first.writes_per_split).map_or(0, |s| s + 1);
    let answer = match hottest {
        8 => "a",
        1 => "b",
        4 => "c",
        _ => "d",
    };
    let evidence = format!("writes per split {:?}", time_first.writes_per_split);
    obs.answer("busiest-split-timestamp-first", answer, evidence);
    let written = sharded.writes_per_split.iter().filter(|&&w| w > 0).count();
    let answer = match written {
        1 => "a",
        4 => "b",
        8 => "c",
        _ => "?",
    };
    let evidence = format!("writes per split {:?}", sharded.writes_per_split);
    obs.answer("splits-written-shard-prefix", answer, evidence);
    let evidence = format!("the busiest split took {:.3}", sharded.busiest_share);
    obs.answer(
        "busiest-share-shard-prefix",
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
    obs.answer(
        "busiest-share-two-shards",
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
    obs.answer("customer-first", answer, evidence);
}
