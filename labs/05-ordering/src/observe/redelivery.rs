//! What a redelivery brings back with ordering enabled, and whether an acknowledged
//! message can come back at all.

use super::{
    SUB, Summary, TOPIC, account_key, bank_key, broker, broker_with, effect, labels, scope,
};
use crate::world::Effect;
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::PubsubMessage;

// ANCHOR: redelivery
/// A#1, A#2, A#3 and B#1 are delivered; A#1, A#3 and B#1 are acknowledged, A#2 is not.
/// `key` chooses the ordering key of an effect; the subscription has message ordering,
/// and exactly-once delivery if `exactly_once`. Returns the messages acknowledged, and
/// what the next pull hands out once A#2's deadline has passed.
fn after_one_missed_ack(
    key: fn(&Effect) -> String,
    exactly_once: bool,
) -> (Vec<String>, Vec<String>) {
    let mut sim = Sim::fault_free();
    let mut broker = broker_with(true, exactly_once, 10);
    for e in [
        effect("A", 1),
        effect("A", 2),
        effect("A", 3),
        effect("B", 1),
    ] {
        let message = PubsubMessage::with_key(e.data(), key(&e));
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    let acked: Vec<_> = batch
        .into_iter()
        .filter(|r| !r.message.data.starts_with("A#2"))
        .collect();
    let ack_ids: Vec<String> = acked.iter().map(|r| r.ack_id.clone()).collect();
    broker.acknowledge(&mut sim, SUB, &ack_ids).expect("ack");
    broker.advance(&mut sim, 10);
    let next = labels(&broker.pull(&mut sim, SUB, 10).expect("pull"));
    (labels(&acked), next)
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
    let (_, again) = after_one_missed_ack(account_key, false);
    // Variations: exactly-once delivery as well; one key for the bank.
    let (_, exactly_once) = after_one_missed_ack(account_key, true);
    let (_, one_key) = after_one_missed_ack(bank_key, false);
    obs.ask(
        "Variation: the redelivery experiment with one key for the bank. Does the next pull hand out B#1?",
        one_key.iter().any(|l| l == "B#1"),
    );
    obs.ask(
        "Variation: the redelivery experiment on a subscription with exactly-once delivery as well. Does the next pull hand out A#3?",
        exactly_once.iter().any(|l| l == "A#3"),
    );
    // What the chapter reports and no question asks: the redelivery itself, after a nack
    // of A#1, and of an acknowledged message whose ack was lost (the client saw ok).
    let after_nack = after_a_nack();
    let acked_came_back = acked_message_delivered_again();
    vec![
        ("redelivered_after_missed_ack", again.into()),
        (
            "redelivered_with_exactly_once_delivery",
            exactly_once.into(),
        ),
        ("redelivered_with_one_key_for_the_bank", one_key.into()),
        ("redelivered_after_a_nack_of_a1", after_nack.into()),
        (
            "acked_message_delivered_again_after_a_lost_ack",
            acked_came_back.into(),
        ),
    ]
}
