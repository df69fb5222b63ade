//! The observe phase: the same orders written under five key designs on the simulated
//! range-partitioned store, measured the way a load rehearsal would measure them.
//!
//! Every verdict below is computed from the measurement; the answer keys live in
//! `lab.toml`. The store and its simplifications are described in `sim-ranges`.

use crate::harness::{
    HASH_FIRST, LIVE, Measurement, Order, REVERSED, SHARD_PREFIX, SHARDS, SPLITS, TIMESTAMP_FIRST,
    columns, measure_design, workload,
};
use labkit::{Observation, Report};
use sim_ranges::{Servers, Table, busiest, busiest_share};

/// The multiple-choice bucket of a busiest-split share, for N shards.
pub fn share_bucket(share: f64) -> &'static str {
    let n = SHARDS as f64;
    if share <= 1.5 / n {
        "a"
    } else if share <= 0.5 {
        "b"
    } else {
        "c"
    }
}

/// The multiple-choice bucket of a query's fan-out.
pub fn fan_out_bucket(splits: usize) -> &'static str {
    if splits <= 1 {
        "a"
    } else if splits <= SHARDS as usize {
        "b"
    } else {
        "c"
    }
}

pub fn run() -> Report {
    // ANCHOR: scenario
    let mut obs = Observation::new("hotspots");
    let time_first = measure_design(&TIMESTAMP_FIRST, false);
    let reversed = measure_design(&REVERSED, false);
    let hash_first = measure_design(&HASH_FIRST, false);
    let sharded = measure_design(&SHARD_PREFIX, false);
    let indexed = measure_design(&SHARD_PREFIX, true);

    // 1. Time first: every live insert lands past the last split point.
    obs.check(
        "timestamp-first keys send every new insert to one range",
        time_first.busiest_share == 1.0,
    );
    // 2. Descending time: the hotspot moves to the other end of the key space.
    obs.check(
        "reversing the timestamp order spreads new inserts",
        reversed.busiest_share <= 1.5 / SHARDS as f64,
    );
    obs.check(
        "reversed timestamps send new inserts to the first range",
        busiest(&reversed.writes_per_split) == Some(0) && reversed.busiest_share == 1.0,
    );
    // 3. More servers serve more splits, but one split is still served by one server.
    let on_eight_servers = time_first_on_servers(8);
    obs.check(
        "more servers spread a timestamp-first hotspot",
        busiest_share(&on_eight_servers) < 1.0,
    );
    // 4. Load-based splitting cuts the hot split; the next inserts go to the new last one.
    let after_split = time_first_after_splitting_the_hot_split();
    obs.check(
        "splitting the hot range spreads a timestamp-first hotspot",
        busiest_share(&after_split) < 1.0,
    );
    // 5. A shard prefix: N hot ranges, each with about 1/N of the inserts.
    obs.check(
        "a shard prefix keeps the busiest range near 1/N",
        sharded.busiest_share <= 1.5 / SHARDS as f64,
    );
    // 6. The index on created_at is a key space of its own, led by the timestamp.
    let index_share = busiest_share(indexed.index_writes_per_split.as_deref().unwrap_or(&[]));
    obs.check(
        "an index led by the timestamp concentrates its writes in one range",
        index_share == 1.0,
    );
    // 7. The time-range query: fan-out per design (and every design answers correctly).
    let all_correct = [&time_first, &reversed, &hash_first, &sharded]
        .iter()
        .all(|m| m.query_result == m.expected_result);
    obs.check(
        "a hash-first key serves the time-range query from one range",
        all_correct && hash_first.query_splits.len() == 1,
    );
    obs.check(
        "a shard prefix serves the time-range query from at most N ranges",
        all_correct && sharded.query_splits.len() <= SHARDS as usize,
    );
    // ANCHOR_END: scenario

    obs.answer(
        "busiest-share-timestamp-first",
        share_bucket(time_first.busiest_share),
        format!(
            "busiest split took {:.2} of the live inserts",
            time_first.busiest_share
        ),
    );
    obs.answer(
        "busiest-share-reversed",
        share_bucket(reversed.busiest_share),
        format!("busiest split took {:.2}", reversed.busiest_share),
    );
    obs.answer(
        "busiest-share-shard-prefix",
        share_bucket(sharded.busiest_share),
        format!(
            "busiest split took {:.2} (1/N = {:.2})",
            sharded.busiest_share,
            1.0 / SHARDS as f64
        ),
    );
    obs.answer(
        "busiest-share-time-index",
        share_bucket(index_share),
        format!("the index's busiest split took {index_share:.2} of its writes"),
    );
    obs.answer(
        "fan-out-hash-first",
        fan_out_bucket(hash_first.query_splits.len()),
        format!(
            "the query read {} of {SPLITS} splits",
            hash_first.query_splits.len()
        ),
    );

    let summary = serde_json::json!({
        "live_inserts": LIVE,
        "splits": SPLITS,
        "shards": SHARDS,
        "designs": [
            summary_of("timestamp first", &time_first),
            summary_of("reversed timestamp", &reversed),
            summary_of("hash first", &hash_first),
            summary_of("shard prefix", &sharded),
        ],
        "index_on_created_at_writes_per_split": indexed.index_writes_per_split,
        "timestamp_first_writes_per_server_of_8": on_eight_servers,
        "timestamp_first_after_load_based_split": after_split,
    });
    obs.finish(None, summary)
}

fn summary_of(name: &str, m: &Measurement) -> serde_json::Value {
    serde_json::json!({
        "design": name,
        "writes_per_split": m.writes_per_split,
        "busiest_share": (m.busiest_share * 1000.0).round() / 1000.0,
        "query_splits": m.query_splits.len(),
        "query_correct": m.query_result == m.expected_result,
    })
}

/// Inserts orders under timestamp-first keys. Every order id is new, so no insert fails.
fn insert_time_first(table: &mut Table, orders: &[Order]) {
    for order in orders {
        let _ = table.insert((TIMESTAMP_FIRST.key)(order), columns(order));
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

/// Timestamp-first keys with the splits spread over `servers` servers: the writes each
/// server took.
fn time_first_on_servers(servers: usize) -> Vec<u64> {
    let (mut table, live) = time_first_history();
    insert_time_first(&mut table, &live);
    Servers::new(servers).writes_per_server(table.data())
}

/// Timestamp-first keys: half the live inserts, one step of load-based splitting of the
/// hot split, then the other half, whose writes are returned per split.
fn time_first_after_splitting_the_hot_split() -> Vec<u64> {
    let (mut table, live) = time_first_history();
    let (first, second) = live.split_at(live.len() / 2);
    insert_time_first(&mut table, first);
    table.split_hottest();
    table.reset_write_counters();
    insert_time_first(&mut table, second);
    table.data().writes_per_split().to_vec()
}
