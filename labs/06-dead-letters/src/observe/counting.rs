//! Variations of the reminder job: other roles, another maximum, the dead-letter
//! subscription served too, and a job that counts for itself.

use super::scope;
use crate::world::{INVOICES, MailProvider, REMINDERS, REMINDERS_DEAD};
use labkit::fault::{self, Sim};
use sim_pubsub::{
    Broker, DeadLetterPolicy, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SubscriptionConfig,
};
use std::collections::BTreeSet;

/// `reminders` with a dead-letter policy of `max` attempts to `reminders-dead` (which has
/// a subscription of the same name, without a policy), INV-7 published. The service
/// agent holds the publisher role on `reminders-dead`, and the subscriber role on
/// `reminders` when `agent_subscribes`.
fn reminders_with(sim: &mut Sim, max: u32, agent_subscribes: bool) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(INVOICES).expect("topic");
    broker
        .create_topic(REMINDERS_DEAD)
        .expect("dead-letter topic");
    let mut config = SubscriptionConfig::new(REMINDERS, INVOICES);
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: REMINDERS_DEAD.into(),
        max_delivery_attempts: max,
    });
    broker.create_subscription(config).expect("subscription");
    let dead = SubscriptionConfig::new(REMINDERS_DEAD, REMINDERS_DEAD);
    broker
        .create_subscription(dead)
        .expect("dead-letter subscription");
    let topic = Resource::Topic(REMINDERS_DEAD.into());
    broker.add_iam_binding(topic, ROLE_PUBLISHER, SERVICE_AGENT);
    if agent_subscribes {
        let source = Resource::Subscription(REMINDERS.into());
        broker.add_iam_binding(source, ROLE_SUBSCRIBER, SERVICE_AGENT);
    }
    let message = PubsubMessage::new("INV-7");
    broker.publish(sim, INVOICES, message).expect("publish");
    broker
}

/// What one run of a reminder job did.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Reminded {
    /// Reminder e-mails sent.
    pub sent: usize,
    /// The subscriptions on which the job acknowledged INV-7.
    pub acked_on: Vec<&'static str>,
    /// The faults of the schedule.
    pub faults: Vec<String>,
}

/// The listed reminder job (one e-mail per delivery, nack until `delivery_attempt`
/// reaches 5), serving each of `subscriptions` in turn, 20 rounds.
fn remind(sim: &mut Sim, broker: &mut Broker, subscriptions: &[&'static str]) -> Reminded {
    let mut run = Reminded::default();
    for _ in 0..20 {
        for &subscription in subscriptions {
            for received in broker.pull(sim, subscription, 1).expect("pull") {
                run.sent += 1;
                let id = [received.ack_id.clone()];
                if received.delivery_attempt >= 5 {
                    run.acked_on.push(subscription);
                    broker.acknowledge(sim, subscription, &id).expect("ack");
                } else {
                    broker
                        .modify_ack_deadline(sim, subscription, &id, 0)
                        .expect("nack");
                }
            }
        }
        broker.advance(sim, 10);
    }
    run.faults = sim.fault_list();
    run
}

/// The listed job over every schedule with one fault, on `reminders` with a maximum of
/// `max`, serving `subscriptions`.
pub(super) fn reminded(
    max: u32,
    agent_subscribes: bool,
    subscriptions: &[&'static str],
) -> BTreeSet<Reminded> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = reminders_with(sim, max, agent_subscribes);
        seen.insert(remind(sim, &mut broker, subscriptions));
        Ok(())
    });
    seen
}

/// A job that keeps a durable count, sends reminder N under the key INV-7/reminder-N,
/// counts it once the provider confirms it, nacks until five are counted, then acks; it
/// does not serve `reminders-dead`. Only its second send may time out. The e-mails
/// really sent, for each schedule: (its faults, e-mails).
pub(super) fn counter_with_key() -> BTreeSet<(Vec<String>, usize)> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = reminders_with(sim, 5, true);
        broker.without_fault("pubsub:ack");
        broker.without_fault("pubsub:dead-letter");
        let (mut mail, mut counted, mut sends) = (MailProvider::default(), 0, 0);
        for _ in 0..20 {
            for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
                sends += 1;
                let key = format!("INV-7/reminder-{}", counted + 1);
                let sent = mail.send(sim, sends == 2, ("reminder", "INV-7"), Some(&key));
                counted += usize::from(sent.is_ok());
                let id = [received.ack_id.clone()];
                if counted >= 5 {
                    broker.acknowledge(sim, REMINDERS, &id).expect("ack");
                } else {
                    broker
                        .modify_ack_deadline(sim, REMINDERS, &id, 0)
                        .expect("nack");
                }
            }
            broker.advance(sim, 10);
        }
        seen.insert((sim.fault_list(), mail.count("reminder", "INV-7")));
        Ok(())
    });
    seen
}
