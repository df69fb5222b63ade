//! Two more ways an effect arrives twice: a publisher that publishes it again, and a
//! consumer process that stalls while another takes its messages over.

use super::{SUB, Summary, TOPIC, broker, broker_with, effect, labels};
use labkit::Observation;
use labkit::fault::Sim;
use sim_pubsub::PubsubMessage;
use std::collections::BTreeSet;

// ANCHOR: republished
/// The publisher publishes A#1, A#2, then A#1 again (its first response was lost). A
/// consumer applies each delivery whose message_id it has not seen, and acknowledges.
/// Returns the effects it applied, in order, and the message ids of A#1's copies.
fn republished() -> (Vec<String>, Vec<String>) {
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
    (applied, copies)
}
// ANCHOR_END: republished

// ANCHOR: stalled
/// A consumer that applies every delivery, commits, then acknowledges. Its process pulls
/// A#1 and A#2 and stalls 15 s before applying anything (the deadline is 10 s); a
/// second process pulls meanwhile. The subscription has exactly-once delivery or not.
/// Returns the effects applied, in order.
fn stalled_consumer(exactly_once: bool) -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker_with(true, exactly_once, 10);
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
    applied
}
// ANCHOR_END: stalled

/// How often `applied` holds A#1.
fn a1_count(applied: &[String]) -> usize {
    applied.iter().filter(|l| *l == "A#1").count()
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let (applied, copies) = republished();
    let stalled = stalled_consumer(false);
    let stalled_exactly_once = stalled_consumer(true);
    let answer = match stalled_exactly_once.len() {
        2 => "a",
        3 => "b",
        4 => "c",
        _ => "?",
    };
    obs.choose("Variation: the stalled process of the duplicates experiment, on a subscription with exactly-once delivery; the consumer applies each delivery, commits, then acks, and keeps no record of what it applied. How many effect applications does the ledger receive in all?",
        answer,
        format!("applied with exactly-once delivery: [{}]; without: [{}]", stalled_exactly_once.join(", "), stalled.join(", ")),
    );
    vec![
        ("applied_when_republished", applied.clone().into()),
        ("a1_applied_when_republished", a1_count(&applied).into()),
        ("a1_copies_message_ids", copies.into()),
        (
            "a1_applied_with_a_stalled_consumer",
            a1_count(&stalled).into(),
        ),
        (
            "applied_with_a_stalled_consumer_exactly_once",
            stalled_exactly_once.into(),
        ),
    ]
}
