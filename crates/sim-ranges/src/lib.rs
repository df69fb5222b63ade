//! A simulated range-partitioned store, modelled on how Spanner places rows.
//!
//! What it models, in Spanner's vocabulary:
//!
//! * A [`Table`] keeps its rows sorted by primary [`Key`] (a tuple compared part by part,
//!   the way Spanner orders rows by the columns of the `PRIMARY KEY` clause).
//! * The sorted rows are cut into **splits** at **split points**: split `i` holds the
//!   contiguous key range `[split_points[i-1], split_points[i])`. Splits are the unit the
//!   store hands to servers ([`Servers`]).
//! * A secondary index is a key space of its own: an ordered set of index keys (the
//!   indexed columns followed by the row's primary key), cut into splits like a table.
//!   Every insert writes the table's row and one entry per index in the same mutation.
//! * `insert` is Spanner's `Insert` mutation: it fails with [`Status::AlreadyExists`] when
//!   a row with that key exists, and changes nothing.
//! * Every write increments the counter of the split it lands in; a read over a key
//!   range reports which splits it touched, which is what a multi-range read costs.
//!
//! Simplifications (the chapter names them too):
//!
//! * Splitting is explicit. [`Table::split_by_size`] cuts the rows present now into
//!   splits of equal row counts, standing for Spanner's size-based splitting of data that
//!   already exists; [`Table::split_hottest`] stands for one step of load-based splitting.
//!   The real service decides both on its own, continuously, by size and load.
//! * Splits are assigned to servers round-robin and never move; the real service
//!   rebalances them. A server's load is the sum of its splits' write counters.
//! * No replication, leaders, locks, TrueTime or latency: a hotspot shows up as a write
//!   counter, not as a slow request.
//! * Everything is in memory and deterministic: `BTreeMap` only, no clock, no randomness.
mod key;
mod space;
mod table;
#[cfg(test)]
mod tests;

pub use key::{Columns, Key, KeyRange, Part, Status};
pub use space::{KeySpace, Read};
pub use table::Table;

/// Servers that serve splits: split `i` is served by server `i % count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Servers {
    pub count: usize,
}

impl Servers {
    pub fn new(count: usize) -> Self {
        Servers {
            count: count.max(1),
        }
    }

    pub fn server_of(&self, split: usize) -> usize {
        split % self.count
    }

    /// Each server's writes: the sum of the write counters of the splits it serves.
    pub fn writes_per_server(&self, space: &KeySpace) -> Vec<u64> {
        let mut load = vec![0; self.count];
        for (split, writes) in space.writes_per_split().iter().enumerate() {
            load[self.server_of(split)] += writes;
        }
        load
    }
}

/// The index of the largest counter (the first one on a tie), or `None` when all are 0.
pub fn busiest(counters: &[u64]) -> Option<usize> {
    let max = *counters.iter().max()?;
    if max == 0 {
        return None;
    }
    counters.iter().position(|&c| c == max)
}

/// The busiest counter's share of the total, between 0 and 1 (0 when nothing was written).
pub fn busiest_share(counters: &[u64]) -> f64 {
    let total: u64 = counters.iter().sum();
    match busiest(counters) {
        Some(i) => counters[i] as f64 / total as f64,
        None => 0.0,
    }
}
