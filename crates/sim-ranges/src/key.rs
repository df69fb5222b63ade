//! Keys and values: a key or column value's parts ([`Part`]), a [`Key`], a [`KeyRange`],
//! a row's [`Columns`], and the errors the store answers ([`Status`]).

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
