//! Retention and seek: what a seek replays, what it does not undo, how soon it acts.

use super::rewind::{purge_then_pull, seek_to_snapshot};
use super::{Summary, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::{Broker, PubsubMessage, SEVEN_DAYS, SeekTarget, SubscriptionConfig};

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
/// Three payments are debited by a consumer that debits on every delivery and then
/// acks; the operator seeks back to t = `to` (0 unless a question says otherwise) and
/// the consumer keeps running. Returns the debits, in order, and whether the first pull
/// after the seek already saw the replay.
fn seek_and_debit(sim: &mut Sim, retention: Retention, to: u64) -> (Vec<String>, bool) {
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
        .seek(sim, "billing", SeekTarget::Time(to))
        .expect("seek");
    let first_pull_saw_replay = consume(sim, &mut broker) > 0;
    // Let the seek settle and the consumer drain whatever it replays.
    broker.advance(sim, 60);
    consume(sim, &mut broker);
    (debits, first_pull_saw_replay)
}
// ANCHOR_END: seek_debits

/// Every schedule with one fault of the seek back to t = 0: its debits, and whether the
/// first pull after the seek saw the replay.
fn explored(retention: Retention) -> Vec<(Vec<String>, bool)> {
    let mut runs = Vec::new();
    fault::explore_all(scope(), |sim| {
        runs.push(seek_and_debit(sim, retention, 0));
        Ok(())
    });
    runs
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let without = explored(Retention::Nothing);
    let with = explored(Retention::Subscription);
    let most = |runs: &[(Vec<String>, bool)]| runs.iter().map(|r| r.0.len()).max();
    let stale: Vec<usize> = (with.iter().filter(|(_, saw)| !saw))
        .map(|(debits, _)| debits.len())
        .collect();
    obs.ask("Neither billing nor the topic retains acknowledged messages. Does some explored schedule of the seek listing end with more than three debits?", most(&without) > Some(3));
    obs.ask("billing retains acknowledged messages. In a schedule where the first pull after the seek still sees the state before it, does the run end with fewer than six debits?", stale.iter().any(|n| *n < 6));
    let purged = purge_then_pull();
    obs.ask("The consumer of the seek listing debits P1, P2 and P3 and stops before acknowledging them; the operator seeks billing to t = 30 and a new consumer starts pulling. Is some payment debited a second time in some explored schedule?", purged.iter().any(|n| *n > 3));
    let from_snapshot = seek_to_snapshot();
    obs.ask("billing does not retain acknowledged messages. The operator takes a snapshot of billing before the consumer's first pull, and seeks billing to it where the seek listing seeks to t = 0. Does the consumer debit P1, P2 or P3 again?", from_snapshot > 3);
    let later = seek_and_debit(&mut Sim::fault_free(), Retention::Subscription, 15).0;
    let answer = match later.len() {
        4 => "a",
        6 => "b",
        3 => "c",
        _ => "none of these",
    };
    obs.choose("billing retains acknowledged messages, and the operator seeks to t = 15 instead of t = 0. How many debits does the seek listing end with, in the schedule without a fault?",
        answer,
        format!("debits after a seek to t = 15: {later:?}"),
    );
    let largest = most(&with).unwrap_or(0);
    let answer = match largest {
        6 => "a",
        7 => "b",
        9 => "c",
        _ => "none of these",
    };
    obs.choose("billing retains acknowledged messages. What is the largest number of debits the seek listing ends with, over the explored schedules?",
        answer,
        format!("the explored schedules ended with at most {largest} debits"),
    );
    let fault_free = |retention| seek_and_debit(&mut Sim::fault_free(), retention, 0).0.len();
    vec![
        (
            "debits_without_retention",
            fault_free(Retention::Nothing).into(),
        ),
        (
            "debits_with_retention",
            fault_free(Retention::Subscription).into(),
        ),
        (
            "debits_with_topic_retention",
            fault_free(Retention::Topic).into(),
        ),
        ("most_debits_without_retention", most(&without).into()),
        ("most_debits_with_retention", largest.into()),
        ("debits_when_the_first_pull_missed_the_seek", stale.into()),
        (
            "debits_after_a_purge",
            purged.into_iter().collect::<Vec<_>>().into(),
        ),
        ("debits_after_a_seek_to_a_snapshot", from_snapshot.into()),
    ]
}
