//! Variations of the seek listing: a seek to the present that skips messages a consumer
//! was still holding, and seeks to snapshots taken before the first pull and before P2.

use super::scope;
use labkit::fault::{self, Sim};
use sim_pubsub::{Broker, PubsubMessage, SeekTarget, SubscriptionConfig};
use std::collections::BTreeSet;

/// `billing` on `payments` (acknowledged messages not retained), and P1, P2 and P3
/// published ten seconds apart, as in the seek listing.
fn payments_published(sim: &mut Sim) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic("payments").expect("topic");
    let config = SubscriptionConfig::new("billing", "payments");
    broker.create_subscription(config).expect("subscription");
    for payment in ["P1 10", "P2 20", "P3 30"] {
        broker
            .publish(sim, "payments", PubsubMessage::new(payment))
            .expect("publish");
        broker.advance(sim, 10);
    }
    broker
}

/// One pull of the listing's consumer: a debit for every delivery, then an ack when
/// `ack` is set. Returns the debits.
fn pull_and_debit(sim: &mut Sim, broker: &mut Broker, ack: bool) -> usize {
    let batch = broker.pull(sim, "billing", 10).expect("pull");
    for received in &batch {
        if ack {
            let ids = [received.ack_id.clone()];
            broker.acknowledge(sim, "billing", &ids).expect("ack");
        }
    }
    batch.len()
}

/// The consumer debits P1 to P3 and stops before acknowledging them; the operator seeks
/// `billing` to t = 30 (the present) to skip them, and a new consumer pulls, then pulls
/// again a minute later. The debits of every schedule with one fault.
pub(super) fn purge_then_pull() -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = payments_published(sim);
        let mut debits = pull_and_debit(sim, &mut broker, false);
        broker
            .seek(sim, "billing", SeekTarget::Time(30))
            .expect("seek");
        debits += pull_and_debit(sim, &mut broker, true);
        broker.advance(sim, 60);
        debits += pull_and_debit(sim, &mut broker, true);
        seen.insert(debits);
        Ok(())
    });
    seen
}

/// A snapshot of `billing` before the first pull; the consumer debits and acks P1 to P3;
/// the operator seeks `billing` to the snapshot. The debits without a fault.
pub(super) fn seek_to_snapshot() -> usize {
    let mut sim = Sim::fault_free();
    let mut broker = payments_published(&mut sim);
    broker
        .create_snapshot("before-billing", "billing")
        .expect("snapshot");
    let mut debits = pull_and_debit(&mut sim, &mut broker, true);
    let snapshot = SeekTarget::Snapshot("before-billing".into());
    broker.seek(&mut sim, "billing", snapshot).expect("seek");
    debits += pull_and_debit(&mut sim, &mut broker, true);
    broker.advance(&mut sim, 60);
    debits + pull_and_debit(&mut sim, &mut broker, true)
}

/// A snapshot of `billing` right after P1 is published, before P2 and P3 are; the
/// consumer debits and acks all three; the operator seeks `billing` to the snapshot.
/// Without a fault: how many times P1, P2 and P3 were debited.
pub(super) fn snapshot_before_p2_and_p3() -> [usize; 3] {
    let mut sim = Sim::fault_free();
    let mut broker = Broker::new();
    broker.create_topic("payments").expect("topic");
    let config = SubscriptionConfig::new("billing", "payments");
    broker.create_subscription(config).expect("subscription");
    let mut debits = [0; 3];
    for payment in ["P1 10", "P2 20", "P3 30"] {
        broker
            .publish(&mut sim, "payments", PubsubMessage::new(payment))
            .expect("publish");
        if payment.starts_with("P1") {
            broker
                .create_snapshot("after-p1", "billing")
                .expect("snapshot");
        }
        broker.advance(&mut sim, 10);
    }
    let mut pull = |sim: &mut Sim, broker: &mut Broker| {
        let batch = broker.pull(sim, "billing", 10).expect("pull");
        for received in &batch {
            for (count, name) in debits.iter_mut().zip(["P1", "P2", "P3"]) {
                *count += usize::from(received.message.data.starts_with(name));
            }
            let ids = [received.ack_id.clone()];
            broker.acknowledge(sim, "billing", &ids).expect("ack");
        }
    };
    pull(&mut sim, &mut broker);
    let snapshot = SeekTarget::Snapshot("after-p1".into());
    broker.seek(&mut sim, "billing", snapshot).expect("seek");
    pull(&mut sim, &mut broker);
    broker.advance(&mut sim, 60);
    pull(&mut sim, &mut broker);
    debits
}
