//! Retention and seek: what a seek replays, what it does not undo, how soon it acts.

use super::rewind::{purge_then_pull, seek_to_snapshot, snapshot_before_p2_and_p3};
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

/// Every schedule with one fault of the seek back to t = `to`: its debits, and whether
/// the first pull after the seek saw the replay.
fn explored(retention: Retention, to: u64) -> Vec<(Vec<String>, bool)> {
    let mut runs = Vec::new();
    fault::explore_all(scope(), |sim| {
        runs.push(seek_and_debit(sim, retention, to));
        Ok(())
    });
    runs
}

/// The schedules in which one ack of the consumer's first pull is lost (P1's, P2's or
/// P3's: the pull's order is the first choice, then one choice per ack), with
/// retention: each one's faults and debits.
fn first_pull_ack_lost() -> Vec<(Vec<String>, usize)> {
    [&[0, 1][..], &[0, 0, 1], &[0, 0, 0, 1]]
        .into_iter()
        .map(|path| {
            let mut sim = Sim::replaying(path);
            let (debits, _) = seek_and_debit(&mut sim, Retention::Subscription, 0);
            (sim.fault_list(), debits.len())
        })
        .collect()
}

/// The fewest and the most debits over the explored schedules with retention.
fn debits_over_the_schedules(obs: &mut Observation, with: &[(Vec<String>, bool)]) {
    let counts = with.iter().map(|(debits, _)| debits.len());
    let range = (counts.clone().min(), counts.max());
    let answer = match range {
        (Some(3), Some(6)) => "a",
        (Some(6), Some(6)) => "b",
        (Some(6), Some(7)) => "c",
        (Some(3), Some(7)) => "d",
        _ => "none of these",
    };
    let stale: Vec<usize> = (with.iter().filter(|(_, saw)| !saw))
        .map(|(debits, _)| debits.len())
        .collect();
    obs.choose("billing retains acknowledged messages. Over the explored schedules of the seek listing, what are the fewest and the most debits a run ends with?",
        answer,
        format!("fewest and most debits: {range:?}; where the first pull after the seek came back empty: {stale:?}"),
    );
}

/// The questions that ask for a count of debits.
fn how_many_debits(obs: &mut Observation) {
    let later = seek_and_debit(&mut Sim::fault_free(), Retention::Subscription, 20).0;
    let answer = match later.len() {
        4 => "a",
        6 => "b",
        3 => "c",
        5 => "d",
        _ => "none of these",
    };
    obs.choose("billing retains acknowledged messages, and the operator seeks to t = 20 instead of t = 0. How many debits does the seek listing end with, in the schedule without a fault?",
        answer,
        format!("debits after a seek to t = 20: {later:?}"),
    );
    let lost_before = first_pull_ack_lost();
    let counts: BTreeSet<usize> = lost_before.iter().map(|(_, n)| *n).collect();
    let answer = match counts.iter().copied().collect::<Vec<_>>().as_slice() {
        [7] => "a",
        [6] => "b",
        [4] => "c",
        _ => "none of these",
    };
    obs.choose("billing retains acknowledged messages. In a schedule where one ack of the consumer's first pull is lost, how many debits does the seek listing end with?",
        answer,
        format!("(faults, debits) where an ack of the first pull was lost: {lost_before:?}"),
    );
}

/// A snapshot taken after P1, a seek to it: which payments are debited again.
fn snapshot_taken_after_p1(obs: &mut Observation) -> [usize; 3] {
    let debits = snapshot_before_p2_and_p3();
    let again: Vec<&str> = (["P1", "P2", "P3"].into_iter().zip(debits))
        .filter(|(_, n)| *n > 1)
        .map(|(name, _)| name)
        .collect();
    let answer = match again.as_slice() {
        [] => "a",
        ["P1"] => "b",
        ["P2", "P3"] => "c",
        ["P1", "P2", "P3"] => "d",
        _ => "none of these",
    };
    obs.choose("billing does not retain acknowledged messages. The operator takes a snapshot of billing right after P1 is published, before P2 and P3 are; the consumer debits and acknowledges all three as listed, and the operator seeks billing to the snapshot where the seek listing seeks to t = 0. In the schedule without a fault, which payments are debited a second time?",
        answer,
        format!("debits of P1, P2 and P3: {debits:?}"),
    );
    debits
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let without = explored(Retention::Nothing, 0);
    let with = explored(Retention::Subscription, 0);
    let most = |runs: &[(Vec<String>, bool)]| runs.iter().map(|r| r.0.len()).max();
    let stale: Vec<usize> = (with.iter().filter(|(_, saw)| !saw))
        .map(|(debits, _)| debits.len())
        .collect();
    let skip = explored(Retention::Nothing, 25);
    obs.ask("Neither billing nor the topic retains acknowledged messages, and the operator seeks to t = 25 instead of t = 0. Does some explored schedule of the seek listing end with more than three debits?", most(&skip) > Some(3));
    let fault_free = |retention| seek_and_debit(&mut Sim::fault_free(), retention, 0).0.len();
    let purged = purge_then_pull();
    obs.ask("The consumer of the seek listing debits P1, P2 and P3 and stops before acknowledging them; the operator seeks billing to t = 30 and a new consumer starts pulling. Is some payment debited a second time in some explored schedule?", purged.iter().any(|n| *n > 3));
    let from_snapshot = seek_to_snapshot();
    debits_over_the_schedules(obs, &with);
    let debits = snapshot_taken_after_p1(obs);
    how_many_debits(obs);
    let largest = most(&with).unwrap_or(0);
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
        ("most_debits_after_a_seek_to_25", most(&skip).into()),
        ("most_debits_with_retention", largest.into()),
        ("debits_when_the_first_pull_missed_the_seek", stale.into()),
        (
            "debits_after_a_purge",
            purged.into_iter().collect::<Vec<_>>().into(),
        ),
        ("debits_after_a_seek_to_a_snapshot", from_snapshot.into()),
        (
            "debits_of_p1_p2_p3_after_a_snapshot_taken_after_p1",
            debits.to_vec().into(),
        ),
    ]
}
