//! Section 3: the time-range query, "orders created in a window", and how many splits and
//! rows it reads under each key design.

use super::designs::{HASH_FIRST, SHARD_PREFIX, SHARD_PREFIX_TIME_WINDOW, measure_design, written};
use crate::scenarios::SHARDS;
use labkit::Observation;

pub fn observe(obs: &mut Observation) {
    history_window(obs);
    hash_first_rows(obs);
    time_first_window(obs);
}

/// The shard-prefix query over the middle half of the history period, against the same
/// query over the middle half of the live period.
fn history_window(obs: &mut Observation) {
    let live_window = measure_design(&SHARD_PREFIX, SHARDS, false)
        .query_splits
        .len();
    let (table, history) = written(&SHARD_PREFIX, SHARDS, None);
    let (first, last) = (history[0].created_at, history[history.len() - 1].created_at);
    let quarter = (last - first) / 4;
    let mut splits: Vec<usize> = (SHARD_PREFIX.window)(first + quarter, last - quarter, SHARDS)
        .iter()
        .flat_map(|range| table.read(range).splits)
        .collect();
    splits.sort_unstable();
    splits.dedup();
    obs.ask("Variation: the `SHARD_PREFIX` query (N = 4) asks for the middle half of the history period instead of the live period. Does it read more splits?", splits.len() > live_window);
}

/// The hash-first query: the rows it reads for each order it returns.
fn hash_first_rows(obs: &mut Observation) {
    let m = measure_design(&HASH_FIRST, SHARDS, false);
    let returned = m.query_result.len();
    let per_order = m.rows_read as f64 / returned.max(1) as f64;
    let answer = match per_order {
        _ if m.query_result != m.expected_result => "?",
        r if r < 1.5 => "a",
        r if r < 2.5 => "b",
        r if r < 4.5 => "c",
        _ => "d",
    };
    let evidence = format!(
        "read {} rows in splits {:?} for {returned} returned ({per_order:.1} per order)",
        m.rows_read, m.query_splits
    );
    obs.choose("With `HASH_FIRST`, how many rows does the time-range query read for each order it returns?", answer, evidence);
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
    obs.choose("Variation: the `SHARD_PREFIX` table (N = 4) is queried with the window of `TIMESTAMP_FIRST` in the chapter's listing. How many of the window's orders does the query return?", answer, evidence);
}
