//! Section 2: the remedies a hotspot tempts you with: more servers, and letting the store
//! split the hot split.

use super::designs::{Design, SHARD_PREFIX, TIMESTAMP_FIRST, insert_all, with_history, written};
use crate::scenarios::SHARDS;
use crate::world::Order;
use labkit::Observation;
use sim_ranges::{Servers, Table, busiest_share};

/// `design` with one step of load-based splitting halfway through the live inserts: the
/// store cuts its busiest split at the middle of its rows and the counters start again.
/// Returns the table, the split that was cut (the lower half; `cut + 1` is the upper
/// half) and the history.
pub(super) fn cut_halfway(design: &Design, shards: u32) -> (Table, usize, Vec<Order>) {
    let (mut table, history, live) = with_history(design, shards, None);
    let (first, second) = live.split_at(live.len() / 2);
    insert_all(&mut table, design, shards, first);
    let cut = table
        .split_hottest()
        .expect("the busiest split has rows to cut");
    table.reset_write_counters();
    insert_all(&mut table, design, shards, second);
    (table, cut, history)
}

pub fn observe(obs: &mut Observation) {
    let (table, _) = written(&TIMESTAMP_FIRST, SHARDS, None);
    // Split 4 is index 3: server 3 of 4, like split 8 (index 7).
    let servers = Servers::new(4);
    let load = servers.writes_per_server(table.data());
    obs.ask("With `TIMESTAMP_FIRST` and the splits on 4 servers, does the server of split 4 take any live inserts?", load[servers.server_of(3)] > 0);
    let (table, cut, _) = cut_halfway(&SHARD_PREFIX, SHARDS);
    let later = table.data().writes_per_split();
    obs.ask("Variation: with `SHARD_PREFIX` (N = 4), the store cuts its busiest split halfway through the live inserts. Do that split's later inserts divide between the two halves?", later[cut] > 0 && later[cut + 1] > 0);
    three_shards_three_servers(obs);
}

/// `SHARD_PREFIX` with N = 3, its splits on 3 servers: the busiest server's share.
fn three_shards_three_servers(obs: &mut Observation) {
    let (table, _) = written(&SHARD_PREFIX, 3, None);
    let load = Servers::new(3).writes_per_server(table.data());
    let share = busiest_share(&load);
    let answer = match share {
        s if s <= 0.42 => "a",
        s if s <= 0.58 => "b",
        s if s < 1.0 => "c",
        _ => "d",
    };
    let evidence = format!("live inserts per server {load:?}: the busiest took {share:.2}");
    obs.choose("Variation: `SHARD_PREFIX` with N = 3 and the splits on 3 servers. What share of the live inserts does the busiest server take?", answer, evidence);
}
