//! A poison message under a dead-letter policy: how many attempts, whose permissions.

use super::{Summary, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::{
    Broker, DeadLetterPolicy, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SubscriptionConfig,
};
use std::collections::BTreeSet;

const OPERATOR: &str = "user:operator@example.com";

/// One IAM binding: resource, role, member.
pub(super) type Grant = (Resource, &'static str, &'static str);

/// `orders` with a dead-letter policy of `max_delivery_attempts` to `orders-dead` (which
/// has a subscription), and the given grants.
pub(super) fn dead_letter_broker(grants: &[Grant], max_delivery_attempts: u32) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic("orders").expect("topic");
    broker
        .create_topic("orders-dead")
        .expect("dead-letter topic");
    let mut config = SubscriptionConfig::new("fulfilment", "orders");
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: "orders-dead".into(),
        max_delivery_attempts,
    });
    broker.create_subscription(config).expect("subscription");
    broker
        .create_subscription(SubscriptionConfig::new("orders-dead-sub", "orders-dead"))
        .expect("dead-letter subscription");
    for (resource, role, member) in grants {
        broker.add_iam_binding(resource.clone(), role, member);
    }
    broker
}

pub(super) fn agent_grants() -> Vec<Grant> {
    vec![
        (
            Resource::Topic("orders-dead".into()),
            ROLE_PUBLISHER,
            SERVICE_AGENT,
        ),
        (
            Resource::Subscription("fulfilment".into()),
            ROLE_SUBSCRIBER,
            SERVICE_AGENT,
        ),
    ]
}

// ANCHOR: poison
/// A poison message, nacked at every delivery for up to 20 deliveries. Returns how
/// many times it was delivered before it reached the dead-letter subscription, if it
/// did.
pub(super) fn poison(sim: &mut Sim, broker: &mut Broker) -> Option<u32> {
    broker
        .publish(sim, "orders", PubsubMessage::new("order 17: malformed"))
        .expect("publish");
    for _ in 0..20 {
        let batch = broker.pull(sim, "fulfilment", 1).expect("pull");
        let Some(received) = batch.first() else {
            break;
        };
        let nack = [received.ack_id.clone()];
        broker
            .modify_ack_deadline(sim, "fulfilment", &nack, 0)
            .expect("nack");
    }
    let forwarded = broker.backlog("orders-dead-sub") > 0;
    forwarded.then(|| broker.deliveries("fulfilment", "1"))
}
// ANCHOR_END: poison

/// Deliveries before forwarding, over every schedule with one fault.
fn attempts_before_forwarding(grants: &[Grant], max: u32) -> BTreeSet<Option<u32>> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = dead_letter_broker(grants, max);
        seen.insert(poison(sim, &mut broker));
        Ok(())
    });
    seen
}

fn operator_grants() -> Vec<Grant> {
    vec![
        (Resource::Project, "roles/owner", OPERATOR),
        (
            Resource::Topic("orders-dead".into()),
            ROLE_PUBLISHER,
            OPERATOR,
        ),
        (
            Resource::Subscription("fulfilment".into()),
            ROLE_SUBSCRIBER,
            OPERATOR,
        ),
    ]
}

/// How many times the poison message was delivered on `fulfilment`, over every schedule
/// with one fault, whether or not it was forwarded.
fn deliveries(grants: &[Grant]) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = dead_letter_broker(grants, 5);
        poison(sim, &mut broker);
        seen.insert(broker.deliveries("fulfilment", "1"));
        Ok(())
    });
    seen
}

pub(super) fn observe(_obs: &mut Observation) -> Summary {
    let operator_only = attempts_before_forwarding(&operator_grants(), 5);
    let ten: Vec<u32> = attempts_before_forwarding(&agent_grants(), 10)
        .into_iter()
        .flatten()
        .collect();
    let with_agent = attempts_before_forwarding(&agent_grants(), 5);
    let forwarded: Vec<u32> = with_agent.iter().flatten().copied().collect();
    // The publisher role alone, for the chapter's account of the run.
    let publisher_only = deliveries(&agent_grants()[..1]);
    let publisher_only: Vec<u32> = publisher_only.into_iter().collect();
    vec![
        ("deliveries_before_forwarding", forwarded.into()),
        (
            "deliveries_before_forwarding_with_a_maximum_of_10",
            ten.into(),
        ),
        (
            "operator_only_forwarded",
            operator_only.iter().any(|o| o.is_some()).into(),
        ),
        (
            "deliveries_with_the_publisher_role_only",
            publisher_only.into(),
        ),
    ]
}
