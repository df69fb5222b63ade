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

use std::collections::BTreeMap;
use std::fmt;

/// One part of a key or one column value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    Int(i64),
    Text(String),
}

impl From<i64> for Part {
    fn from(value: i64) -> Self {
        Part::Int(value)
    }
}

impl From<&str> for Part {
    fn from(value: &str) -> Self {
        Part::Text(value.to_string())
    }
}

impl From<String> for Part {
    fn from(value: String) -> Self {
        Part::Text(value)
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Int(i) => write!(f, "{i}"),
            Part::Text(s) => write!(f, "{s:?}"),
        }
    }
}

/// A key: a tuple of parts, ordered part by part. A key that is a prefix of another sorts
/// before it, so `(3)` ≤ `(3, "a")` < `(4)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(pub Vec<Part>);

impl Key {
    pub fn new(parts: impl IntoIterator<Item = Part>) -> Self {
        Key(parts.into_iter().collect())
    }

    pub fn parts(&self) -> &[Part] {
        &self.0
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|p| p.to_string()).collect();
        write!(f, "({})", parts.join(", "))
    }
}

/// A half-open key range `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    pub start: Key,
    pub end: Key,
}

impl KeyRange {
    pub fn new(start: Key, end: Key) -> Self {
        KeyRange { start, end }
    }

    pub fn contains(&self, key: &Key) -> bool {
        &self.start <= key && key < &self.end
    }
}

/// The columns of one row, by name.
pub type Columns = BTreeMap<String, Part>;

/// Why a mutation was refused, with Spanner's canonical code name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// `ALREADY_EXISTS`: an `Insert` found a row with the same key.
    AlreadyExists { key: Key },
    /// `NOT_FOUND`: no index with that name.
    NotFound { what: String },
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::AlreadyExists { key } => write!(f, "ALREADY_EXISTS: row {key}"),
            Status::NotFound { what } => write!(f, "NOT_FOUND: {what}"),
        }
    }
}

impl std::error::Error for Status {}

/// An ordered key space cut into splits: a table's rows or an index's entries.
#[derive(Clone, Debug)]
pub struct KeySpace {
    name: String,
    rows: BTreeMap<Key, Columns>,
    /// Split `i` covers `[split_points[i-1], split_points[i])`; the first split starts at
    /// the beginning of the key space and the last one runs to its end.
    split_points: Vec<Key>,
    writes: Vec<u64>,
}

impl KeySpace {
    fn new(name: &str) -> Self {
        KeySpace {
            name: name.to_string(),
            rows: BTreeMap::new(),
            split_points: Vec::new(),
            writes: vec![0],
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn splits(&self) -> usize {
        self.split_points.len() + 1
    }

    pub fn split_points(&self) -> &[Key] {
        &self.split_points
    }

    /// The split whose range holds `key`.
    pub fn split_of(&self, key: &Key) -> usize {
        self.split_points.partition_point(|point| point <= key)
    }

    /// Writes counted per split since the last reset.
    pub fn writes_per_split(&self) -> &[u64] {
        &self.writes
    }

    pub fn reset_write_counters(&mut self) {
        self.writes = vec![0; self.splits()];
    }

    pub fn get(&self, key: &Key) -> Option<&Columns> {
        self.rows.get(key)
    }

    pub fn rows(&self) -> impl Iterator<Item = (&Key, &Columns)> {
        self.rows.iter()
    }

    fn write(&mut self, key: Key, columns: Columns) {
        let split = self.split_of(&key);
        self.writes[split] += 1;
        self.rows.insert(key, columns);
    }

    /// Cuts the rows present now into `n` splits of (nearly) equal row counts.
    fn split_by_size(&mut self, n: usize) {
        let n = n.max(1);
        let keys: Vec<&Key> = self.rows.keys().collect();
        let mut points = Vec::new();
        for i in 1..n {
            if let Some(key) = keys.get(i * keys.len() / n)
                && points.last() != Some(*key)
            {
                points.push((*key).clone());
            }
        }
        self.split_points = points;
        self.reset_write_counters();
    }

    /// Splits the split with the most writes at the middle of the rows it holds.
    fn split_hottest(&mut self) -> Option<usize> {
        let hottest = busiest(&self.writes)?;
        let inside: Vec<&Key> = self
            .rows
            .keys()
            .filter(|k| self.split_of(k) == hottest)
            .collect();
        let middle = inside.get(inside.len() / 2)?;
        if inside.len() < 2 || self.split_points.contains(middle) {
            return None;
        }
        let middle = (*middle).clone();
        self.split_points.insert(hottest, middle);
        self.writes.insert(hottest, 0);
        Some(hottest)
    }

    /// Reads every row in `range`, and reports which splits the read touched.
    pub fn read(&self, range: &KeyRange) -> Read {
        let mut read = Read::default();
        if range.start >= range.end {
            return read;
        }
        let first = self.split_of(&range.start);
        // The last split the range reaches: the one holding the greatest key below `end`.
        let last = self
            .split_points
            .partition_point(|point| point < &range.end);
        read.splits.extend(first..=last);
        for (key, columns) in self.rows.range(range.start.clone()..range.end.clone()) {
            read.rows.push((key.clone(), columns.clone()));
        }
        read
    }
}

/// The result of a range read: the rows, and the splits the read had to visit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    pub rows: Vec<(Key, Columns)>,
    pub splits: Vec<usize>,
}

/// A secondary index: the indexed columns, in order, followed by the row's primary key.
#[derive(Clone, Debug)]
struct IndexDef {
    columns: Vec<String>,
}

/// A table with its secondary indexes.
#[derive(Clone, Debug)]
pub struct Table {
    data: KeySpace,
    indexes: Vec<(IndexDef, KeySpace)>,
}

impl Table {
    pub fn new(name: &str) -> Self {
        Table {
            data: KeySpace::new(name),
            indexes: Vec::new(),
        }
    }

    /// `CREATE INDEX name ON table (columns…)`: the index key is the indexed columns
    /// followed by the primary key parts, so entries stay unique.
    pub fn create_index(&mut self, name: &str, columns: &[&str]) {
        let def = IndexDef {
            columns: columns.iter().map(|c| c.to_string()).collect(),
        };
        let mut space = KeySpace::new(name);
        for (key, row) in &self.data.rows {
            space
                .rows
                .insert(index_key(&def, key, row), index_entry(key));
        }
        self.indexes.push((def, space));
    }

    /// Spanner's `Insert` mutation: adds the row and its index entries, or fails with
    /// `ALREADY_EXISTS` and changes nothing.
    pub fn insert(&mut self, key: Key, columns: Columns) -> Result<(), Status> {
        if self.data.rows.contains_key(&key) {
            return Err(Status::AlreadyExists { key });
        }
        for (def, space) in &mut self.indexes {
            space.write(index_key(def, &key, &columns), index_entry(&key));
        }
        self.data.write(key, columns);
        Ok(())
    }

    pub fn data(&self) -> &KeySpace {
        &self.data
    }

    pub fn index(&self, name: &str) -> Result<&KeySpace, Status> {
        self.indexes
            .iter()
            .map(|(_, space)| space)
            .find(|space| space.name == name)
            .ok_or_else(|| Status::NotFound {
                what: format!("index {name}"),
            })
    }

    /// Reads a key range of the table.
    pub fn read(&self, range: &KeyRange) -> Read {
        self.data.read(range)
    }

    /// Cuts the table and each index into `n` splits of equal row counts (size-based
    /// splitting of the data present now) and resets every write counter.
    pub fn split_by_size(&mut self, n: usize) {
        self.data.split_by_size(n);
        for (_, space) in &mut self.indexes {
            space.split_by_size(n);
        }
    }

    /// One step of load-based splitting: splits the table's busiest split at the middle
    /// of its rows. Returns the split that was cut, if any.
    pub fn split_hottest(&mut self) -> Option<usize> {
        self.data.split_hottest()
    }

    pub fn reset_write_counters(&mut self) {
        self.data.reset_write_counters();
        for (_, space) in &mut self.indexes {
            space.reset_write_counters();
        }
    }
}

fn index_key(def: &IndexDef, key: &Key, columns: &Columns) -> Key {
    let mut parts: Vec<Part> = def
        .columns
        .iter()
        .map(|c| columns.get(c).cloned().unwrap_or(Part::Int(0)))
        .collect();
    parts.extend(key.0.iter().cloned());
    Key(parts)
}

fn index_entry(key: &Key) -> Columns {
    let mut entry = Columns::new();
    entry.insert("primary_key".into(), Part::Text(key.to_string()));
    entry
}

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

#[cfg(test)]
mod tests;
