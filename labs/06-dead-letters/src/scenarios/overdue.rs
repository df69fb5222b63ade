//! The reminder world: overdue invoices, a dead-letter policy, your handler.

use super::Protocol;
use crate::invariants::check_reminders;
use crate::world::{
    Faults, INVOICES, MailProvider, REMINDER_SCHEMA, REMINDERS, REMINDERS_DEAD, Reminders,
};
use labkit::fault::{Glyph, Sim, Verdict};
use sim_pubsub::{
    Broker, DeadLetterPolicy, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SubscriptionConfig,
};
use sqlite_pool::Db;

/// Rounds before the faults stop, and fault-free rounds after them.
const REMINDER_FAULTY_ROUNDS: usize = 6;
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

/// One graded reminder world: its name (`cargo labs replay 06 NAME TOKEN`) and its faults.
#[derive(Clone, Copy, Debug)]
pub struct ReminderWorld {
    pub name: &'static str,
    /// The overdue invoices, each published once at the start.
    pub invoices: &'static [&'static str],
    /// Crashes before and after a commit; reminder sends that time out.
    pub faults: Faults,
    /// Acknowledgements lost on the way.
    pub lost_acks: bool,
    /// Dead letters forwarded one attempt early, or after one attempt more.
    pub forwarding: bool,
}

/// The overdue invoices of most reminder worlds.
const TWO_INVOICES: &[&str] = &["INV-7", "INV-8"];

/// Every fault at once, for one invoice.
pub const REMINDERS_ALL: ReminderWorld = ReminderWorld {
    name: "reminders",
    invoices: &["INV-7"],
    faults: Faults {
        crashes: true,
        mail_timeouts: true,
    },
    lost_acks: true,
    forwarding: true,
};

/// Forwarding near the maximum, not at it.
pub const REMINDERS_FORWARDING: ReminderWorld = ReminderWorld {
    name: "reminders-forwarding",
    invoices: TWO_INVOICES,
    faults: Faults {
        crashes: false,
        mail_timeouts: false,
    },
    lost_acks: false,
    forwarding: true,
};

/// No fault at all, two invoices.
pub const REMINDERS_QUIET: ReminderWorld = ReminderWorld {
    name: "reminders-quiet",
    forwarding: false,
    ..REMINDERS_FORWARDING
};

/// Crashes just before and just after a commit.
pub const REMINDERS_CRASHES: ReminderWorld = ReminderWorld {
    name: "reminders-crashes",
    faults: Faults {
        crashes: true,
        mail_timeouts: false,
    },
    forwarding: false,
    ..REMINDERS_FORWARDING
};

/// Replies that never come: reminder sends that time out, acknowledgements lost.
pub const REMINDERS_LOST_REPLIES: ReminderWorld = ReminderWorld {
    name: "reminders-lost-replies",
    invoices: TWO_INVOICES,
    faults: Faults {
        crashes: false,
        mail_timeouts: true,
    },
    lost_acks: true,
    forwarding: false,
};

/// The reminder worlds, for `cargo labs replay`.
pub const REMINDER_WORLDS: [&ReminderWorld; 5] = [
    &REMINDERS_ALL,
    &REMINDERS_QUIET,
    &REMINDERS_FORWARDING,
    &REMINDERS_CRASHES,
    &REMINDERS_LOST_REPLIES,
];

/// One reminder process per subscription and round: pulls and handles its batch.
fn reminder_round(yours: Protocol, sim: &mut Sim, systems: &mut Systems, faults: Faults) {
    for subscription in [REMINDERS, REMINDERS_DEAD] {
        let batch = systems.broker.pull(sim, subscription, 10).expect("pull");
        let mut reminders = Reminders::start(
            sim,
            &mut systems.broker,
            &systems.ledger,
            &mut systems.mail,
            subscription,
            faults,
        );
        for received in &batch {
            if let Err(crash) = (yours.on_reminder)(&mut reminders, received) {
                sim.event("reminders", Glyph::Recover, || {
                    let truth = format!("{crash}; the open transaction rolled back, memory lost");
                    ("a new reminder process starts".into(), truth)
                });
                break;
            }
        }
    }
}

/// The broker, the ledger and the mail provider of the reminder world.
struct Systems {
    broker: Broker,
    ledger: Db,
    mail: MailProvider,
}

// ANCHOR: reminder_scenario
/// One graded reminder schedule: the invoices are published,
/// and round after round a reminder process serves each subscription; after the faults
/// stop, the rounds go on until nothing is left; then each invoice's count.
pub fn reminder_scenario(yours: Protocol, sim: &mut Sim, world: &ReminderWorld) -> Verdict {
    let mut broker = reminder_broker();
    for (site, on) in [
        ("pubsub:ack", world.lost_acks),
        ("pubsub:dead-letter", world.forwarding),
    ] {
        if !on {
            broker.without_fault(site);
        }
    }
    let ledger = Db::empty(REMINDER_SCHEMA);
    for invoice in world.invoices {
        let message = PubsubMessage::new(*invoice);
        broker.publish(sim, INVOICES, message).expect("publish");
    }
    let mut systems = Systems {
        broker,
        ledger,
        mail: MailProvider::default(),
    };
    for round in 0..REMINDER_FAULTY_ROUNDS + REMINDER_DRAIN_ROUNDS {
        if round == REMINDER_FAULTY_ROUNDS {
            sim.heal();
        }
        let backlog = systems.broker.backlog(REMINDERS) + systems.broker.backlog(REMINDERS_DEAD);
        if backlog == 0 {
            break;
        }
        reminder_round(yours, sim, &mut systems, world.faults);
        systems.broker.advance(sim, 10);
    }
    check_reminders(world.invoices, &systems.mail)
}
// ANCHOR_END: reminder_scenario
