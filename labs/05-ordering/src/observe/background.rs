//! A callback that starts asynchronous work, acknowledges and returns.

use super::{SUB, Summary, TOPIC, broker, effect, labels, scope};
use labkit::Observation;
use labkit::fault::{self, Sim, Timers};
use sim_pubsub::PubsubMessage;
use std::collections::{BTreeMap, BTreeSet};

/// What one schedule of the background experiment saw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct BackgroundRun {
    /// The effects, in the order their work finished.
    completed: Vec<String>,
    /// Whether some effect was applied before its message's ack was sent.
    applied_before_ack: bool,
}

// ANCHOR: async_callback
/// A callback that hands each message to a background task, acknowledges the message and
/// returns at once. Each task takes 1 s or 3 s, a choice of the fault core. Returns what
/// every schedule with one fault saw.
fn async_runs() -> BTreeSet<BackgroundRun> {
    let mut runs = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        for e in [effect("A", 1), effect("A", 2)] {
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            broker.publish(sim, TOPIC, message).expect("publish");
        }
        let mut running: Timers<String> = Timers::new();
        let mut acked_at = BTreeMap::new();
        for received in broker.pull(sim, SUB, 10).expect("pull") {
            let label = labels(std::slice::from_ref(&received)).remove(0);
            let seconds = [1, 3][sim.choose("worker:duration", &["1 s", "3 s"])];
            running.set(broker.now() + seconds, label.clone());
            // The callback acknowledges and returns here; the work is still running.
            broker
                .acknowledge(sim, SUB, &[received.ack_id])
                .expect("ack");
            acked_at.insert(label, broker.now());
        }
        let mut run = BackgroundRun {
            completed: Vec::new(),
            applied_before_ack: false,
        };
        while let Some((done_at, label)) = running.pop_due(u64::MAX) {
            run.applied_before_ack |= acked_at.get(&label).is_some_and(|&t| done_at < t);
            run.completed.push(label);
        }
        runs.insert(run);
        Ok(())
    });
    runs
}
// ANCHOR_END: async_callback

/// A variation: the same callback, with A#1's work taking `seconds[0]` and A#2's
/// `seconds[1]`; the process crashes 2 s after the callbacks returned, and a new process
/// pulls once the deadlines have passed and applies what it receives. Returns the
/// effects applied, in order.
fn crash_after_ack(seconds: [u64; 2]) -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [effect("A", 1), effect("A", 2)] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let mut running: Timers<String> = Timers::new();
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    for (received, seconds) in batch.into_iter().zip(seconds) {
        let label = labels(std::slice::from_ref(&received)).remove(0);
        running.set(broker.now() + seconds, label);
        broker
            .acknowledge(&mut sim, SUB, &[received.ack_id])
            .expect("ack");
    }
    broker.advance(&mut sim, 2);
    let mut applied = Vec::new();
    while let Some((_, label)) = running.pop_due(broker.now()) {
        applied.push(label);
    }
    // The process crashes here: the work still running is gone with it.
    drop(running);
    broker.advance(&mut sim, 10);
    applied.extend(labels(&broker.pull(&mut sim, SUB, 10).expect("pull")));
    applied
}

/// A variation: each background task acknowledges its message once its work is done
/// (the callback still returns at once); A#1's work takes `seconds[0]` and A#2's
/// `seconds[1]`; the process crashes 2 s after the callbacks returned, and a new process
/// pulls once the deadlines have passed and applies what it receives. Returns the
/// effects applied, in order.
fn crash_before_ack(seconds: [u64; 2]) -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [effect("A", 1), effect("A", 2)] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let mut running: Timers<(String, String)> = Timers::new();
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    for (received, seconds) in batch.into_iter().zip(seconds) {
        let label = labels(std::slice::from_ref(&received)).remove(0);
        running.set(broker.now() + seconds, (label, received.ack_id));
    }
    let crash_at = broker.now() + 2;
    let mut applied = Vec::new();
    while let Some((done_at, (label, ack_id))) = running.pop_due(crash_at) {
        broker.advance(&mut sim, done_at - broker.now());
        applied.push(label);
        broker.acknowledge(&mut sim, SUB, &[ack_id]).expect("ack");
    }
    broker.advance(&mut sim, crash_at - broker.now());
    // The process crashes here: the work still running is gone with it, unacknowledged.
    drop(running);
    broker.advance(&mut sim, 10);
    applied.extend(labels(&broker.pull(&mut sim, SUB, 10).expect("pull")));
    applied
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let runs = async_runs();
    let acked_when_done = crash_before_ack([3, 1]);
    let a2_applied = acked_when_done.iter().filter(|l| *l == "A#2").count();
    obs.ask("Variation: in the background experiment, each background task acks its message only once its work is done (the callback still returns at once); A#1's work takes the longer of the two durations, A#2's the shorter, and the process crashes 2 s after the callbacks return. Once a new process has pulled after the deadlines and applied what it received, has A#2 been applied twice?", a2_applied == 2);
    // What the chapter reports and no question asks: the acks go out first; a crash
    // with both works running, or with A#1's.
    let applied_before_ack = runs.iter().any(|r| r.applied_before_ack);
    let both_running = crash_after_ack([3, 3]);
    let a1_longer = crash_after_ack([3, 1]);
    let orders: Vec<String> = runs.iter().map(|r| r.completed.join(" then ")).collect();
    vec![
        ("async_completion_orders", orders.into()),
        ("async_applied_before_its_ack", applied_before_ack.into()),
        (
            "applied_after_a_crash_with_both_running",
            both_running.into(),
        ),
        ("applied_after_a_crash_with_a1_running", a1_longer.into()),
        (
            "applied_when_acked_once_done_and_a_crash",
            acked_when_done.into(),
        ),
    ]
}
