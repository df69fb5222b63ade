//! Other ways to write the lab's operations, for the variations: each differs from the
//! seed's operation in one step, and runs on the same database and receiver. And fresh
//! labs in the state a section of the scenario leaves, so that every variation runs on
//! its own database.

use super::lab::{Answer, LabError, OutboxLab, Result};
use rusqlite::params;

/// A fresh lab after section 1: U1 (80) failed once, then committed.
pub fn after_section_1() -> Result<OutboxLab> {
    let mut lab = OutboxLab::new()?;
    let _ = lab.unsafe_attempt("U1", 80, true);
    lab.unsafe_attempt("U1", 80, false)?;
    Ok(lab)
}

/// Section 2's `enqueue` calls for S1: (amount, abort).
pub const SECTION_2: [(i64, bool); 4] = [(120, true), (120, false), (120, false), (121, false)];

/// The amount section 4 gives S2.
pub const S2_AMOUNT: i64 = 120;

/// Section 3's `relay` runs for S1: whether each loses its response.
pub const SECTION_3: [bool; 3] = [true, false, false];

/// A fresh lab after section 2: S1 (120) enqueued, once more, then refused with 121.
pub fn after_section_2() -> Result<OutboxLab> {
    let mut lab = after_section_1()?;
    for (amount, abort) in SECTION_2 {
        let _ = lab.enqueue("S1", amount, abort);
    }
    Ok(lab)
}

/// Section 4 on `lab`, with `relay` as the relay: S2 enqueued and relayed, the direct call
/// (S1 with 999), the relay for an id with no outbox row. Returns the direct call's answer.
pub fn section_4(
    lab: &mut OutboxLab,
    relay: fn(&mut OutboxLab, &str, bool) -> Result<Answer>,
) -> Result<Result<Answer>> {
    lab.enqueue("S2", S2_AMOUNT, false)?;
    let _ = relay(lab, "S2", false);
    let direct = lab.receiver.receive("S1", 999);
    let _ = relay(lab, "missing", false);
    Ok(direct)
}

impl OutboxLab {
    /// The unsafe attempt, with the fictional receiver as its external call.
    pub fn unsafe_attempt_calling_the_receiver(
        &mut self,
        order_id: &str,
        amount: i64,
        abort: bool,
    ) -> Result<Answer> {
        let tx = self.db.transaction()?;
        let answer = self.receiver.receive(order_id, amount)?;
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2)",
            params![order_id, amount],
        )?;
        if abort {
            return Err(LabError::Injected("injected failure before commit"));
        }
        tx.commit()?;
        Ok(answer)
    }

    /// Writes the order and its intent as two autocommit INSERTs, with no lookup;
    /// `fails_between` injects a failure after the first.
    pub fn enqueue_in_two_transactions(
        &mut self,
        order_id: &str,
        amount: i64,
        fails_between: bool,
    ) -> Result<()> {
        self.db.execute(
            "INSERT INTO orders VALUES (?1, ?2)",
            params![order_id, amount],
        )?;
        if fails_between {
            return Err(LabError::Injected(
                "injected failure between the transactions",
            ));
        }
        self.db.execute(
            "INSERT INTO outbox VALUES (?1, ?2, 0)",
            params![order_id, amount],
        )?;
        Ok(())
    }

    /// The unsent intent `order_id` (its amount), as a relay reads it before it calls.
    pub fn read_unsent(&self, order_id: &str) -> Result<Option<i64>> {
        match self.sent(order_id) {
            Ok(false) => Ok(Some(self.intent_amount(order_id)?)),
            Ok(true) => Ok(None),
            Err(LabError::Sql(rusqlite::Error::QueryReturnedNoRows)) => Err(LabError::NoIntent),
            Err(e) => Err(e),
        }
    }

    /// The relay, when the network loses the request before it reaches the receiver.
    pub fn relay_losing_the_request(&mut self, order_id: &str) -> Result<Answer> {
        match self.read_unsent(order_id)? {
            None => Ok("already-sent"),
            Some(_) => Err(LabError::Timeout),
        }
    }

    /// A relay that marks the intent sent before it calls the receiver, when the network
    /// loses the request: the mark, and no call.
    pub fn relay_marking_first_losing_the_request(&mut self, order_id: &str) -> Result<Answer> {
        if self.read_unsent(order_id)?.is_none() {
            return Ok("already-sent");
        }
        self.db
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])?;
        Err(LabError::Timeout)
    }

    /// A relay that marks the intent sent before it calls the receiver;
    /// `lose_response` loses the receiver's answer on the way back.
    pub fn relay_marking_first(&mut self, order_id: &str, lose_response: bool) -> Result<Answer> {
        let Some(amount) = self.read_unsent(order_id)? else {
            return Ok("already-sent");
        };
        let answer = self.mark_and_deliver(order_id, amount)?;
        if lose_response {
            return Err(LabError::Timeout);
        }
        Ok(answer)
    }

    /// The second half of a relay that marks first and read `amount` earlier: the
    /// mark, then the call.
    pub fn mark_and_deliver(&mut self, order_id: &str, amount: i64) -> Result<Answer> {
        self.db
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])?;
        self.receiver.receive(order_id, amount)
    }
}
