//! Five reminders counted by delivery attempts.

use super::{Summary, scope};
use crate::scenarios::reminder_broker;
use crate::world::{INVOICES, MailProvider, REMINDERS};
use labkit::Observation;
use labkit::fault::{self, Sim};
use labkit::figure::Sequence;
use sim_pubsub::{Broker, PubsubMessage, SubscriptionConfig};
use std::collections::BTreeSet;

// ANCHOR: naive_reminders
/// "Five reminders": one e-mail per delivery, nack until `delivery_attempt` reaches 5,
/// the dead-letter policy (5 attempts) as the backstop. Returns the `delivery_attempt`
/// of each delivery, one reminder e-mail each.
fn remind_by_attempts(sim: &mut Sim) -> Vec<u32> {
    let mut broker = reminder_broker();
    broker
        .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
        .expect("publish");
    let mut reminders = Vec::new();
    for _ in 0..20 {
        for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
            reminders.push(received.delivery_attempt); // one e-mail per delivery
            let id = [received.ack_id.clone()];
            if received.delivery_attempt >= 5 {
                broker.acknowledge(sim, REMINDERS, &id).expect("ack");
            } else {
                broker
                    .modify_ack_deadline(sim, REMINDERS, &id, 0)
                    .expect("nack");
            }
        }
        broker.advance(sim, 10);
    }
    reminders
}
// ANCHOR_END: naive_reminders

/// The reminders of every schedule with one fault (each schedule's attempts).
fn reminders_by_attempts() -> BTreeSet<Vec<u32>> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        seen.insert(remind_by_attempts(sim));
        Ok(())
    });
    seen
}

/// The schedule that sent the fewest reminders, drawn for chapter 6.
pub fn fewest_reminders_figure() -> Sequence {
    let fewest = reminders_by_attempts()
        .into_iter()
        .min_by_key(|attempts| attempts.len())
        .unwrap_or_default();
    let mut figure = Sequence::new(
        "Five reminders counted by delivery attempts: one schedule",
        &["Pub/Sub", "reminder job", "mail provider"],
    );
    for attempt in &fewest {
        let delivery = format!("INV-7, delivery_attempt {attempt}");
        figure = figure
            .call("Pub/Sub", "reminder job", &delivery)
            .call("reminder job", "mail provider", "send a reminder")
            .call("reminder job", "Pub/Sub", "nack");
    }
    let n = fewest.len();
    figure
        .note(
            "Pub/Sub",
            &format!("forwarded to reminders-dead after {n} attempts"),
        )
        .note("mail provider", &format!("{n} reminders sent"))
}

/// A variation: a reminder job that keeps a durable count and counts a reminder once the
/// provider confirmed it, but sends each one under a fresh key (the delivery's ack id);
/// it nacks until five are counted. Over every schedule with one fault of the mail
/// provider: the e-mails really sent, for each fault taken.
fn counter_without_key() -> BTreeSet<(Vec<String>, usize)> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = Broker::new();
        broker.create_topic(INVOICES).expect("topic");
        let config = SubscriptionConfig::new(REMINDERS, INVOICES);
        broker.create_subscription(config).expect("subscription");
        broker.without_fault("pubsub:ack");
        let message = PubsubMessage::new("INV-7");
        broker.publish(sim, INVOICES, message).expect("publish");
        let (mut mail, mut counted) = (MailProvider::default(), 0);
        for _ in 0..10 {
            for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
                let id = [received.ack_id.clone()];
                let sent = mail.send(sim, true, ("reminder", "INV-7"), Some(&id[0]));
                counted += usize::from(sent.is_ok());
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

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let reminders: BTreeSet<usize> = reminders_by_attempts().iter().map(Vec::len).collect();
    obs.ask("The reminder job sends one e-mail per delivery and nacks until delivery_attempt reaches 5. Does some explored schedule send a number of reminders other than five?", reminders.iter().any(|n| *n != 5));
    let runs = counter_without_key();
    let sent_after = |fault: &str| {
        runs.iter()
            .find(|(faults, _)| faults.iter().any(|f| f.ends_with(fault)))
            .map(|(_, sent)| *sent)
    };
    let sent = sent_after("applied, response lost");
    let answer = match sent {
        Some(5) => "a",
        Some(6) => "b",
        _ => "c",
    };
    obs.choose("A reminder job keeps a durable count per invoice and counts a reminder once the provider confirms it, but sends each one under a fresh idempotency key (the delivery's ack id). It nacks until five are counted. One send times out after the e-mail went out. How many reminders does the customer receive?",
        answer,
        match sent {
            Some(n) => {
                format!("{n} reminder e-mails when a send timed out after the e-mail went out")
            }
            None => "no schedule timed out after the e-mail went out".into(),
        },
    );
    let reminders: Vec<usize> = reminders.into_iter().collect();
    vec![
        ("reminders_sent_by_attempt_counting", reminders.into()),
        (
            "reminders_with_a_counter_and_fresh_keys_after_a_lost_response",
            sent.into(),
        ),
    ]
}
