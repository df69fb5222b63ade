//! The world your consumer talks to. Complete code: read it, do not change it.
//!
//! A topic `ledger-events` carries a bank's ledger effects, one ordering key per account,
//! to the subscription `ledger` (message ordering enabled, 10-second ack deadline) on the
//! simulated Pub/Sub broker. The consumer keeps the ledger in SQLite: `balances`, the
//! `applied` table you may use to recognise effects, and `effect_log`, the audit trail
//! `Consumer::apply` writes every time it applies an effect (it is how the graded suite
//! counts).
//!
//! What can go wrong goes through the fault core: an acknowledgement can be lost, the
//! ledger can answer "busy" (a definite, transient refusal), the consumer process can
//! crash before or after it commits, and it can stall long enough for its ack deadlines
//! to pass, while another consumer process receives its messages. At a crash the open
//! transaction is rolled back and the consumer's memory is gone; committed rows stay
//! (the connection stands for the file on disk), and a new consumer process pulls again.

pub use labkit::fault::Crash;
use labkit::fault::{Glyph, Sim};
use rusqlite::{Connection, Transaction};
use sim_pubsub::{Broker, Message, ReceivedMessage};

/// One delivery of a message: its ack id, the message, the delivery attempt.
pub use sim_pubsub::ReceivedMessage as Delivery;

pub const TOPIC: &str = "ledger-events";
pub const SUBSCRIPTION: &str = "ledger";

/// What one ledger message asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Deposit(i64),
    /// Adds `percent`% of the balance (rounded down). Not commutative with a deposit:
    /// the order of an account's effects changes its balance.
    Interest(i64),
}

/// One effect on one account: the account's `seq`-th effect (1, 2, 3, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    pub account: String,
    pub seq: i64,
    pub op: Op,
}

impl Effect {
    /// Reads the effect a message carries (`"A#2 interest 10"`).
    pub fn parse(message: &Message) -> Effect {
        let mut words = message.data.split_whitespace();
        let (account, seq) = words
            .next()
            .and_then(|w| w.split_once('#'))
            .expect("account#seq");
        let kind = words.next().expect("operation");
        let amount: i64 = words.next().and_then(|w| w.parse().ok()).expect("amount");
        Effect {
            account: account.to_string(),
            seq: seq.parse().expect("seq"),
            op: if kind == "interest" {
                Op::Interest(amount)
            } else {
                Op::Deposit(amount)
            },
        }
    }

    pub fn data(&self) -> String {
        match self.op {
            Op::Deposit(n) => format!("{}#{} deposit {n}", self.account, self.seq),
            Op::Interest(p) => format!("{}#{} interest {p}", self.account, self.seq),
        }
    }

    /// The balance after this effect.
    pub fn apply_to(&self, balance: i64) -> i64 {
        match self.op {
            Op::Deposit(n) => balance + n,
            Op::Interest(p) => balance + balance * p / 100,
        }
    }
}

/// The ledger's tables. `applied` is yours to use; `effect_log` is the audit trail.
pub const LEDGER_SCHEMA: &str = "
    CREATE TABLE balances (account TEXT PRIMARY KEY, balance INTEGER NOT NULL);
    CREATE TABLE applied (account TEXT NOT NULL, seq INTEGER NOT NULL,
                          message_id TEXT NOT NULL);
    CREATE TABLE effect_log (n INTEGER PRIMARY KEY, account TEXT NOT NULL,
                             seq INTEGER NOT NULL);";

/// The ledger refused an effect for now (SQLITE_BUSY): nothing was applied, trying again
/// later will work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy;

/// How long a stalled consumer process stops, in seconds: past its 10-second ack
/// deadlines.
pub const STALL_SECONDS: u64 = 15;

/// The faults of the consumer process that a graded world lets the fault core choose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Crashes just before and just after a commit.
    pub crashes: bool,
    /// `Busy` answers from the ledger.
    pub busy_ledger: bool,
}

/// Another consumer process, started while this one stalls: it pulls what the broker
/// hands out then, and handles it.
pub type Peer<'p> = &'p dyn Fn(&mut Sim, &mut Broker, &Connection, Faults);

/// One consumer process: the broker it pulls from, its connection to the ledger, the
/// fault core. Each step that touches durable state ends at a crash point.
pub struct Consumer<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    faults: Faults,
    /// Set while this process may still stall (once) and let a peer work meanwhile.
    peer: Option<Peer<'a>>,
}

impl<'a> Consumer<'a> {
    /// A new consumer process (the graded scenarios start them).
    pub(crate) fn start(
        sim: &'a mut Sim,
        broker: &'a mut Broker,
        ledger: &'a Connection,
        faults: Faults,
        peer: Option<Peer<'a>>,
    ) -> Self {
        Consumer {
            sim,
            broker,
            ledger,
            faults,
            peer,
        }
    }

    // ANCHOR: consumer_steps
    /// Opens a ledger transaction. Dropping it without `commit` rolls it back. The
    /// process may stall just before (see `stall`).
    pub fn begin(&mut self) -> Transaction<'a> {
        self.stall();
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// Applies one effect to `balances` inside `tx` (and writes the audit row). The
    /// ledger may answer `Busy`: nothing was applied.
    pub fn apply(&mut self, tx: &Transaction, effect: &Effect) -> Result<(), Busy> {
        if self.faults.busy_ledger && self.sim.choose("ledger:apply", &["ok", "busy"]) == 1 {
            self.sim.event("consumer", Glyph::Error, || {
                let what = format!("apply {} -> SQLITE_BUSY", effect.data());
                (what, "not applied".into())
            });
            return Err(Busy);
        }
        let balance: i64 = tx
            .query_row(
                "SELECT COALESCE((SELECT balance FROM balances WHERE account = ?1), 0)",
                [&effect.account],
                |r| r.get(0),
            )
            .expect("read balance");
        let after = effect.apply_to(balance);
        tx.execute(
            "INSERT INTO balances VALUES (?1, ?2)
             ON CONFLICT (account) DO UPDATE SET balance = excluded.balance",
            (&effect.account, after),
        )
        .expect("write balance");
        tx.execute(
            "INSERT INTO effect_log (account, seq) VALUES (?1, ?2)",
            (&effect.account, effect.seq),
        )
        .expect("audit");
        self.sim.note("consumer", || {
            let data = effect.data();
            format!("apply {data}: balance {balance} -> {after} (uncommitted)")
        });
        Ok(())
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.crash_point("consumer:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("consumer", || "COMMIT".into());
        self.crash_point("consumer:after-commit")
    }

    /// Acknowledges one delivery. The ack is best effort: it may be lost, and you cannot
    /// tell. (No crash point of its own: the crash just after the commit is the crash
    /// before the ack.)
    pub fn ack(&mut self, received: &ReceivedMessage) -> Result<(), Crash> {
        let ids = std::slice::from_ref(&received.ack_id);
        self.broker
            .acknowledge(self.sim, SUBSCRIPTION, ids)
            .expect("acknowledge");
        Ok(())
    }

    /// Nacks one delivery: the broker delivers it again (and, with ordering, the later
    /// messages of its key that were delivered).
    pub fn nack(&mut self, received: &ReceivedMessage) -> Result<(), Crash> {
        let ids = std::slice::from_ref(&received.ack_id);
        self.broker
            .modify_ack_deadline(self.sim, SUBSCRIPTION, ids, 0)
            .expect("nack");
        Ok(())
    }

    /// Writes a line in the timeline (for your own debugging).
    pub fn note(&mut self, text: impl FnOnce() -> String) {
        self.sim.note("consumer", text);
    }
    // ANCHOR_END: consumer_steps
}

impl Consumer<'_> {
    fn crash_point(&mut self, point: &'static str) -> Result<(), Crash> {
        match self.faults.crashes {
            true => self.sim.crash_point(point),
            false => Ok(()),
        }
    }

    /// A stall (a long garbage collection, a frozen VM) of this process, at most once:
    /// its ack deadlines pass, and the broker hands its messages to a peer process, which
    /// handles them before this one goes on where it stopped.
    fn stall(&mut self) {
        let Some(peer) = self.peer else { return };
        // A stall with a transaction open would leave the peer waiting on its locks;
        // the world lets the process stall only between transactions.
        if !self.ledger.is_autocommit()
            || self.sim.choose("consumer:stall", &["go on", "stall 15 s"]) == 0
        {
            return;
        }
        self.peer = None;
        self.sim.event("consumer", Glyph::Fault, || {
            let truth = "stalls before BEGIN; its ack deadlines pass".into();
            ("(stalled)".into(), truth)
        });
        self.broker.advance(self.sim, STALL_SECONDS);
        peer(self.sim, self.broker, self.ledger, self.faults);
        self.sim.event("consumer", Glyph::Recover, || {
            let truth = "its batch was handed to another process meanwhile".into();
            ("goes on where it stopped".into(), truth)
        });
    }
}
