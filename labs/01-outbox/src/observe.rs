//! The observe phase: the seed's SQLite lab, ported check for check.
//!
//! An in-memory SQLite database holds orders and an outbox; a `BTreeMap` plays a
//! fictional external receiver. Nothing here talks to a network, a payment processor or a
//! vendor service: it demonstrates local atomicity and identity recognition, one step at
//! a time, with no concurrency. Every verdict below is computed from what the code just
//! did; the answer keys live in `lab.toml`.

use labkit::{Observation, Report};
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
    /// The relay gave up waiting after the receiver applied the effect.
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

type Result<T> = std::result::Result<T, LabError>;

/// The fictional receiver: a dictionary of applied effects keyed by order id, and the log
/// of every call it received. Not durable, not safe for concurrent callers.
#[derive(Default)]
pub struct FictionalReceiver {
    pub effects: BTreeMap<String, i64>,
    pub calls: Vec<(String, i64)>,
}

impl FictionalReceiver {
    // ANCHOR: receiver
    /// Applies an effect once per identity; a retry with the same amount is recognised.
    pub fn receive(&mut self, order_id: &str, amount: i64) -> Result<&'static str> {
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
    /// Receipts of an external call made *inside* a database transaction.
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
    /// Calls the outside world from inside a transaction: the call is not part of it.
    pub fn unsafe_attempt(&mut self, order_id: &str, amount: i64, abort: bool) -> Result<()> {
        let tx = self.db.transaction()?;
        // This external list is outside SQLite's transaction boundary.
        self.unsafe_receipts.push((order_id.to_string(), amount));
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2)",
            params![order_id, amount],
        )?;
        if abort {
            // Dropping `tx` rolls back the insert; nothing rolls back the receipt.
            return Err(LabError::Injected("injected failure before commit"));
        }
        tx.commit()?;
        Ok(())
    }
    // ANCHOR_END: unsafe_attempt

    // ANCHOR: enqueue
    /// Records the order and its publication intent in one transaction.
    pub fn enqueue(&mut self, order_id: &str, amount: i64, abort: bool) -> Result<&'static str> {
        let tx = self.db.transaction()?;
        let existing: Option<i64> = tx
            .query_row("SELECT amount FROM orders WHERE id = ?1", [order_id], |r| {
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
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2)",
            params![order_id, amount],
        )?;
        if abort {
            return Err(LabError::Injected("injected failure before outbox write"));
        }
        tx.execute(
            "INSERT INTO outbox VALUES (?1, ?2, 0)",
            params![order_id, amount],
        )?;
        tx.commit()?;
        Ok("created")
    }
    // ANCHOR_END: enqueue

    // ANCHOR: relay
    /// Publishes one intent; `lose_response` loses the answer after the receiver applied it.
    pub fn relay(&mut self, order_id: &str, lose_response: bool) -> Result<&'static str> {
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

    fn order_count(&self, order_id: &str) -> Result<i64> {
        Ok(self.db.query_row(
            "SELECT count(*) FROM orders WHERE id = ?1",
            [order_id],
            |r| r.get(0),
        )?)
    }

    fn outbox_count(&self, order_id: &str) -> Result<i64> {
        Ok(self.db.query_row(
            "SELECT count(*) FROM outbox WHERE id = ?1",
            [order_id],
            |r| r.get(0),
        )?)
    }

    fn sent(&self, order_id: &str) -> Result<bool> {
        Ok(self
            .db
            .query_row("SELECT sent FROM outbox WHERE id = ?1", [order_id], |r| {
                r.get(0)
            })?)
    }
}

fn is<T>(result: &Result<T>, matches: fn(&LabError) -> bool) -> bool {
    matches!(result, Err(e) if matches(e))
}

/// Runs the scenario and reports every check and answer it observed.
pub fn run() -> Report {
    scenario().unwrap_or_else(|e| panic!("the observe scenario itself failed: {e:?}"))
}

// ANCHOR: scenario
fn scenario() -> Result<Report> {
    let mut lab = OutboxLab::new()?;
    let mut obs = Observation::new("outbox");

    // 1. The unsafe attempt: an external call inside a transaction that aborts.
    let attempt = lab.unsafe_attempt("U1", 80, true);
    obs.check(
        "unsafe attempt aborts",
        is(&attempt, |e| matches!(e, LabError::Injected(_))),
    );
    let u1_rows_after_abort = lab.order_count("U1")?;
    let receipts_after_abort = lab.unsafe_receipts.len();
    obs.check("aborted database row absent", u1_rows_after_abort == 0);
    obs.check(
        "external effect survives rollback",
        lab.unsafe_receipts == [("U1".to_string(), 80)],
    );
    obs.check(
        "the rollback also removed the external receipt",
        receipts_after_abort == 0,
    );
    lab.unsafe_attempt("U1", 80, false)?;
    obs.check(
        "retry creates second external effect",
        lab.unsafe_receipts.len() == 2,
    );
    obs.check(
        "the retry is recognised as the same external effect",
        lab.unsafe_receipts.len() == 1,
    );
    obs.check(
        "one local row does not prove one external effect",
        lab.order_count("U1")? == 1,
    );

    // 2. The safe enqueue: order and intent in one transaction.
    let enqueue = lab.enqueue("S1", 120, true);
    obs.check(
        "safe enqueue abort injected",
        is(&enqueue, |e| matches!(e, LabError::Injected(_))),
    );
    let (s1_orders, s1_intents) = (lab.order_count("S1")?, lab.outbox_count("S1")?);
    obs.check("order rolls back with failed intent", s1_orders == 0);
    obs.check("no partial outbox row", s1_intents == 0);
    obs.check(
        "the order row stays behind when the outbox write fails",
        s1_orders == 1 && s1_intents == 0,
    );
    obs.check(
        "successful atomic enqueue",
        lab.enqueue("S1", 120, false)? == "created",
    );
    let both: Option<(i64, i64)> = lab
        .db
        .query_row(
            "SELECT o.amount, x.amount FROM orders o JOIN outbox x USING (id) WHERE id = 'S1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    obs.check("order and intent both present", both == Some((120, 120)));
    obs.check(
        "repeat original identity returns existing",
        lab.enqueue("S1", 120, false)? == "existing",
    );
    let collision = lab.enqueue("S1", 121, false);
    obs.check(
        "different amount under same identity rejected",
        is(&collision, |e| matches!(e, LabError::DifferentIntent)),
    );
    let intent_amount: i64 =
        lab.db
            .query_row("SELECT amount FROM outbox WHERE id = 'S1'", [], |r| {
                r.get(0)
            })?;
    obs.check("collision does not change intent", intent_amount == 120);

    // 3. The relay loses the response after the receiver applied the effect.
    let lost = lab.relay("S1", true);
    obs.check(
        "response loss follows external effect",
        is(&lost, |e| matches!(e, LabError::Timeout)),
    );
    let effects_after_timeout = lab.receiver.effects.clone();
    let sent_after_timeout = lab.sent("S1")?;
    obs.check(
        "effect exists despite timeout",
        effects_after_timeout == BTreeMap::from([("S1".to_string(), 120)]),
    );
    obs.check(
        "the timeout means the receiver did not apply the effect",
        effects_after_timeout.is_empty(),
    );
    obs.check("intent remains retryable", !sent_after_timeout);
    obs.check(
        "the timed-out relay already marked the intent sent",
        sent_after_timeout,
    );
    let retry = lab.relay("S1", false)?;
    obs.check("receiver recognizes retry", retry == "existing");
    let calls_after_retry = lab.receiver.calls.len();
    let effects_after_retry = lab.receiver.effects.len();
    obs.check(
        "two calls one effect",
        calls_after_retry == 2 && effects_after_retry == 1,
    );
    obs.check(
        "retrying S1 creates a second external effect",
        effects_after_retry == 2,
    );
    obs.check("successful response marks sent", lab.sent("S1")?);
    let again = lab.relay("S1", false)?;
    obs.check(
        "sent intent is not sent again",
        again == "already-sent" && lab.receiver.calls.len() == 2,
    );

    // 4. A new identity S2 for the same amount.
    obs.check(
        "new ID creates distinct intent",
        lab.enqueue("S2", 120, false)? == "created",
    );
    let s2 = lab.relay("S2", false)?;
    let effects_after_s2 = lab.receiver.effects.len();
    obs.check(
        "new ID is a new external effect",
        s2 == "applied" && effects_after_s2 == 2,
    );
    obs.check(
        "S2 with the same amount is recognised as a retry of S1",
        s2 == "existing",
    );
    let mismatch = lab.receiver.receive("S1", 999);
    obs.check(
        "receiver rejects mismatched retry payload",
        is(&mismatch, |e| matches!(e, LabError::ReceiverCollision)),
    );
    obs.check(
        "receiver preserved original effect",
        lab.receiver.effects["S1"] == 120,
    );
    let missing = lab.relay("missing", false);
    obs.check(
        "relay rejects missing intent",
        is(&missing, |e| matches!(e, LabError::NoIntent)),
    );

    // The three prediction questions, answered from what the run observed.
    let after_abort = match (u1_rows_after_abort, receipts_after_abort) {
        (0, 0) => "a",
        (0, _) => "b",
        (_, 0) => "c",
        _ => "d",
    };
    obs.answer(
        "after-unsafe-abort",
        after_abort,
        format!(
            "{u1_rows_after_abort} order row(s) for U1, {receipts_after_abort} external receipt(s)"
        ),
    );
    let lost_response = match (effects_after_timeout.len(), sent_after_timeout, retry) {
        (0, false, _) => "a",
        (1, false, "existing") => "b",
        (_, true, _) => "c",
        _ => "d",
    };
    obs.answer(
        "lost-response",
        lost_response,
        format!(
            "{} effect(s) after the timeout, sent = {sent_after_timeout}, the retry answered `{retry}`, \
             {calls_after_retry} call(s) and {effects_after_retry} effect(s) after it",
            effects_after_timeout.len()
        ),
    );
    let new_identity = match (s2, effects_after_s2) {
        ("applied", 2) => "b",
        ("existing", _) => "a",
        _ => "c",
    };
    obs.answer(
        "new-identity",
        new_identity,
        format!("the receiver answered `{s2}` for S2 and holds {effects_after_s2} effect(s)"),
    );

    let sqlite = rusqlite::version().to_string();
    let seed_checks: Vec<String> = obs
        .checks()
        .iter()
        .filter(|c| c.holds)
        .map(|c| c.claim.clone())
        .collect();
    let summary = serde_json::json!({
        "passed": seed_checks.len(),
        "checks": seed_checks,
        "rust": "rusqlite",
        "sqlite": sqlite,
        "database": ":memory:",
        "network": false,
        "vendorExecution": false,
        "scope": "Sequential SQLite atomic writes and synthetic receiver identity checks; \
                  no concurrency, actual transport, Spanner isolation or durable external \
                  idempotency tested.",
    });
    Ok(obs.finish(Some(sqlite), summary))
}
// ANCHOR_END: scenario
