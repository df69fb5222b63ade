//! The reminder world: one overdue invoice, a dead-letter policy, your handler.

use crate::invariants::check_reminders;
use crate::reminders::on_reminder;
use crate::world::{INVOICES, LEDGER_SCHEMA, MailProvider, REMINDERS, REMINDERS_DEAD, Reminders};
use labkit::fault::{Glyph, Sim, Verdict};
use rusqlite::Connection;
use sim_pubsub::{
    Broker, DeadLetterPolicy, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SubscriptionConfig,
};

/// Rounds before the faults stop, and fault-free rounds after them.
const REMINDER_FAULTY_ROUNDS: usize = 8;
const REMINDER_DRAIN_ROUNDS: usize = 12;

/// The reminder world: topics, subscriptions, the dead-letter policy and its grants.
pub fn reminder_broker() -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(INVOICES).expect("topic");
    broker
        .create_topic(REMINDERS_DEAD)
        .expect("dead-letter topic");
    let mut config = SubscriptionConfig::new(REMINDERS, INVOICES);
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: REMINDERS_DEAD.into(),
        max_delivery_attempts: 5,
    });
    broker.create_subscription(config).expect("subscription");
    broker
        .create_subscription(SubscriptionConfig::new(REMINDERS_DEAD, REMINDERS_DEAD))
        .expect("dead-letter subscription");
    let dead_letter_topic = Resource::Topic(REMINDERS_DEAD.into());
    broker.add_iam_binding(dead_letter_topic, ROLE_PUBLISHER, SERVICE_AGENT);
    let source = Resource::Subscription(REMINDERS.into());
    broker.add_iam_binding(source, ROLE_SUBSCRIBER, SERVICE_AGENT);
    broker
}

/// One graded reminder schedule; returns the number of reminder e-mails really sent.
pub fn reminder_run(sim: &mut Sim) -> usize {
    let mut broker = reminder_broker();
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    let mut mail = MailProvider::default();
    broker
        .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
        .expect("publish");
    for round in 0..REMINDER_FAULTY_ROUNDS + REMINDER_DRAIN_ROUNDS {
        if round == REMINDER_FAULTY_ROUNDS {
            sim.heal();
        }
        if broker.backlog(REMINDERS) + broker.backlog(REMINDERS_DEAD) == 0 {
            break;
        }
        for subscription in [REMINDERS, REMINDERS_DEAD] {
            let batch = broker.pull(sim, subscription, 1).expect("pull");
            let mut reminders =
                Reminders::start(sim, &mut broker, &ledger, &mut mail, subscription);
            for received in &batch {
                if let Err(crash) = on_reminder(&mut reminders, received) {
                    sim.event("reminders", Glyph::Recover, || {
                        (
                            "a new reminder process starts".into(),
                            format!("{crash}; the open transaction rolled back, memory lost"),
                        )
                    });
                    break;
                }
            }
        }
        broker.advance(sim, 10);
    }
    mail.count("reminder", "INV-7")
}

pub fn reminder_scenario(sim: &mut Sim) -> Verdict {
    check_reminders(reminder_run(sim))
}
