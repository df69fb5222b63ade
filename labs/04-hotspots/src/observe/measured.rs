//! What the run measures besides its questions, for the summary `cargo labs run 04`
//! prints: the figures the chapter reports after the run and no question asks.

use super::designs::{SHARD_PREFIX, TIMESTAMP_FIRST, measure_design, written};
use super::remedies::cut_halfway;
use crate::scenarios::SHARDS;
use sim_ranges::Servers;

/// One line per measurement.
pub fn measured() -> Vec<String> {
    vec![
        time_first_on_servers(4),
        shard_prefix_cut(),
        shard_ends(5),
        shard_ends(16),
        shard_prefix_on_servers(3),
        eight_shards_query(),
    ]
}

/// `TIMESTAMP_FIRST` with its splits on `count` servers: the live inserts per server.
fn time_first_on_servers(count: usize) -> String {
    let (table, _) = written(&TIMESTAMP_FIRST, SHARDS, None);
    let load = Servers::new(count).writes_per_server(table.data());
    format!("timestamp first on {count} servers: live inserts per server {load:?}")
}

/// `SHARD_PREFIX`, cut halfway: where the cut split's later inserts land.
fn shard_prefix_cut() -> String {
    let (table, cut, _) = cut_halfway(&SHARD_PREFIX, SHARDS);
    let later = table.data().writes_per_split();
    format!(
        "shard prefix, cut halfway: later inserts {} in the lower half, {} in the upper half",
        later[cut],
        later[cut + 1]
    )
}

/// `SHARD_PREFIX` with N = `shards`: the live inserts per split.
fn shard_ends(shards: u32) -> String {
    let m = measure_design(&SHARD_PREFIX, shards, false);
    format!(
        "shard prefix, N = {shards}: live inserts per split {:?}, the busiest {:.2}",
        m.writes_per_split, m.busiest_share
    )
}

/// `SHARD_PREFIX` with N = `count` on `count` servers: the live inserts per server.
fn shard_prefix_on_servers(count: usize) -> String {
    let (table, _) = written(&SHARD_PREFIX, count as u32, None);
    let load = Servers::new(count).writes_per_server(table.data());
    format!("shard prefix, N = {count} on {count} servers: live inserts per server {load:?}")
}

/// The shard prefix with N = 8: the splits its eight ranges read.
fn eight_shards_query() -> String {
    let m = measure_design(&SHARD_PREFIX, 8, false);
    format!(
        "shard prefix, N = 8: the query's 8 ranges read splits {:?}",
        m.query_splits
    )
}
