//! What the run measures besides its questions, for the summary `cargo labs run 04`
//! prints: the figures the chapter reports after the run and no question asks.

use super::designs::{SHARD_PREFIX, TIMESTAMP_FIRST, measure_design, written};
use super::remedies::cut_halfway;
use crate::scenarios::SHARDS;

/// One line per measurement.
pub fn measured() -> Vec<String> {
    vec![
        rows_in_hot_split(),
        time_first_cut(),
        shard_ends(5),
        eight_shards_query(),
    ]
}

/// With `created_at` first: the rows split 1 and the last split hold after the live
/// inserts.
fn rows_in_hot_split() -> String {
    let (table, _) = written(&TIMESTAMP_FIRST, SHARDS, None);
    let data = table.data();
    let rows_in = |split: usize| {
        (data.rows())
            .filter(|(key, _)| data.split_of(key) == split)
            .count()
    };
    let (first, last) = (rows_in(0), rows_in(data.splits() - 1));
    format!(
        "timestamp first: split 1 holds {first} rows, split {} {last}",
        data.splits()
    )
}

/// `TIMESTAMP_FIRST`, cut halfway: where the later inserts land, and how many rows of
/// the history the half that takes them holds.
fn time_first_cut() -> String {
    let (table, cut, history) = cut_halfway(&TIMESTAMP_FIRST, SHARDS);
    let later = table.data().writes_per_split();
    let (lower, upper) = (later[cut], later[cut + 1]);
    let old_rows_above = (history.iter())
        .filter(|o| table.data().split_of(&(TIMESTAMP_FIRST.key)(o, SHARDS)) == cut + 1)
        .count();
    format!(
        "timestamp first, cut halfway: later inserts {lower} in the lower half, {upper} in the upper half, which holds {old_rows_above} history rows"
    )
}

/// `SHARD_PREFIX` with N = `shards`: the live inserts per split.
fn shard_ends(shards: u32) -> String {
    let m = measure_design(&SHARD_PREFIX, shards, false);
    format!(
        "shard prefix, N = {shards}: live inserts per split {:?}",
        m.writes_per_split
    )
}

/// The shard prefix with N = 8: the splits its eight ranges read.
fn eight_shards_query() -> String {
    let m = measure_design(&SHARD_PREFIX, 8, false);
    format!(
        "shard prefix, N = 8: the query's 8 ranges read splits {:?}",
        m.query_splits
    )
}
