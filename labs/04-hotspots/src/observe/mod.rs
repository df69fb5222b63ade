//! The observe phase: the same orders written under several key designs on the simulated
//! range-partitioned store, measured the way a load rehearsal would measure them, in
//! three sections: where the live inserts land, the remedies a time-first key tempts
//! you with, and the time-range query. Each section ends with variations the chapter
//! does not walk through (another key order, another shard count).
//!
//! Every verdict and answer is computed from the measurements; nothing here holds an
//! answer: `cargo labs run` compares what the run observed with your sealed predictions.
//! The store and its simplifications are described in `sim-ranges`.

pub mod designs;
mod measured;
mod query;
mod remedies;
mod writes;

use crate::scenarios::{LIVE, SHARDS, SPLITS};
use designs::{HASH_FIRST, REVERSED, SHARD_PREFIX, TIMESTAMP_FIRST, measure_design};
use labkit::{Observation, Report};

/// Runs the three sections and reports every check and answer they observed, with the
/// measured table that `cargo labs run 04` prints.
pub fn run() -> Report {
    let mut obs = Observation::new("hotspots");
    writes::observe(&mut obs);
    remedies::observe(&mut obs);
    query::observe(&mut obs);
    let mut lines = table();
    lines.extend(measured::measured());
    obs.finish(None, serde_json::json!({ "table": lines }))
}

/// One line per design: live writes per split, the busiest share, the splits the
/// time-range query read.
pub fn table() -> Vec<String> {
    let mut lines = vec![format!(
        "{LIVE} live inserts, {SPLITS} splits, N = {SHARDS}: writes per split | busiest | query reads"
    )];
    for design in [&TIMESTAMP_FIRST, &REVERSED, &HASH_FIRST, &SHARD_PREFIX] {
        let m = measure_design(design, SHARDS, false);
        lines.push(format!(
            "{:<18} {:?} | {:.2} | {} split(s)",
            design.name,
            m.writes_per_split,
            m.busiest_share,
            m.query_splits.len()
        ));
    }
    lines
}
