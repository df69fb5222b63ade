//! The billing systems as the incident left them: the past, built fault-free.

use super::incident::ReplayWorld;
use crate::world::{BILLING, BILLING_SCHEMA, Billing, Faults, MailProvider, PAYMENTS, Peer};
use labkit::fault::Sim;
use rusqlite::Connection;
use sim_pubsub::{Broker, PubsubMessage, SubscriptionConfig};
use sqlite_pool::Db;

/// Everything a replay schedule runs in: the broker, the ledger, the mail provider.
pub(super) struct Systems {
    pub broker: Broker,
    /// An emptied in-memory database kept from an earlier schedule, or a new one.
    pub ledger: Db,
    pub mail: MailProvider,
}

impl Systems {
    /// One process's view of the systems.
    pub fn billing<'a>(
        &'a mut self,
        sim: &'a mut Sim,
        faults: Faults,
        run: i64,
        peer: Option<Peer<'a>>,
    ) -> Billing<'a> {
        let (broker, ledger, mail) = (&mut self.broker, &self.ledger, &mut self.mail);
        Billing::start(sim, broker, ledger, mail, faults, run, peer)
    }
}

/// What consumer v1 left of each payment, one published every ten seconds from t = 0.
pub const HISTORY: [(&str, i64, &str); 6] = [
    ("P1", 10, "complete"),
    ("P2", 20, "complete"),
    ("P3", 30, "debit only"),
    ("P4", 40, "nothing"),
    ("P5", 50, "debit only"),
    ("P6", 60, "complete"),
];

// ANCHOR: incident
/// The history of the incident, built fault-free (it is the past, not under test).
fn incident(broker: &mut Broker, ledger: &Connection, mail: &mut MailProvider) {
    let mut past = Sim::fault_free();
    for (id, amount, done) in HISTORY {
        let message = PubsubMessage::new(format!("{id} {amount}"));
        broker
            .publish(&mut past, PAYMENTS, message)
            .expect("publish");
        let batch = broker.pull(&mut past, BILLING, 1).expect("pull");
        let ack_ids: Vec<String> = batch.iter().map(|r| r.ack_id.clone()).collect();
        // v1 acknowledged on receipt, whatever happened next.
        broker
            .acknowledge(&mut past, BILLING, &ack_ids)
            .expect("ack");
        if done != "nothing" {
            let debit = "INSERT INTO debits (payment_id, amount) VALUES (?1, ?2)";
            ledger.execute(debit, (id, amount)).expect("v1 debit");
        }
        if done == "complete" {
            mail.sent.push(("receipt", id.to_string()));
        }
        broker.advance(&mut past, 10);
    }
    // v2 is deployed at t = 60; P7 arrives afterwards and waits.
    broker
        .publish(&mut past, PAYMENTS, PubsubMessage::new("P7 70"))
        .expect("publish");
    broker.advance(&mut past, 5);
}
// ANCHOR_END: incident

/// The systems as the incident left them, with the broker's faults of `world`.
pub(super) fn history(sim: &mut Sim, world: &ReplayWorld) -> Systems {
    let mut broker = Broker::new();
    broker.create_topic(PAYMENTS).expect("topic");
    let mut config = SubscriptionConfig::new(BILLING, PAYMENTS);
    config.retain_acked_messages = true;
    broker.create_subscription(config).expect("subscription");
    let ledger = Db::empty(BILLING_SCHEMA);
    let mut mail = MailProvider::default();
    incident(&mut broker, &ledger, &mut mail);
    // The order of a batch does not matter to billing: the broker keeps its own.
    broker.without_fault("pubsub:pull-order");
    for (site, on) in [
        ("pubsub:ack", world.lost_acks),
        ("pubsub:after-seek", world.stale_pulls),
    ] {
        if !on {
            broker.without_fault(site);
        }
    }
    sim.note("history", || {
        "v1 (t = 0..60 s): P1, P2, P6 debited and receipted; P3, P5 debited, no receipt; \
         P4 neither; all acknowledged. P7 published at 60 s, waiting."
            .into()
    });
    Systems {
        broker,
        ledger,
        mail,
    }
}
