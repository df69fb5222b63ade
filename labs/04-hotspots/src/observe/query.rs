//! Section 3: the time-range query, "orders created in a window", and how many splits it
//! reads under each key design.

use super::designs::{
    HASH_FIRST, SHARD_PREFIX, SHARD_PREFIX_TIME_WINDOW, TIMESTAMP_FIRST, measure_design,
};
use crate::scenarios::{SHARDS, SPLITS, columns, workload};
use labkit::Observation;
use sim_ranges::Table;

pub fn observe(obs: &mut Observation) {
    let time_first = measure_design(&TIMESTAMP_FIRST, SHARDS, false);
    let hash_first = measure_design(&HASH_FIRST, SHARDS, false);
    let sharded = measure_design(&SHARD_PREFIX, SHARDS, false);
    let all_correct = [&time_first, &hash_first, &sharded]
        .iter()
        .all(|m| m.query_result == m.expected_result);
    obs.ask(
        "With a hash first, does the time-range query read more than 1,000 rows?",
        all_correct && hash_first.rows_read > 1000,
    );
    obs.ask(
        "With the shard prefix, does the time-range query read more than N = 4 splits?",
        sharded.query_splits.len() > SHARDS as usize,
    );
    time_first_window(obs);
    eight_shards(obs);
    whole_live_period(obs);
}

/// The shard-prefix table queried with the time-first design's window.
fn time_first_window(obs: &mut Observation) {
    let m = measure_design(&SHARD_PREFIX_TIME_WINDOW, SHARDS, false);
    let (found, expected) = (m.query_result.len(), m.expected_result.len());
    let answer = match (found, m.query_splits.len()) {
        (0, _) => "a",
        (n, 4) if n == expected => "b",
        (n, 8) if n == expected => "c",
        _ => "?",
    };
    let evidence = format!(
        "returned {found} of the window's {expected} orders; read splits {:?}",
        m.query_splits
    );
    obs.choose("Variation: the shard-prefix table (N = 4) is queried with the window of `TIMESTAMP_FIRST` in the chapter's listing. How many of the window's orders does the query return?", answer, evidence);
}

/// The shard prefix with N = 8: eight ranges.
fn eight_shards(obs: &mut Observation) {
    let m = measure_design(&SHARD_PREFIX, 8, false);
    let answer = match m.query_splits.len() {
        4 => "a",
        n if (5..8).contains(&n) => "b",
        8 => "c",
        _ => "?",
    };
    let evidence = format!("8 ranges read splits {:?}", m.query_splits);
    obs.choose("Variation: the shard prefix with N = 8, so eight ranges. How many of the 8 splits does the time-range query read?", answer, evidence);
}

/// The shard-prefix query over the whole live period instead of its middle half.
fn whole_live_period(obs: &mut Observation) {
    let (history, live) = workload();
    let mut table = Table::new("Orders");
    let key = |o| (SHARD_PREFIX.key)(o, SHARDS);
    for order in &history {
        let _ = table.insert(key(order), columns(order));
    }
    table.split_by_size(SPLITS);
    for order in &live {
        let _ = table.insert(key(order), columns(order));
    }
    let (start, end) = (live[0].created_at, live[live.len() - 1].created_at + 1);
    let mut splits: Vec<usize> = (SHARD_PREFIX.window)(start, end, SHARDS)
        .iter()
        .flat_map(|range| table.read(range).splits)
        .collect();
    splits.sort_unstable();
    splits.dedup();
    let answer = match splits.len() {
        8 => "a",
        n if n > SHARDS as usize => "b",
        _ => "c",
    };
    let evidence = format!("the query read splits {splits:?}");
    obs.choose("Variation: the shard-prefix query asks for the whole live period instead of its middle half. How many splits does it read?", answer, evidence);
}
