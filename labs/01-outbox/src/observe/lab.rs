//! The seed's lab: an in-memory SQLite database with orders and an outbox, a
//! `BTreeMap` that plays a fictional external receiver, and the four operations the
//! observe phase runs (the unsafe attempt, the enqueue, the receiver, the relay).

use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;

/// Why an operation of this lab failed.
#[derive(Debug)]
pub enum LabError {
    /// A failure injected on purpose before the commit.
    Injected(&'static str),
    /// The same order id arrived with a different amount.
    DifferentIntent,
    /// The receiver already holds a different effect under this identity.
    ReceiverCollision,
    /// The relay got no response: it gave up waiting (a timeout).
    Timeout,
    /// The relay was asked to publish an intent that does not exist.
    NoIntent,
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for LabError {
    fn from(e: rusqlite::Error) -> Self {
        LabError::Sql(e)
    }
}

pub type Result<T> = std::result::Result<T, LabError>;

/// What an operation answers: `created`, `existing`, `applied`, `already-sent`.
pub type Answer = &'static str;

/// The fictional receiver: a dictionary of applied effects keyed by order id, and the log
/// of every call it received. Not durable, not safe for concurrent callers.
#[derive(Default)]
pub struct FictionalReceiver {
    pub effects: BTreeMap<String, i64>,
    pub calls: Vec<(String, i64)>,
}

impl FictionalReceiver {
    // ANCHOR: receiver
    /// Logs the call, then looks the identity up before it applies anything.
    pub fn receive(&mut self, order_id: &str, amount: i64) -> Result<Answer> {
        self.calls.push((order_id.to_string(), amount));
        if let Some(&existing) = self.effects.get(order_id) {
            if existing != amount {
                return Err(LabError::ReceiverCollision);
            }
            return Ok("existing");
        }
        self.effects.insert(order_id.to_string(), amount);
        Ok("applied")
    }
    // ANCHOR_END: receiver
}

/// The lab's world: the database, the receipts of the unsafe path and the receiver.
pub struct OutboxLab {
    pub db: Connection,
    /// Receipts of the external call the unsafe attempt makes.
    pub unsafe_receipts: Vec<(String, i64)>,
    pub receiver: FictionalReceiver,
}

impl OutboxLab {
    pub fn new() -> Result<Self> {
        let db = Connection::open_in_memory()?;
        db.execute_batch(
            "CREATE TABLE orders (id TEXT PRIMARY KEY, amount INTEGER NOT NULL);
             CREATE TABLE outbox (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, sent INTEGER NOT NULL);",
        )?;
        Ok(OutboxLab {
            db,
            unsafe_receipts: Vec::new(),
            receiver: FictionalReceiver::default(),
        })
    }

    // ANCHOR: unsafe_attempt
    /// Opens a transaction, calls the outside world, inserts the order, commits.
    pub fn unsafe_attempt(&mut self, id: &str, amount: i64, abort: bool) -> Result<()> {
        let tx = self.db.transaction()?;
        // The fictional external call: a receipt appended to a list in memory.
        self.unsafe_receipts.push((id.to_string(), amount));
        tx.execute("INSERT INTO orders VALUES (?1, ?2)", params![id, amount])?;
        if abort {
            // Returning drops `tx` without a COMMIT.
            return Err(LabError::Injected("injected failure before commit"));
        }
        tx.commit()?;
        Ok(())
    }
    // ANCHOR_END: unsafe_attempt

    // ANCHOR: enqueue
    /// Records the order and its publication intent in one transaction.
    pub fn enqueue(&mut self, id: &str, amount: i64, abort: bool) -> Result<Answer> {
        let tx = self.db.transaction()?;
        let existing: Option<i64> = tx
            .query_row("SELECT amount FROM orders WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(existing) = existing {
            if existing != amount {
                return Err(LabError::DifferentIntent);
            }
            tx.commit()?;
            return Ok("existing");
        }
        tx.execute("INSERT INTO orders VALUES (?1, ?2)", params![id, amount])?;
        if abort {
            return Err(LabError::Injected("injected failure before outbox write"));
        }
        tx.execute("INSERT INTO outbox VALUES (?1, ?2, 0)", params![id, amount])?;
        tx.commit()?;
        Ok("created")
    }
    // ANCHOR_END: enqueue

    // ANCHOR: relay
    /// Publishes one intent; `lose_response` loses the receiver's answer on the way back.
    pub fn relay(&mut self, order_id: &str, lose_response: bool) -> Result<Answer> {
        let row: Option<(i64, bool)> = self
            .db
            .query_row(
                "SELECT amount, sent FROM outbox WHERE id = ?1",
                [order_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((amount, sent)) = row else {
            return Err(LabError::NoIntent);
        };
        if sent {
            return Ok("already-sent");
        }
        let receipt = self.receiver.receive(order_id, amount)?;
        if lose_response {
            return Err(LabError::Timeout);
        }
        self.db
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])?;
        Ok(receipt)
    }
    // ANCHOR_END: relay

    /// `count(*)` over `from`: a table or a join, with or without a `WHERE` clause.
    pub fn count(&self, from: &str) -> Result<i64> {
        let sql = format!("SELECT count(*) FROM {from}");
        Ok(self.db.query_row(&sql, [], |r| r.get(0))?)
    }

    pub fn order_count(&self, order_id: &str) -> Result<i64> {
        Ok(self.db.query_row(
            "SELECT count(*) FROM orders WHERE id = ?1",
            [order_id],
            |r| r.get(0),
        )?)
    }

    pub fn outbox_count(&self, order_id: &str) -> Result<i64> {
        Ok(self.db.query_row(
            "SELECT count(*) FROM outbox WHERE id = ?1",
            [order_id],
            |r| r.get(0),
        )?)
    }

    /// The amount the outbox holds for `order_id`.
    pub fn intent_amount(&self, order_id: &str) -> Result<i64> {
        Ok(self
            .db
            .query_row("SELECT amount FROM outbox WHERE id = ?1", [order_id], |r| {
                r.get(0)
            })?)
    }

    pub fn sent(&self, order_id: &str) -> Result<bool> {
        Ok(self
            .db
            .query_row("SELECT sent FROM outbox WHERE id = ?1", [order_id], |r| {
                r.get(0)
            })?)
    }
}

/// True when `result` failed with an error that `matches`.
pub fn is<T>(result: &Result<T>, matches: fn(&LabError) -> bool) -> bool {
    matches!(result, Err(e) if matches(e))
}
