//! A table ([`Table`]): its rows in a key space, and its secondary indexes, each a key
//! space of its own kept in step with every insert.

use crate::{Columns, Key, KeyRange, KeySpace, Part, Read, Status};

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
