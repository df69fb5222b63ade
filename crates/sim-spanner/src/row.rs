//! Rows and their values ([`Row`], [`Value`]), and the mutations a commit writes
//! ([`Mutation`]).

use std::rc::Rc;

/// A column value. Text is shared (`Rc<str>`), so reading a row copies no text: a
/// lab's exploration reads rows tens of thousands of times per second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(Rc<str>),
    Bool(bool),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(Rc::from(v))
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(Rc::from(v))
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Value::Text(Rc::from(v.as_str()))
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

/// One row: named columns, in the order they were set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    columns: Vec<(&'static str, Value)>,
}

impl Row {
    pub fn new() -> Self {
        // Room for the handful of columns a lab row has, so building one allocates once.
        Row {
            columns: Vec::with_capacity(6),
        }
    }

    /// The row with `column` set to `value` (replacing an earlier value).
    pub fn with(mut self, column: &'static str, value: impl Into<Value>) -> Self {
        self.set(column, value);
        self
    }

    pub fn set(&mut self, column: &'static str, value: impl Into<Value>) {
        let value = value.into();
        match self.columns.iter_mut().find(|(name, _)| *name == column) {
            Some(slot) => slot.1 = value,
            None => self.columns.push((column, value)),
        }
    }

    pub fn get(&self, column: &str) -> Option<&Value> {
        self.columns
            .iter()
            .find(|(name, _)| *name == column)
            .map(|(_, v)| v)
    }

    pub fn text(&self, column: &str) -> Option<&str> {
        match self.get(column) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn int(&self, column: &str) -> Option<i64> {
        match self.get(column) {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn bool(&self, column: &str) -> Option<bool> {
        match self.get(column) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// Columns of `other` override these (what `Update` and `InsertOrUpdate` do).
    pub(crate) fn merge(&mut self, other: Row) {
        for (name, value) in other.columns {
            self.set(name, value);
        }
    }
}

/// A write buffered by a read-write transaction and applied at commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Fails the commit with ALREADY_EXISTS when the row exists.
    Insert {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Fails the commit with NOT_FOUND when the row does not exist.
    Update {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Writes the given columns whether or not the row exists.
    InsertOrUpdate {
        table: &'static str,
        key: Rc<str>,
        row: Row,
    },
    /// Deletes the row if it exists.
    Delete { table: &'static str, key: Rc<str> },
}

impl Mutation {
    pub(crate) fn target(&self) -> (&'static str, &Rc<str>) {
        match self {
            Mutation::Insert { table, key, .. }
            | Mutation::Update { table, key, .. }
            | Mutation::InsertOrUpdate { table, key, .. }
            | Mutation::Delete { table, key } => (table, key),
        }
    }
}
