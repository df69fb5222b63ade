//! The operator's and the billing consumer's view of the world.

use super::{BILLING, Faults, MailProvider, MailTimeout, PAYMENTS, Payment};
use labkit::fault::{Crash, Glyph, Sim};
use rusqlite::{Connection, Transaction};
use sim_pubsub::{Broker, Message, ReceivedMessage, SeekTarget};

/// How long a stalled billing process stops, in seconds: past its 10-second ack
/// deadlines.
pub const STALL_SECONDS: u64 = 15;

/// Another billing process, started while this one stalls: it pulls what the broker
/// hands out then and handles it for replay run `run`.
pub type Peer<'p> = &'p dyn Fn(&mut Sim, &mut Broker, &Connection, &mut MailProvider, Faults, i64);

/// The operator's and the billing consumer's view of the world: the broker, the ledger,
/// the mail provider, the fault core. Each step that touches durable state ends at a
/// crash point.
pub struct Billing<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    mail: &'a mut MailProvider,
    faults: Faults,
    /// The replay run this process works for (0 before the operator started one).
    run: i64,
    /// Set while this process may still stall (once): another process to run meanwhile.
    peer: Option<Peer<'a>>,
    /// Set in the operator's process when a billing process may pull what a seek
    /// redelivers before the operator goes on (once).
    early_pull: Option<Peer<'a>>,
}

impl<'a> Billing<'a> {
    /// The view of one process (the graded scenarios start them).
    pub(crate) fn start(
        sim: &'a mut Sim,
        broker: &'a mut Broker,
        ledger: &'a Connection,
        mail: &'a mut MailProvider,
        faults: Faults,
        run: i64,
        peer: Option<Peer<'a>>,
    ) -> Self {
        Billing {
            sim,
            broker,
            ledger,
            mail,
            faults,
            run,
            peer,
            early_pull: None,
        }
    }

    /// The operator's process, while billing processes keep pulling from the
    /// subscription: after a seek, one of them may handle what it redelivers first.
    pub(crate) fn with_early_pull(mut self, peer: Peer<'a>) -> Self {
        self.early_pull = Some(peer);
        self
    }

    // ANCHOR: billing_steps
    /// The replay run this process works for: the id `start_replay` returned.
    pub fn run(&self) -> i64 {
        self.run
    }

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
        self.early_pull();
    }

    /// Opens a ledger transaction. Dropping it without `commit` rolls it back. The
    /// process may stall just before (another billing process works meanwhile).
    pub fn begin(&mut self) -> Transaction<'a> {
        self.stall();
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// True when the ledger holds a debit for this payment (read inside `tx`).
    pub fn debit_exists(&self, tx: &Transaction, payment_id: &str) -> bool {
        // A cached statement: the graded suite runs this thousands of times.
        tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM debits WHERE payment_id = ?1)")
            .and_then(|mut read| read.query_row([payment_id], |r| r.get(0)))
            .expect("read debits")
    }

    /// Debits the payment inside `tx`.
    pub fn debit(&mut self, tx: &Transaction, payment: &Payment) {
        tx.prepare_cached("INSERT INTO debits (payment_id, amount) VALUES (?1, ?2)")
            .and_then(|mut insert| insert.execute((&payment.id, payment.amount)))
            .expect("debit");
        self.sim.note("billing", || {
            format!("debit {} {} (uncommitted)", payment.id, payment.amount)
        });
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.crash_point("billing:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("billing", || "COMMIT".into());
        self.crash_point("billing:after-commit")
    }

    /// Searches the mail provider's sent log: was a receipt for this payment sent?
    pub fn receipt_sent(&self, payment_id: &str) -> bool {
        self.mail.count("receipt", payment_id) > 0
    }

    /// Sends the receipt e-mail (no idempotency key: every call that gets through sends
    /// one). `MailTimeout` means it may or may not have been sent.
    pub fn send_receipt(&mut self, payment: &Payment) -> Result<(), MailTimeout> {
        let timeouts = self.faults.mail_timeouts;
        self.mail
            .send(self.sim, timeouts, ("receipt", &payment.id), None)
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

impl Billing<'_> {
    fn crash_point(&mut self, point: &'static str) -> Result<(), Crash> {
        match self.faults.crashes {
            true => self.sim.crash_point(point),
            false => Ok(()),
        }
    }

    /// A billing process of the live subscription pulls what the seek redelivers before
    /// the operator's process goes on (the fault core's choice, once). It works for the
    /// replay run on record in `replay_runs` when it starts (0 when there is none).
    fn early_pull(&mut self) {
        let Some(peer) = self.early_pull.take() else {
            return;
        };
        if !self.ledger.is_autocommit()
            || self.sim.choose(
                "billing:early-pull",
                &["operator goes on", "billing pulls now"],
            ) == 0
        {
            return;
        }
        let run: i64 = self
            .ledger
            .query_row(
                "SELECT COALESCE(MAX(run_id), 0) FROM replay_runs",
                [],
                |r| r.get(0),
            )
            .expect("read replay_runs");
        self.sim.event("billing", Glyph::Fault, || {
            let truth = match run {
                0 => "no replay run on record yet".to_string(),
                run => format!("replay run {run} on record"),
            };
            ("pulls at once after the seek".into(), truth)
        });
        let (broker, ledger, mail) = (&mut *self.broker, self.ledger, &mut *self.mail);
        peer(self.sim, broker, ledger, mail, self.faults, run);
    }

    /// A stall (a long garbage collection, a frozen VM) of this process, at most once and
    /// only between transactions: its ack deadlines pass, and the broker hands its
    /// messages to a peer process, which handles them before this one goes on.
    fn stall(&mut self) {
        let Some(peer) = self.peer else { return };
        if !self.ledger.is_autocommit()
            || self.sim.choose("billing:stall", &["go on", "stall 15 s"]) == 0
        {
            return;
        }
        self.peer = None;
        self.sim.event("billing", Glyph::Fault, || {
            let truth = "stalls before BEGIN; its ack deadlines pass".into();
            ("(stalled)".into(), truth)
        });
        self.broker.advance(self.sim, STALL_SECONDS);
        let (broker, ledger, mail) = (&mut *self.broker, self.ledger, &mut *self.mail);
        peer(self.sim, broker, ledger, mail, self.faults, self.run);
        self.sim.event("billing", Glyph::Recover, || {
            let truth = "its batch was handed to another process meanwhile".into();
            ("goes on where it stopped".into(), truth)
        });
    }
}
