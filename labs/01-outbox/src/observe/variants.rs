//! Other ways to write the lab's operations, for the variations: each differs from the
//! seed's operation in one step, and runs on the same database and receiver.

use super::lab::{Answer, LabError, OutboxLab, Result};
use rusqlite::params;

impl OutboxLab {
    /// Commits the order first and calls the outside world after the COMMIT;
    /// `dies_between` stops the process between the two.
    pub fn commit_then_call(
        &mut self,
        order_id: &str,
        amount: i64,
        dies_between: bool,
    ) -> Result<()> {
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2)",
            params![order_id, amount],
        )?;
        tx.commit()?;
        if dies_between {
            return Err(LabError::Injected("the process died after COMMIT"));
        }
        self.unsafe_receipts.push((order_id.to_string(), amount));
        Ok(())
    }

    /// Writes the order and its intent in two transactions; `fails_between` injects a
    /// failure after the first commit.
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

    /// A relay that marks the intent sent before it calls the receiver; `dies_after_mark`
    /// stops the process between the two.
    pub fn relay_marking_first(&mut self, order_id: &str, dies_after_mark: bool) -> Result<Answer> {
        let Some(amount) = self.read_unsent(order_id)? else {
            return Ok("already-sent");
        };
        self.db
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])?;
        if dies_after_mark {
            return Err(LabError::Injected("the process died after marking sent"));
        }
        self.receiver.receive(order_id, amount)
    }

    /// The second half of a relay that read `amount` earlier: the call, then the mark.
    pub fn deliver_and_mark(&mut self, order_id: &str, amount: i64) -> Result<Answer> {
        let receipt = self.receiver.receive(order_id, amount)?;
        self.db
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])?;
        Ok(receipt)
    }
}
