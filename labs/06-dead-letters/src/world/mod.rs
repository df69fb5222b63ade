//! The world your replay procedure and your reminder handler talk to. Complete code:
//! read it, do not change it.
//!
//! * `billing`: the operator's and the billing consumer's view ([`Billing`]): the
//!   subscription `billing` on the topic `payments`, the SQLite ledger, the mail
//!   provider.
//! * `invoices`: the reminder process's view ([`Reminders`]): the subscriptions
//!   `reminders` and `reminders-dead`, the ledger, the mail provider.
//! * `mail`: the mail provider, another system ([`MailProvider`]).
//!
//! What can go wrong goes through the fault core: a process can crash just before or
//! just after a commit, a send to the mail provider can time out (sent or not), an
//! acknowledgement can be lost, a pull can still see the state before a seek, the
//! dead-letter policy forwards near its maximum, not at it, and a billing process can
//! stall while another takes its messages over.
//!
//! At a crash the open SQLite transaction is rolled back and the process's memory is
//! gone; committed rows stay (the connection stands for the file on disk), the broker
//! and the mail provider are other systems and keep everything.

mod billing;
mod invoices;
mod mail;

pub use billing::{Billing, Peer};
pub use invoices::Reminders;
pub use labkit::fault::Crash;
pub use mail::{MailProvider, MailTimeout};

use sim_pubsub::Message;

/// One delivery of a message: its ack id, the message, the delivery attempt.
pub use sim_pubsub::ReceivedMessage as Delivery;

/// The faults of the application's processes and of the mail provider that a graded
/// world lets the fault core choose (the broker's are switched on or off on the broker).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Crashes just before and just after a commit.
    pub crashes: bool,
    /// Sends whose response is lost: the e-mail went out, or it did not.
    pub mail_timeouts: bool,
}

pub const PAYMENTS: &str = "payments";
pub const BILLING: &str = "billing";
pub const INVOICES: &str = "invoices-overdue";
pub const REMINDERS: &str = "reminders";
pub const REMINDERS_DEAD: &str = "reminders-dead";
/// The reminders the business wants per overdue invoice.
pub const REMINDERS_PER_INVOICE: i64 = 5;

/// One payment: its identity and amount (`"P3 30"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payment {
    pub id: String,
    pub amount: i64,
}

impl Payment {
    pub fn parse(message: &Message) -> Payment {
        let (id, amount) = message.data.split_once(' ').expect("id amount");
        Payment {
            id: id.to_string(),
            amount: amount.parse().expect("amount"),
        }
    }
}

/// The interval to replay and the consumer version that replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayPlan {
    /// Messages published at or after this time (seconds)…
    pub from: u64,
    /// …and before this one belong to the replay.
    pub to: u64,
    pub consumer_version: &'static str,
}

/// The replay the graded world asks for: the incident's interval, with v2.
pub const PLAN: ReplayPlan = ReplayPlan {
    from: 20,
    to: 60,
    consumer_version: "v2",
};

/// The billing ledger's tables. `debits` is the business's; the `replay_*` tables are
/// yours to use.
pub const BILLING_SCHEMA: &str = "
    CREATE TABLE debits (n INTEGER PRIMARY KEY, payment_id TEXT NOT NULL,
                         amount INTEGER NOT NULL);
    CREATE TABLE replay_runs (run_id INTEGER PRIMARY KEY, from_time INTEGER NOT NULL,
                              to_time INTEGER NOT NULL, consumer_version TEXT NOT NULL);
    CREATE TABLE replay_expected (run_id INTEGER NOT NULL, payment_id TEXT NOT NULL,
                                  PRIMARY KEY (run_id, payment_id));
    CREATE TABLE replay_log (run_id INTEGER NOT NULL, payment_id TEXT NOT NULL,
                             outcome TEXT NOT NULL, PRIMARY KEY (run_id, payment_id));";

/// The reminder process's table, yours to use.
pub const REMINDER_SCHEMA: &str = "
    CREATE TABLE reminder_counter (invoice TEXT PRIMARY KEY, sent INTEGER NOT NULL);";
