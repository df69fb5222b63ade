//! A key space cut into splits ([`KeySpace`]): a table's rows or an index's entries, the
//! writes each split took, splitting by size or at the hottest split, and a range read
//! ([`Read`]) with the splits it visited.

use crate::{Columns, Key, KeyRange, busiest};
use std::collections::BTreeMap;

/// An ordered key space cut into splits: a table's rows or an index's entries.
#[derive(Clone, Debug)]
pub struct KeySpace {
    pub(crate) name: String,
    pub(crate) rows: BTreeMap<Key, Columns>,
    /// Split `i` covers `[split_points[i-1], split_points[i])`; the first split starts at
    /// the beginning of the key space and the last one runs to its end.
    split_points: Vec<Key>,
    writes: Vec<u64>,
}

impl KeySpace {
    pub(crate) fn new(name: &str) -> Self {
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

    pub(crate) fn write(&mut self, key: Key, columns: Columns) {
        let split = self.split_of(&key);
        self.writes[split] += 1;
        self.rows.insert(key, columns);
    }

    /// Cuts the rows present now into `n` splits of (nearly) equal row counts.
    pub(crate) fn split_by_size(&mut self, n: usize) {
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
    pub(crate) fn split_hottest(&mut self) -> Option<usize> {
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
