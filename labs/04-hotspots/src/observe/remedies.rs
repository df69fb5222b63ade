//! Section 2: the remedies a time-first key tempts you with: more servers, and letting
//! the store split the hot range.

use super::designs::TIMESTAMP_FIRST;
use crate::scenarios::{SHARDS, SPLITS, columns, workload};
use crate::world::Order;
use labkit::Observation;
use sim_ranges::{Servers, Table, busiest_share};

/// Inserts orders under timestamp-first keys. Every order id is new, so none fails.
fn insert_time_first(table: &mut Table, orders: &[Order]) {
    for order in orders {
        let _ = table.insert((TIMESTAMP_FIRST.key)(order, SHARDS), columns(order));
    }
}

/// The history under timestamp-first keys, cut into [`SPLITS`] splits by size; returns
/// the table and the live orders still to come.
fn time_first_history() -> (Table, Vec<Order>) {
    let (history, live) = workload();
    let mut table = Table::new("Orders");
    insert_time_first(&mut table, &history);
    table.split_by_size(SPLITS);
    (table, live)
}

/// Timestamp-first keys after the history and the live inserts.
pub(super) fn time_first_after_live() -> Table {
    let (mut table, live) = time_first_history();
    insert_time_first(&mut table, &live);
    table
}

/// Timestamp-first keys, the live inserts in `parts` equal parts with one step of
/// load-based splitting of the hot split before each part after the first; the writes
/// per split of the last part.
fn after_load_based_splits(parts: usize) -> Vec<u64> {
    let (mut table, live) = time_first_history();
    for (i, part) in live.chunks(live.len().div_ceil(parts)).enumerate() {
        if i > 0 {
            table.split_hottest();
            table.reset_write_counters();
        }
        insert_time_first(&mut table, part);
    }
    table.data().writes_per_split().to_vec()
}

pub fn observe(obs: &mut Observation) {
    let table = time_first_after_live();
    // Split 4 is index 3: server 3 of 4, like split 8 (index 7).
    let servers = Servers::new(4);
    let load = servers.writes_per_server(table.data());
    obs.ask("With `created_at` first and the 8 splits on 4 servers, does the server of split 4 take any live inserts?", load[servers.server_of(3)] > 0);
    let once = after_load_based_splits(2);
    obs.ask("With `created_at` first, the store cuts the hot split in two halfway through the live inserts. Do the later inserts divide between the two halves?", busiest_share(&once) < 1.0);
    let thrice = after_load_based_splits(3);
    let written = thrice.iter().filter(|&&w| w > 0).count();
    let answer = match written {
        3 => "a",
        2 => "b",
        1 => "c",
        _ => "?",
    };
    let evidence = format!("the last third's writes per split: {thrice:?}");
    obs.choose("Variation: with `created_at` first, the store cuts the hot split after each third of the live inserts. How many splits take the last third?", answer, evidence);
}
