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

/// How many rows of `history` the split `split` of `table` holds under `design`.
pub(super) fn history_rows_in(
    table: &Table,
    design: &Design,
    split: usize,
    history: &[Order],
) -> usize {
    (history.iter())
        .filter(|o| table.data().split_of(&(design.key)(o, SHARDS)) == split)
        .count()
}

pub fn observe(obs: &mut Observation) {
    // The split points do not move after the cut, so the history the upper half holds
    // at the end is the history it held right after the cut.
    let (table, cut, history) = cut_halfway(&TIMESTAMP_FIRST, SHARDS);
    let history_above = history_rows_in(&table, &TIMESTAMP_FIRST, cut + 1, &history);
    obs.ask("Variation: with `TIMESTAMP_FIRST`, the store cuts its busiest split halfway through the live inserts. Right after the cut, does the upper half hold any rows of history?", history_above > 0);
    five_shards_three_servers(obs);
}

/// `SHARD_PREFIX` with N = 5, its splits on 3 servers: the busiest server's share.
fn five_shards_three_servers(obs: &mut Observation) {
    let (table, _) = written(&SHARD_PREFIX, 5, None);
    let load = Servers::new(3).writes_per_server(table.data());
    let share = busiest_share(&load);
    let answer = match share {
        s if s <= 0.36 => "a",
        s if s <= 0.5 => "b",
        s if s < 1.0 => "c",
        _ => "d",
    };
    let evidence = format!(
        "live inserts per split {:?}, per server {load:?}: the busiest server took {share:.2}",
        table.data().writes_per_split()
    );
    obs.choose("Variation: `SHARD_PREFIX` with N = 5 and the splits on 3 servers. What share of the live inserts does the busiest server take?", answer, evidence);
}
