//! Two more ways an effect arrives twice: a publisher that publishes it again, and a
//! consumer process that stalls while another takes its messages over.

use super::{SUB, Summary, TOPIC, broker, effect, labels};
use labkit::Observation;
use labkit::fault::Sim;
use sim_pubsub::PubsubMessage;
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
/// second process pulls meanwhile. Returns how often A#1 was applied.
fn stalled_consumer() -> usize {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
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
    let answer = match (times, copies.len()) {
        (2, _) => "c",
        (_, 1) => "b",
        _ => "a",
    };
    obs.choose("The publisher publishes A#1, A#2, and then A#1 again, because the response to its first publish was lost. The consumer skips a delivery whose message_id it has seen. How many times is A#1 applied?",
        answer,
        format!("A#1 was applied {times} time(s); its copies are messages {copies:?}"),
    );
    let stalled = stalled_consumer();
    let answer = match stalled {
        2 => "a",
        _ => "b",
    };
    obs.choose("A consumer applies each delivery, commits, then acks; it keeps no record of what it applied. Its process pulls A#1 and A#2 and stalls for 15 s before applying anything (the deadline is 10 s), while a second process pulls. How many times is A#1 applied?",
        answer,
        format!("A#1 was applied {stalled} time(s)"),
    );
    vec![
        ("a1_applied_when_republished", times.into()),
        ("a1_applied_with_a_stalled_consumer", stalled.into()),
    ]
}
