//! The observe phase: dead letters, retention, seek, and five reminders counted by
//! delivery attempts.
//!
//! Each experiment runs against the simulated broker; where the broker has a choice (how
//! many attempts before forwarding, which state a pull after a seek sees), the lab runs
//! every schedule with one fault and reports what it saw. The answer keys live in
//! `lab.toml`.

use crate::harness::{INVOICES, REMINDERS, reminder_broker};
use labkit::fault::{self, Scope, Sim};
use labkit::{Observation, Report};
use sim_pubsub::{
    Broker, DeadLetterPolicy, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource,
    SERVICE_AGENT, SeekTarget, SubscriptionConfig,
};
use std::collections::BTreeSet;

const OPERATOR: &str = "user:operator@example.com";

fn scope() -> Scope {
    Scope {
        lab: "06",
        scenario: "observe",
        max_faults: 1,
    }
}

/// One IAM binding: resource, role, member.
type Grant = (Resource, &'static str, &'static str);

/// `orders` with a dead-letter policy of 5 attempts to `orders-dead` (which has a
/// subscription), and the given grants.
fn dead_letter_broker(grants: &[Grant]) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic("orders").expect("topic");
    broker
        .create_topic("orders-dead")
        .expect("dead-letter topic");
    let mut config = SubscriptionConfig::new("fulfilment", "orders");
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: "orders-dead".into(),
        max_delivery_attempts: 5,
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

fn agent_grants() -> Vec<Grant> {
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
/// A poison message, nacked at every delivery for up to 20 deliveries. Returns how many
/// times it was delivered before it reached the dead-letter subscription, or None.
fn poison(sim: &mut Sim, broker: &mut Broker) -> Option<u32> {
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
    (broker.backlog("orders-dead-sub") > 0).then(|| broker.deliveries("fulfilment", "1"))
}
// ANCHOR_END: poison

/// Deliveries before forwarding, over every schedule with one fault.
fn attempts_before_forwarding(grants: &[Grant]) -> BTreeSet<Option<u32>> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = dead_letter_broker(grants);
        seen.insert(poison(sim, &mut broker));
        Ok(())
    });
    seen
}

// ANCHOR: seek_debits
/// Three payments are debited by a consumer that debits on every delivery and then acks;
/// the operator seeks back to t = 0 and the consumer keeps running. Returns the debits in
/// the end and whether the first pull after the seek already saw the replay.
fn seek_and_debit(sim: &mut Sim, retain_acked_messages: bool) -> (usize, bool) {
    let mut broker = Broker::new();
    broker.create_topic("payments").expect("topic");
    let mut config = SubscriptionConfig::new("billing", "payments");
    config.retain_acked_messages = retain_acked_messages;
    broker.create_subscription(config).expect("subscription");
    for payment in ["P1 10", "P2 20", "P3 30"] {
        broker
            .publish(sim, "payments", PubsubMessage::new(payment))
            .expect("publish");
        broker.advance(sim, 10);
    }
    let mut debits: Vec<String> = Vec::new();
    let mut consume = |sim: &mut Sim, broker: &mut Broker| -> usize {
        let batch = broker.pull(sim, "billing", 10).expect("pull");
        for received in &batch {
            debits.push(received.message.data.clone()); // the debit
            let ack = [received.ack_id.clone()];
            broker.acknowledge(sim, "billing", &ack).expect("ack");
        }
        batch.len()
    };
    consume(sim, &mut broker);
    broker
        .seek(sim, "billing", SeekTarget::Time(0))
        .expect("seek");
    let first_pull_saw_replay = consume(sim, &mut broker) > 0;
    // Let the seek settle and the consumer drain whatever it replays.
    broker.advance(sim, 60);
    consume(sim, &mut broker);
    (debits.len(), first_pull_saw_replay)
}

/// Whether the first pull after the seek saw the replay, over every schedule with one
/// fault.
fn first_pull_after_seek() -> BTreeSet<bool> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        seen.insert(seek_and_debit(sim, true).1);
        Ok(())
    });
    seen
}
// ANCHOR_END: seek_debits

// ANCHOR: naive_reminders
/// "Five reminders": one e-mail per delivery, nack until `delivery_attempt` reaches 5,
/// the dead-letter policy (5 attempts) as the backstop. Returns the reminders sent, for
/// every schedule with one fault.
fn reminders_by_attempts() -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = reminder_broker();
        broker
            .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
            .expect("publish");
        let mut sent = 0;
        for _ in 0..20 {
            for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
                sent += 1; // one reminder e-mail per delivery
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
        seen.insert(sent);
        Ok(())
    });
    seen
}
// ANCHOR_END: naive_reminders

// ANCHOR: scenario
pub fn run() -> Report {
    let mut obs = Observation::new("dead-letters");

    let with_agent = attempts_before_forwarding(&agent_grants());
    let forwarded: Vec<u32> = with_agent.iter().flatten().copied().collect();
    let (fewest, most) = (
        forwarded.iter().min().copied().unwrap_or(0),
        forwarded.iter().max().copied().unwrap_or(0),
    );
    obs.check(
        "a poison message is forwarded after exactly max attempts",
        forwarded.len() == with_agent.len() && fewest == 5 && most == 5,
    );
    obs.check(
        "a poison message is forwarded within one attempt of the max",
        forwarded.len() == with_agent.len() && fewest >= 4 && most <= 6,
    );
    let operator_only = attempts_before_forwarding(&[
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
    ]);
    obs.check(
        "an operator's roles let Pub/Sub forward dead letters",
        operator_only.iter().all(|o| o.is_some()),
    );
    obs.check(
        "the service agent with both roles forwards dead letters",
        with_agent.iter().all(|o| o.is_some()),
    );
    let publisher_only = attempts_before_forwarding(&agent_grants()[..1]);
    obs.check(
        "publisher on the dead-letter topic alone is enough",
        publisher_only.iter().all(|o| o.is_some()),
    );

    let (debits_without_retention, _) = seek_and_debit(&mut Sim::fault_free(), false);
    let (debits_with_retention, _) = seek_and_debit(&mut Sim::fault_free(), true);
    let first_pulls = first_pull_after_seek();
    obs.check(
        "seek replays acked messages that were not retained",
        debits_without_retention > 3,
    );
    obs.check(
        "with retain_acked_messages a seek replays acked messages",
        debits_with_retention > 3,
    );
    obs.check(
        "a seek undoes the debits already applied",
        debits_with_retention < 3,
    );
    obs.check(
        "the first pull after a seek always sees the replay",
        first_pulls.iter().all(|saw| *saw),
    );

    let reminders = reminders_by_attempts();
    obs.check(
        "counting delivery attempts sends exactly five reminders",
        reminders.iter().all(|n| *n == 5),
    );

    let attempts_answer = if forwarded.is_empty() {
        "c"
    } else if fewest == 5 && most == 5 {
        "a"
    } else {
        "b"
    };
    obs.answer(
        "poison-attempts",
        attempts_answer,
        format!(
            "delivered between {fewest} and {most} times before it reached the dead-letter topic"
        ),
    );
    let operator_answer = if operator_only.iter().all(|o| o.is_none()) {
        "b"
    } else {
        "a"
    };
    obs.answer(
        "operator-grant",
        operator_answer,
        format!(
            "with only the operator's roles: {}",
            if operator_answer == "b" {
                "never forwarded, delivered 20 times and counting"
            } else {
                "forwarded"
            }
        ),
    );
    let seek_answer = match debits_with_retention {
        6 => "b",
        3 => "a",
        0 => "c",
        _ => "d",
    };
    obs.answer(
        "seek-debits",
        seek_answer,
        format!("{debits_with_retention} debit(s) after the seek and the second run; {debits_without_retention} without retained acknowledged messages"),
    );

    let summary = serde_json::json!({
        "deliveries_before_forwarding": forwarded,
        "operator_only_forwarded": operator_only.iter().any(|o| o.is_some()),
        "publisher_only_forwarded": publisher_only.iter().any(|o| o.is_some()),
        "debits_without_retention": debits_without_retention,
        "debits_with_retention": debits_with_retention,
        "first_pull_after_seek_saw_replay": first_pulls,
        "reminders_sent_by_attempt_counting": reminders,
    });
    obs.finish(None, summary)
}
// ANCHOR_END: scenario
