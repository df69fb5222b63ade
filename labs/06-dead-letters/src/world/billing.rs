//! The operator's and the billing consumer's view of the world.

use super::{BILLING, MailProvider, MailTimeout, PAYMENTS, Payment};
use labkit::fault::{Crash, Sim};
use rusqlite::{Connection, Transaction};
use sim_pubsub::{Broker, Message, ReceivedMessage, SeekTarget};

/// The operator's and the billing consumer's view of the world: the broker, the ledger,
/// the mail provider, the fault core. Each step that touches durable state ends at a
/// crash point.
pub struct Billing<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    mail: &'a mut MailProvider,
}

impl<'a> Billing<'a> {
    /// The view of one process (the graded scenarios start them).
    pub(crate) fn start(
        sim: &'a mut Sim,
        broker: &'a mut Broker,
        ledger: &'a Connection,
        mail: &'a mut MailProvider,
    ) -> Self {
        Billing {
            sim,
            broker,
            ledger,
            mail,
        }
    }

    // ANCHOR: billing_steps
    /// The ledger, for reads and for your own `replay_*` tables outside a transaction.
    pub fn ledger(&self) -> &'a Connection {
        self.ledger
    }

    /// The payments the publisher published in `[from, to)`, in publish order (the
    /// topic's own record, the source of truth for "what belongs to the interval").
    pub fn published_between(&self, from: u64, to: u64) -> Vec<Message> {
        self.broker
            .topic_messages(PAYMENTS)
            .into_iter()
            .filter(|m| (from..to).contains(&m.publish_time))
            .collect()
    }

    /// Seeks `billing` to a time: messages published since then are delivered again.
    pub fn seek_to(&mut self, time: u64) {
        self.broker
            .seek(self.sim, BILLING, SeekTarget::Time(time))
            .expect("seek");
    }

    /// Opens a ledger transaction. Dropping it without `commit` rolls it back.
    pub fn begin(&self) -> Transaction<'a> {
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// True when the ledger holds a debit for this payment (read inside `tx`).
    pub fn debit_exists(&self, tx: &Transaction, payment_id: &str) -> bool {
        tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM debits WHERE payment_id = ?1)",
            [payment_id],
            |r| r.get(0),
        )
        .expect("read debits")
    }

    /// Debits the payment inside `tx`.
    pub fn debit(&mut self, tx: &Transaction, payment: &Payment) {
        tx.execute(
            "INSERT INTO debits (payment_id, amount) VALUES (?1, ?2)",
            (&payment.id, payment.amount),
        )
        .expect("debit");
        self.sim.note("billing", || {
            format!("debit {} {} (uncommitted)", payment.id, payment.amount)
        });
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.sim.crash_point("billing:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("billing", || "COMMIT".into());
        self.sim.crash_point("billing:after-commit")
    }

    /// Searches the mail provider's sent log: was a receipt for this payment sent?
    pub fn receipt_sent(&self, payment_id: &str) -> bool {
        self.mail.count("receipt", payment_id) > 0
    }

    /// Sends the receipt e-mail (no idempotency key: every call that gets through sends
    /// one). `MailTimeout` means it may or may not have been sent.
    pub fn send_receipt(&mut self, payment: &Payment) -> Result<(), MailTimeout> {
        self.mail.send(self.sim, "receipt", &payment.id, None)
    }

    /// Acknowledges one delivery (best effort: it may be lost).
    pub fn ack(&mut self, received: &ReceivedMessage) {
        self.broker
            .acknowledge(self.sim, BILLING, std::slice::from_ref(&received.ack_id))
            .expect("ack");
    }

    /// Nacks one delivery: it will be delivered again.
    pub fn nack(&mut self, received: &ReceivedMessage) {
        self.broker
            .modify_ack_deadline(self.sim, BILLING, std::slice::from_ref(&received.ack_id), 0)
            .expect("nack");
    }

    /// Unacknowledged messages in `billing`, as the broker counts them.
    pub fn backlog(&self) -> usize {
        self.broker.backlog(BILLING)
    }
    // ANCHOR_END: billing_steps
}
