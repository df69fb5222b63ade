//! Retention and seek: what a seek replays, what it does not undo, how soon it acts.

use super::{Summary, scope};
use labkit::Observation;
use labkit::fault::{self, Sim};
use sim_pubsub::{Broker, PubsubMessage, SeekTarget, SubscriptionConfig};
use std::collections::BTreeSet;

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

pub(super) fn observe(obs: &mut Observation) -> Summary {
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
    let first_pulls: Vec<bool> = first_pulls.into_iter().collect();
    vec![
        ("debits_without_retention", debits_without_retention.into()),
        ("debits_with_retention", debits_with_retention.into()),
        ("first_pull_after_seek_saw_replay", first_pulls.into()),
    ]
}
