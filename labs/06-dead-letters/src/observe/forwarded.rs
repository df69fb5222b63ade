//! What becomes of a forwarded message: a dead-letter topic without a subscription, the
//! count a dead letter carries, and a key of an ordered subscription that loses a message.

use super::dead_letter::{agent_grants, dead_letter_broker, poison};
use super::{Summary, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::{
    ATTR_SOURCE_DELIVERY_COUNT, Broker, DeadLetterPolicy, PubsubMessage, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SeekTarget, SubscriptionConfig,
};
use std::collections::BTreeSet;

/// The poison message forwarded to `orders-dead` before `orders-dead` has a
/// subscription; one is created afterwards. Returns what `poison` returned, whether the
/// new subscription gets the message, and whether the source subscription still holds it.
fn forwarded_without_a_subscription() -> (Option<u32>, bool, bool) {
    let mut sim = Sim::fault_free();
    let mut broker = Broker::new();
    broker.create_topic("orders").expect("topic");
    broker.create_topic("orders-dead").expect("topic");
    let mut config = SubscriptionConfig::new("fulfilment", "orders");
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: "orders-dead".into(),
        max_delivery_attempts: 5,
    });
    broker.create_subscription(config).expect("subscription");
    for (resource, role, member) in agent_grants() {
        broker.add_iam_binding(resource, role, member);
    }
    let returned = poison(&mut sim, &mut broker);
    let late = SubscriptionConfig::new("orders-dead-sub", "orders-dead");
    broker.create_subscription(late).expect("subscription");
    let arrived = !broker
        .pull(&mut sim, "orders-dead-sub", 10)
        .expect("pull")
        .is_empty();
    (returned, arrived, broker.backlog("fulfilment") > 0)
}

/// The `delivery_attempt` a dead letter carries on the dead-letter subscription, and the
/// source's count in its attribute.
fn dead_letter_attempt() -> (u32, String) {
    let mut sim = Sim::fault_free();
    let mut broker = dead_letter_broker(&agent_grants(), 5);
    let _ = poison(&mut sim, &mut broker);
    let dead = broker.pull(&mut sim, "orders-dead-sub", 10).expect("pull");
    let first = dead.first().expect("a dead letter");
    let count = first.message.attributes.get(ATTR_SOURCE_DELIVERY_COUNT);
    (first.delivery_attempt, count.cloned().unwrap_or_default())
}

// ANCHOR: ordered_dead_letter
/// Ordering and a dead-letter policy (5 attempts) on one subscription. Key A holds A#1,
/// A#2 (poison) and A#3; chapter 5's consumer applies a key's next effect only, and nacks
/// the rest. Over every schedule with one fault: where does A#3 end up?
fn ordered_dead_letter() -> BTreeSet<&'static str> {
    let mut ends = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = dead_letter_broker(&agent_grants(), 5);
        let mut config = SubscriptionConfig::new("ordered", "orders");
        config.enable_message_ordering = true;
        config.dead_letter_policy = Some(DeadLetterPolicy {
            dead_letter_topic: "orders-dead".into(),
            max_delivery_attempts: 5,
        });
        broker.create_subscription(config).expect("subscription");
        let source = Resource::Subscription("ordered".into());
        broker.add_iam_binding(source, ROLE_SUBSCRIBER, SERVICE_AGENT);
        for data in ["A#1", "A#2 poison", "A#3"] {
            let message = PubsubMessage::with_key(data, "A");
            broker.publish(sim, "orders", message).expect("publish");
        }
        let mut next = 1;
        for _ in 0..20 {
            for received in broker.pull(sim, "ordered", 10).expect("pull") {
                let seq: u32 = received.message.data[2..3].parse().expect("seq");
                let ids = [received.ack_id.clone()];
                if seq == next && !received.message.data.contains("poison") {
                    next += 1;
                    broker.acknowledge(sim, "ordered", &ids).expect("ack");
                } else if seq < next {
                    broker.acknowledge(sim, "ordered", &ids).expect("ack");
                } else {
                    broker
                        .modify_ack_deadline(sim, "ordered", &ids, 0)
                        .expect("nack");
                }
            }
            broker.advance(sim, 10);
        }
        let dead = broker.topic_messages("orders-dead");
        let a3_dead = dead.iter().any(|m| m.data == "A#3");
        ends.insert(match (a3_dead, next > 3) {
            (true, _) => "dead-letter topic",
            (false, true) => "applied",
            (false, false) => "waiting",
        });
        Ok(())
    });
    ends
}
// ANCHOR_END: ordered_dead_letter

/// `fulfilment` retains acknowledged messages (`orders` has no retention); once `poison`
/// has returned, the operator seeks `fulfilment` back to t = 0,
/// and a consumer pulls, then pulls again a minute later. Over every schedule with one
/// fault: was the poison message delivered on `fulfilment` again?
fn seek_after_forwarding() -> BTreeSet<bool> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = Broker::new();
        broker.create_topic("orders").expect("topic");
        broker.create_topic("orders-dead").expect("topic");
        let mut config = SubscriptionConfig::new("fulfilment", "orders");
        config.retain_acked_messages = true;
        config.dead_letter_policy = Some(DeadLetterPolicy {
            dead_letter_topic: "orders-dead".into(),
            max_delivery_attempts: 5,
        });
        broker.create_subscription(config).expect("subscription");
        let dead = SubscriptionConfig::new("orders-dead-sub", "orders-dead");
        broker.create_subscription(dead).expect("subscription");
        for (resource, role, member) in agent_grants() {
            broker.add_iam_binding(resource, role, member);
        }
        let _ = poison(sim, &mut broker);
        let before = broker.deliveries("fulfilment", "1");
        broker
            .seek(sim, "fulfilment", SeekTarget::Time(0))
            .expect("seek");
        broker.pull(sim, "fulfilment", 10).expect("pull");
        broker.advance(sim, 60);
        broker.pull(sim, "fulfilment", 10).expect("pull");
        seen.insert(broker.deliveries("fulfilment", "1") > before);
        Ok(())
    });
    seen
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let again = seek_after_forwarding();
    obs.ask("fulfilment retains acknowledged messages; the topic orders retains nothing. After poison has returned, the operator seeks fulfilment back to t = 0. Is the poison message delivered on fulfilment again?", again.iter().all(|a| *a));
    let ends = ordered_dead_letter();
    let answer = match ends.iter().copied().collect::<Vec<_>>().as_slice() {
        ["applied"] => "a",
        ["waiting"] => "b",
        ["dead-letter topic"] => "c",
        _ => "none of these",
    };
    obs.choose("A subscription, ordered, on orders has message ordering and fulfilment's dead-letter policy, and the service agent holds both roles on it. Key A holds A#1, A#2 and A#3; A#2 is poison, nacked at every delivery. The consumer applies a key's messages in order only: it applies and acks the next one, acks one it has already applied, and nacks a later one. Where is A#3 when the run ends, over the explored schedules?",
        answer,
        format!("where A#3 ended, over the explored schedules: {ends:?}"),
    );
    let (returned, arrived, still_on_source) = forwarded_without_a_subscription();
    let answer = match (returned, arrived, still_on_source) {
        (Some(_), false, false) => "a",
        (None, false, false) => "b",
        (None, true, _) => "c",
        (Some(_), true, _) => "d",
        _ => "none of these",
    };
    obs.choose("orders-dead has no subscription while poison runs; orders-dead-sub is created after it returns. What does poison, as listed, return, and what does orders-dead-sub receive?",
        answer,
        format!("poison returned {returned:?}; orders-dead-sub received the message: {arrived}; still on fulfilment: {still_on_source}"),
    );
    let (attempt, attribute) = dead_letter_attempt();
    let ends: Vec<&str> = ends.into_iter().collect();
    vec![
        ("late_subscription_received_the_dead_letter", arrived.into()),
        ("dead_letter_delivery_attempt", attempt.into()),
        ("dead_letter_source_delivery_count", attribute.into()),
        ("a3_after_a2_was_dead_lettered", ends.into()),
        (
            "redelivered_on_the_source_after_a_seek",
            again.iter().all(|a| *a).into(),
        ),
    ]
}
