//! The reminder process's view of the world.

use super::{Faults, MailProvider, MailTimeout};
use labkit::fault::{Crash, Sim};
use rusqlite::{Connection, Transaction};
use sim_pubsub::{Broker, ReceivedMessage};

/// The reminder process's view: the broker (through the subscription the delivery came
/// from), the ledger, the mail provider.
pub struct Reminders<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    mail: &'a mut MailProvider,
    subscription: &'static str,
    faults: Faults,
}

impl<'a> Reminders<'a> {
    /// The view of one process serving one delivery's subscription (the graded scenarios
    /// start them).
    pub(crate) fn start(
        sim: &'a mut Sim,
        broker: &'a mut Broker,
        ledger: &'a Connection,
        mail: &'a mut MailProvider,
        subscription: &'static str,
        faults: Faults,
    ) -> Self {
        Reminders {
            sim,
            broker,
            ledger,
            mail,
            subscription,
            faults,
        }
    }

    // ANCHOR: reminder_steps
    /// The subscription this delivery came from: `reminders`, or `reminders-dead` once the
    /// broker forwarded the message as a dead letter.
    pub fn subscription(&self) -> &'static str {
        self.subscription
    }

    /// Opens a ledger transaction. Dropping it without `commit` rolls it back.
    pub fn begin(&self) -> Transaction<'a> {
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.crash_point("reminders:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("reminders", || "COMMIT".into());
        self.crash_point("reminders:after-commit")
    }

    /// Sends one reminder e-mail for `invoice`. The provider honours `idempotency_key`: a
    /// second send with the same key sends nothing. `MailTimeout` means the e-mail may or
    /// may not have gone out.
    pub fn send_reminder(
        &mut self,
        invoice: &str,
        idempotency_key: &str,
    ) -> Result<(), MailTimeout> {
        let timeouts = self.faults.mail_timeouts;
        let key = Some(idempotency_key);
        self.mail
            .send(self.sim, timeouts, ("reminder", invoice), key)
    }

    /// Acknowledges the delivery: the broker stops delivering it (best effort).
    pub fn ack(&mut self, received: &ReceivedMessage) {
        self.broker
            .acknowledge(
                self.sim,
                self.subscription,
                std::slice::from_ref(&received.ack_id),
            )
            .expect("ack");
    }

    /// Nacks the delivery: the broker delivers it again (and counts an attempt).
    pub fn nack(&mut self, received: &ReceivedMessage) {
        self.broker
            .modify_ack_deadline(
                self.sim,
                self.subscription,
                std::slice::from_ref(&received.ack_id),
                0,
            )
            .expect("nack");
    }
    // ANCHOR_END: reminder_steps
}

impl Reminders<'_> {
    fn crash_point(&mut self, point: &'static str) -> Result<(), Crash> {
        match self.faults.crashes {
            true => self.sim.crash_point(point),
            false => Ok(()),
        }
    }
}
