//! Exactly-once delivery, with a consumer that is sometimes slower than its deadline; and a
//! slow callback behind the raw `Pull` call against one behind a client's lease management.

use super::{SUB, Summary, TOPIC, broker, effect, scope};
use labkit::Observation;
use labkit::fault::{self, Scope, Sim};
use sim_pubsub::{AckResponse, Broker, LeaseManager, PubsubMessage, SubscriptionConfig};
use std::collections::BTreeSet;

/// What one schedule of the exactly-once experiment saw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ExactlyOnceRun {
    /// How many times the consumer applied A#1.
    applied: usize,
    /// What each ack was told, and whether it was sent after the deadline had passed.
    acks: Vec<(AckResponse, bool)>,
}

// ANCHOR: exactly_once
/// A subscription with exactly-once delivery (and a 10 s ack deadline). The consumer
/// applies each delivered effect, then acknowledges with `acknowledge_with_response`; its
/// work takes 5 s or 15 s, a choice of the fault core. Over every schedule with up to
/// `max_faults` faults: how often was A#1 applied, and what was each ack told?
fn exactly_once_runs(max_faults: usize) -> BTreeSet<ExactlyOnceRun> {
    let mut runs = BTreeSet::new();
    let scope = Scope {
        max_faults,
        ..scope()
    };
    fault::explore_all(scope, |sim| {
        let mut broker = Broker::new();
        broker.create_topic(TOPIC).expect("topic");
        let mut config = SubscriptionConfig::new(SUB, TOPIC);
        config.enable_exactly_once_delivery = true;
        broker.create_subscription(config).expect("subscription");
        let e = effect("A", 1);
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(sim, TOPIC, message).expect("publish");
        let mut run = ExactlyOnceRun {
            applied: 0,
            acks: Vec::new(),
        };
        for _ in 0..4 {
            for received in broker.pull(sim, SUB, 10).expect("pull") {
                run.applied += 1; // the effect, applied before the ack
                let seconds = [5, 15][sim.choose("worker:duration", &["5 s", "15 s"])];
                broker.advance(sim, seconds);
                let answer = broker
                    .acknowledge_with_response(sim, SUB, &[received.ack_id])
                    .expect("ack");
                run.acks.push((answer[0], seconds > 10));
            }
            broker.advance(sim, 10);
        }
        runs.insert(run);
        Ok(())
    });
    runs
}
// ANCHOR_END: exactly_once

/// A callback holds A#1 for 25 s against the 10 s deadline, then acknowledges it. Returns
/// how many times A#1 was delivered: through the raw `Pull` call (`managed` false), or
/// through a high-level client whose lease management runs on its defaults.
fn deliveries_when_held_25_s(managed: bool) -> u32 {
    let mut sim = Sim::fault_free();
    let mut broker = broker(false, 10);
    let e = effect("A", 1);
    let message = PubsubMessage::with_key(e.data(), e.account.clone());
    let id = broker.publish(&mut sim, TOPIC, message).expect("publish");
    let received = broker.pull(&mut sim, SUB, 10).expect("pull");
    let mut leases = LeaseManager::new(SUB, 10);
    if managed {
        leases.hold(&broker, &received[0].ack_id);
    }
    leases.advance(&mut broker, &mut sim, 25).expect("extend");
    let ack_ids = [received[0].ack_id.clone()];
    broker.acknowledge(&mut sim, SUB, &ack_ids).expect("ack");
    leases.release(&received[0].ack_id);
    broker.pull(&mut sim, SUB, 10).expect("pull");
    broker.deliveries(SUB, &id)
}

pub(super) fn observe(_obs: &mut Observation) -> Summary {
    let (raw, managed) = (
        deliveries_when_held_25_s(false),
        deliveries_when_held_25_s(true),
    );
    let exactly_once = exactly_once_runs(1);
    let two_faults = exactly_once_runs(2);
    let worst = two_faults.iter().map(|r| r.applied).max().unwrap_or(0);
    let late_acks: Vec<AckResponse> = exactly_once
        .iter()
        .flat_map(|r| r.acks.iter().filter(|(_, late)| *late).map(|(a, _)| *a))
        .collect();
    let late_acks_failed =
        !late_acks.is_empty() && late_acks.iter().all(|a| *a != AckResponse::Success);
    // What each schedule's acks were told, `(late)` after the deadline had passed.
    let acks_told: Vec<Vec<String>> = exactly_once
        .iter()
        .map(|r| {
            r.acks
                .iter()
                .map(|(answer, late)| match late {
                    true => format!("{answer:?} (late)"),
                    false => format!("{answer:?}"),
                })
                .collect()
        })
        .collect();
    let applications: Vec<usize> = exactly_once.iter().map(|r| r.applied).collect();
    vec![
        ("exactly_once_applications", applications.into()),
        ("exactly_once_acks", acks_told.into()),
        ("exactly_once_late_acks_failed", late_acks_failed.into()),
        ("exactly_once_most_applications_two_faults", worst.into()),
        ("held_25_s_deliveries_raw_pull", raw.into()),
        ("held_25_s_deliveries_lease_managed", managed.into()),
    ]
}
