//! Two more ways an effect arrives twice: a publisher that publishes it again, and a
//! consumer process that stalls while another takes its messages over.

use super::{SUB, Summary, TOPIC, broker, effect, labels};
use labkit::Observation;
use labkit::fault::Sim;
use sim_pubsub::{Broker, PubsubMessage, SubscriptionConfig};
use std::collections::BTreeSet;

// ANCHOR: republished
/// The publisher publishes A#1, A#2, then A#1 again (its first response was lost). A
/// consumer applies each delivery whose message_id it has not seen, and acknowledges.
/// Returns how often it applied A#1, and the message ids of A#1's copies.
fn republished() -> (usize, Vec<String>) {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [effect("A", 1), effect("A", 2), effect("A", 1)] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut applied = Vec::new();
    for received in broker.pull(&mut sim, SUB, 10).expect("pull") {
        if seen.insert(received.message.message_id.clone()) {
            applied.extend(labels(std::slice::from_ref(&received)));
        }
        let ack = [received.ack_id];
        broker.acknowledge(&mut sim, SUB, &ack).expect("ack");
    }
    let copies = broker
        .topic_messages(TOPIC)
        .into_iter()
        .filter(|m| m.data.starts_with("A#1"))
        .map(|m| m.message_id)
        .collect();
    (applied.iter().filter(|l| *l == "A#1").count(), copies)
}
// ANCHOR_END: republished

// ANCHOR: stalled
/// A consumer that applies every delivery, commits, then acknowledges. Its process pulls
/// A#1 and A#2 and stalls 15 s before applying anything (the deadline is 10 s); a
/// second process pulls meanwhile. The subscription has exactly-once delivery or not.
/// Returns how often A#1 was applied.
fn stalled_consumer(exactly_once: bool) -> usize {
    let mut sim = Sim::fault_free();
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUB, TOPIC);
    config.enable_message_ordering = true;
    config.enable_exactly_once_delivery = exactly_once;
    broker.create_subscription(config).expect("subscription");
    for e in [effect("A", 1), effect("A", 2)] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let mut applied = Vec::new();
    let first = broker.pull(&mut sim, SUB, 10).expect("pull");
    broker.advance(&mut sim, 15); // the first process stalls
    let second = broker.pull(&mut sim, SUB, 10).expect("pull");
    for batch in [second, first] {
        for received in batch {
            applied.extend(labels(std::slice::from_ref(&received)));
            let ack = [received.ack_id];
            broker.acknowledge(&mut sim, SUB, &ack).expect("ack");
        }
    }
    applied.iter().filter(|l| *l == "A#1").count()
}
// ANCHOR_END: stalled

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let (times, copies) = republished();
    obs.ask("In the duplicates experiment, does the consumer that skips message_ids it has seen apply A#1 only once?", times == 1);
    let stalled = stalled_consumer(false);
    let stalled_exactly_once = stalled_consumer(true);
    let answer = match stalled_exactly_once {
        2 => "a",
        _ => "b",
    };
    obs.choose("Variation: the stalled process of the duplicates experiment, on a subscription with exactly-once delivery; the consumer applies each delivery, commits, then acks, and keeps no record of what it applied. How many times is A#1 applied?",
        answer,
        format!("A#1 was applied {stalled_exactly_once} time(s) with exactly-once delivery, {stalled} without"),
    );
    vec![
        ("a1_applied_when_republished", times.into()),
        ("a1_copies_message_ids", copies.into()),
        ("a1_applied_with_a_stalled_consumer", stalled.into()),
        (
            "a1_applied_with_a_stalled_consumer_exactly_once",
            stalled_exactly_once.into(),
        ),
    ]
}
