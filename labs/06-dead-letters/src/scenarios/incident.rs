//! The billing world: the incident's history, then your replay procedure under faults.

use crate::invariants::{INTERVAL_PAYMENTS, ReplayEnd, ReplayInvariant, check_replay, debits};
use crate::replay::{handle_payment, replay_complete, start_replay};
use crate::world::{BILLING, Billing, LEDGER_SCHEMA, MailProvider, PAYMENTS, PLAN};
use labkit::fault::{Glyph, Sim, Verdict};
use rusqlite::Connection;
use sim_pubsub::{Broker, PubsubMessage, SubscriptionConfig};

/// Rounds before the faults stop, and fault-free rounds after them.
const FAULTY_ROUNDS: usize = 3;
const DRAIN_ROUNDS: usize = 8;

/// Everything a replay schedule runs in: the broker, the ledger, the mail provider.
struct World {
    broker: Broker,
    ledger: Connection,
    mail: MailProvider,
}

impl World {
    /// One process's view of the world.
    fn billing<'a>(&'a mut self, sim: &'a mut Sim) -> Billing<'a> {
        Billing::start(sim, &mut self.broker, &self.ledger, &mut self.mail)
    }
}

// ANCHOR: incident
/// The history of the incident, built fault-free (it is the past, not under test).
fn incident(broker: &mut Broker, ledger: &Connection, mail: &mut MailProvider) {
    let mut past = Sim::fault_free();
    let payments = [
        ("P1", 10, "complete"),
        ("P2", 20, "complete"),
        ("P3", 30, "debit only"),
        ("P4", 40, "nothing"),
        ("P5", 50, "debit only"),
        ("P6", 60, "complete"),
    ];
    for (id, amount, done) in payments {
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

/// The world as the incident left it.
fn history(sim: &mut Sim) -> World {
    let mut broker = Broker::new();
    broker.create_topic(PAYMENTS).expect("topic");
    let mut config = SubscriptionConfig::new(BILLING, PAYMENTS);
    config.retain_acked_messages = true;
    broker.create_subscription(config).expect("subscription");
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    let mut mail = MailProvider::default();
    incident(&mut broker, &ledger, &mut mail);
    sim.note("history", || {
        "v1 (t = 0..60 s): P1, P2, P6 debited and receipted; P3, P5 debited, no receipt; \
         P4 neither; all acknowledged. P7 published at 60 s, waiting."
            .into()
    });
    World {
        broker,
        ledger,
        mail,
    }
}

/// One billing process: pulls a batch and handles it, until the batch ends or the
/// process crashes.
fn consumer_round(sim: &mut Sim, world: &mut World, run: i64) {
    let batch = world.broker.pull(sim, BILLING, 10).expect("pull");
    let mut billing = world.billing(sim);
    for received in &batch {
        if let Err(crash) = handle_payment(&mut billing, run, received) {
            sim.event("billing", Glyph::Recover, || {
                (
                    "a new billing process starts".into(),
                    format!("{crash}; the open transaction rolled back, memory lost"),
                )
            });
            break;
        }
    }
}

/// The interval's payments that lack an effect, or have two.
fn missing_work(world: &World) -> Vec<String> {
    INTERVAL_PAYMENTS
        .iter()
        .filter(|id| debits(&world.ledger, id) != 1 || world.mail.count("receipt", id) != 1)
        .map(|id| id.to_string())
        .collect()
}

/// One graded replay schedule.
pub fn replay_scenario(sim: &mut Sim, invariants: &[ReplayInvariant]) -> Verdict {
    let mut world = history(sim);
    let run = start_replay(&mut world.billing(sim), &PLAN);
    let mut completed_with_missing: Option<Vec<String>> = None;
    let mut declared = false;
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        consumer_round(sim, &mut world, run);
        world.broker.advance(sim, 10);
        if replay_complete(&world.billing(sim), run) {
            let missing = missing_work(&world);
            sim.note("operator", || format!("replay run {run} declared complete"));
            completed_with_missing = (!missing.is_empty()).then_some(missing);
            declared = true;
            break;
        }
    }
    // Whatever is left (P7, redeliveries) is drained by the normal consumer v2 runs,
    // with the faults over.
    sim.heal();
    for _ in 0..DRAIN_ROUNDS {
        if world.broker.backlog(BILLING) == 0 {
            break;
        }
        consumer_round(sim, &mut world, run);
        world.broker.advance(sim, 10);
    }
    let end = ReplayEnd {
        ledger: &world.ledger,
        mail: &world.mail,
        run,
        declared,
        completed_with_missing,
    };
    check_replay(&end, invariants)
}
