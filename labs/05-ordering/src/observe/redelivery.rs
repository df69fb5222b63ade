//! What a redelivery brings back with ordering enabled, and whether an acknowledged
//! message can come back at all.

use super::{SUB, Summary, TOPIC, broker, effect, labels, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::PubsubMessage;

// ANCHOR: redelivery
/// A#1, A#2, A#3 and B#1 are delivered; A#1, A#3 and B#1 are acknowledged, A#2 is not.
/// Returns what the next pull hands out once A#2's deadline has passed.
fn after_one_missed_ack() -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [
        effect("A", 1),
        effect("A", 2),
        effect("A", 3),
        effect("B", 1),
    ] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    let acked: Vec<String> = batch
        .iter()
        .filter(|r| !r.message.data.starts_with("A#2"))
        .map(|r| r.ack_id.clone())
        .collect();
    broker.acknowledge(&mut sim, SUB, &acked).expect("ack");
    broker.advance(&mut sim, 10);
    labels(&broker.pull(&mut sim, SUB, 10).expect("pull"))
}
// ANCHOR_END: redelivery

/// A variation: A#1, A#2, A#3 and B#1 are delivered; the consumer nacks A#1 and
/// acknowledges the others. Returns what the next pull hands out.
fn after_a_nack() -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [
        effect("A", 1),
        effect("A", 2),
        effect("A", 3),
        effect("B", 1),
    ] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    let (nacked, acked): (Vec<_>, Vec<_>) = batch
        .iter()
        .map(|r| (r.message.data.starts_with("A#1"), r.ack_id.clone()))
        .partition(|(first, _)| *first);
    let ids = |v: Vec<(bool, String)>| v.into_iter().map(|(_, id)| id).collect::<Vec<_>>();
    broker.acknowledge(&mut sim, SUB, &ids(acked)).expect("ack");
    broker
        .modify_ack_deadline(&mut sim, SUB, &ids(nacked), 0)
        .expect("nack");
    labels(&broker.pull(&mut sim, SUB, 10).expect("pull"))
}

/// One message, pulled and acknowledged once, over every schedule with one fault.
/// Returns whether any schedule delivered it again after its ack deadline passed.
fn acked_message_delivered_again() -> bool {
    let mut delivered_again = false;
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let e = effect("A", 1);
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(sim, TOPIC, message).expect("publish");
        let acks: Vec<String> = (broker.pull(sim, SUB, 10).expect("pull"))
            .into_iter()
            .map(|r| r.ack_id)
            .collect();
        broker.acknowledge(sim, SUB, &acks).expect("ack");
        broker.advance(sim, 10);
        delivered_again |= !broker.pull(sim, SUB, 10).expect("pull").is_empty();
        Ok(())
    });
    delivered_again
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let again = after_one_missed_ack();
    obs.ask("A#1, A#2, A#3 and B#1 are delivered; all but A#2 are acknowledged, and A#2's deadline passes. Does the next pull hand out A#3 again?", again.iter().any(|l| l == "A#3"));
    obs.ask(
        "In the same run, does the next pull hand out B#1 again?",
        again.iter().any(|l| l.starts_with("B#")),
    );
    // Two ways back for an acknowledged message: its ack was lost (the client saw ok),
    // or an earlier message of its key was redelivered (A#3 above).
    let acked_came_back = acked_message_delivered_again();
    obs.ask(
        "Over the explored schedules, is a message the consumer acknowledged ever delivered again?",
        acked_came_back || again.iter().any(|l| l == "A#3"),
    );
    let after_nack = after_a_nack();
    let answer = match after_nack.join(",").as_str() {
        "A#1" => "a",
        "" => "b",
        "A#1,A#2,A#3" => "c",
        _ => "d",
    };
    obs.choose("A#1, A#2, A#3 and B#1 are delivered with ordering enabled. The consumer nacks A#1 and acknowledges A#2, A#3 and B#1. What does the next pull hand out?",
        answer,
        format!("the next pull handed out [{}]", after_nack.join(", ")),
    );
    vec![
        ("redelivered_after_missed_ack", again.into()),
        ("redelivered_after_a_nack_of_a1", after_nack.into()),
        (
            "acked_message_delivered_again_after_a_lost_ack",
            acked_came_back.into(),
        ),
    ]
}
