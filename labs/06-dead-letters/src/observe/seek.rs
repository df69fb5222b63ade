//! Retention and seek: what a seek replays, what it does not undo, how soon it acts.

use super::{Summary, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::{Broker, PubsubMessage, SEVEN_DAYS, SeekTarget, SubscriptionConfig};
use std::collections::BTreeSet;

/// What keeps acknowledged messages for a later seek.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Retention {
    Nothing,
    /// `retain_acked_messages` on the subscription.
    Subscription,
    /// Seven days' `message_retention_duration` on the topic.
    Topic,
}

// ANCHOR: seek_debits
/// Three payments are debited by a consumer that debits on every delivery and then acks;
/// the operator seeks back to t = 0 and the consumer keeps running. Returns the debits in
/// the end and whether the first pull after the seek already saw the replay.
fn seek_and_debit(sim: &mut Sim, retention: Retention) -> (usize, bool) {
    let mut broker = Broker::new();
    broker.create_topic("payments").expect("topic");
    if retention == Retention::Topic {
        broker
            .set_topic_retention("payments", Some(SEVEN_DAYS))
            .expect("retention");
    }
    let mut config = SubscriptionConfig::new("billing", "payments");
    config.retain_acked_messages = retention == Retention::Subscription;
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
        seen.insert(seek_and_debit(sim, Retention::Subscription).1);
        Ok(())
    });
    seen
}
// ANCHOR_END: seek_debits

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let run = |retention| seek_and_debit(&mut Sim::fault_free(), retention).0;
    let debits_without_retention = run(Retention::Nothing);
    let debits_with_retention = run(Retention::Subscription);
    let first_pulls = first_pull_after_seek();
    obs.ask("The subscription does not retain acknowledged messages. After the seek back to t = 0, does the consumer debit P1, P2 and P3 again?", debits_without_retention > 3);
    obs.ask("With retain_acked_messages set before the first run, does the seek make the consumer debit them again?", debits_with_retention > 3);
    obs.ask(
        "Does the seek remove any of the debits the first run made?",
        debits_with_retention < 3,
    );
    obs.ask(
        "Can the first pull after the seek come back without any of the replayed messages?",
        first_pulls.iter().any(|saw| !saw),
    );
    // A variation: the topic retains messages, the subscription does not.
    let topic_retention = run(Retention::Topic);
    let answer = match topic_retention {
        6 => "a",
        _ => "b",
    };
    obs.choose("The subscription does not retain acknowledged messages, but the topic keeps every message for seven days. The consumer debits P1, P2 and P3 and acknowledges them; the operator seeks back to t = 0. How many debits exist afterwards?",
        answer,
        format!("{topic_retention} debit(s) with the topic's retention, {debits_with_retention} with the subscription's, {debits_without_retention} with neither"),
    );
    let first_pulls: Vec<bool> = first_pulls.into_iter().collect();
    vec![
        ("debits_without_retention", debits_without_retention.into()),
        ("debits_with_retention", debits_with_retention.into()),
        ("debits_with_topic_retention", topic_retention.into()),
        ("first_pull_after_seek_saw_replay", first_pulls.into()),
    ]
}
