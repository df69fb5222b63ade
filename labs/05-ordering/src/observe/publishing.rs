//! A publisher with message ordering whose publish of one message fails.

use super::{SUB, Summary, TOPIC, broker, effect, label, labels, scope};
use crate::world::Effect;
use labkit::Observation;
use labkit::fault;
use sim_pubsub::{PublishError, Publisher, PubsubMessage};
use std::collections::BTreeSet;

/// What one schedule of the publisher experiment saw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct PublishRun {
    /// The effect whose publish failed, if one did.
    failed: Option<String>,
    /// The effects the publisher refused because their key was paused.
    refused: Vec<String>,
    /// What reached the topic, in order.
    on_topic: Vec<String>,
}

// ANCHOR: publisher_pause
/// The bank publishes A#1, A#2, A#3 with ordering key A through a publisher with message
/// ordering enabled. Any one publish may fail (a choice of the fault core); the publisher
/// does not call `resume_publish`. Over every schedule with one fault: what reached the
/// topic?
fn publish_runs() -> BTreeSet<PublishRun> {
    let mut runs = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let mut publisher = Publisher::with_message_ordering(TOPIC);
        let mut run = PublishRun {
            failed: None,
            refused: Vec::new(),
            on_topic: Vec::new(),
        };
        for seq in 1..=3 {
            let e = effect("A", seq);
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            match publisher.publish(sim, &mut broker, message) {
                Ok(_) => {}
                Err(PublishError::Failed(_)) => run.failed = Some(label(&e)),
                Err(PublishError::OrderingKeyPaused { .. }) => run.refused.push(label(&e)),
            }
        }
        run.on_topic = broker
            .topic_messages(TOPIC)
            .iter()
            .map(|m| label(&Effect::parse(m)))
            .collect();
        runs.insert(run);
        Ok(())
    });
    runs
}
// ANCHOR_END: publisher_pause

/// A variation: the publish of A#2 fails; the publisher calls `resume_publish` at once,
/// publishes A#3 and then A#2 again. Returns what an ordered subscription hands out.
fn resumed_then_republished() -> Vec<String> {
    let mut delivered = Vec::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let mut publisher = Publisher::with_message_ordering(TOPIC);
        let mut a2_failed = false;
        for seq in [1, 2, 3] {
            let e = effect("A", seq);
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            let outcome = publisher.publish(sim, &mut broker, message);
            if seq == 2 && matches!(outcome, Err(PublishError::Failed(_))) {
                a2_failed = true;
                publisher.resume_publish("A");
            }
        }
        if a2_failed {
            let e = effect("A", 2);
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            publisher
                .publish(sim, &mut broker, message)
                .expect("publish");
            delivered = labels(&broker.pull(sim, SUB, 10).expect("pull"));
        }
        Ok(())
    });
    delivered
}

/// A variation: the listing's four messages, A#1, B#1, A#2, B#2, with one key for the
/// bank, through a publisher with message ordering. In the schedule where the publish of
/// B#1 fails, returns what reached the topic.
fn one_key_b1_fails() -> Vec<String> {
    let mut on_topic = Vec::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let mut publisher = Publisher::with_message_ordering(TOPIC);
        let mut b1_failed = false;
        for e in [
            effect("A", 1),
            effect("B", 1),
            effect("A", 2),
            effect("B", 2),
        ] {
            let message = PubsubMessage::with_key(e.data(), "bank");
            let outcome = publisher.publish(sim, &mut broker, message);
            b1_failed |= label(&e) == "B#1" && matches!(outcome, Err(PublishError::Failed(_)));
        }
        if b1_failed {
            on_topic = (broker.topic_messages(TOPIC).iter())
                .map(|m| label(&Effect::parse(m)))
                .collect();
        }
        Ok(())
    });
    on_topic
}

/// The labels of A's messages published after the one that failed in `run`.
fn after_failure(run: &PublishRun) -> Vec<String> {
    let failed: i64 = run
        .failed
        .as_deref()
        .and_then(|l| l.strip_prefix("A#"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(i64::MAX);
    (failed + 1..=3).map(|seq| format!("A#{seq}")).collect()
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let publishing = publish_runs();
    let with_a3 = (publishing.iter())
        .filter(|r| r.on_topic.iter().any(|l| l == "A#3"))
        .count();
    obs.ask(
        "In the publishing experiment, does A#3 reach the topic in more than one explored schedule?",
        with_a3 > 1,
    );
    let failures: Vec<&PublishRun> = publishing.iter().filter(|r| r.failed.is_some()).collect();
    let later_on_topic = !failures.is_empty()
        && (failures.iter()).all(|r| after_failure(r).iter().all(|l| r.on_topic.contains(l)));
    let on_topic = one_key_b1_fails();
    // The chapter's variation: resume at once, publish A#3, then A#2 again.
    let delivered = resumed_then_republished();
    let seen: Vec<String> = publishing
        .iter()
        .map(|r| format!("failed {:?}: topic [{}]", r.failed, r.on_topic.join(", ")))
        .collect();
    vec![
        ("published_with_one_failure", seen.into()),
        ("later_messages_reached_the_topic", later_on_topic.into()),
        (
            "delivered_after_resuming_and_republishing",
            delivered.into(),
        ),
        ("on_topic_one_key_b1_failed", on_topic.into()),
    ]
}
