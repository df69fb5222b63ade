//! A callback that starts asynchronous work, acknowledges and returns.

use super::{SUB, Summary, TOPIC, broker, effect, labels, scope};
use labkit::Observation;
use labkit::fault::{self, Sim, Timers};
use sim_pubsub::PubsubMessage;
use std::collections::BTreeSet;

// ANCHOR: async_callback
/// A callback that hands each message to a background task, acknowledges the message and
/// returns at once. Each task takes 1 s or 3 s, a choice of the fault core. Returns the
/// completion order of every schedule with one fault.
fn async_completion_orders() -> BTreeSet<Vec<String>> {
    let mut orders = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        for e in [effect("A", 1), effect("A", 2)] {
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            broker.publish(sim, TOPIC, message).expect("publish");
        }
        let mut running: Timers<String> = Timers::new();
        for received in broker.pull(sim, SUB, 10).expect("pull") {
            let label = labels(std::slice::from_ref(&received)).remove(0);
            let seconds = [1, 3][sim.choose("worker:duration", &["1 s", "3 s"])];
            running.set(broker.now() + seconds, label);
            // The callback acknowledges and returns here; the work is still running.
            broker
                .acknowledge(sim, SUB, &[received.ack_id])
                .expect("ack");
        }
        let mut completed = Vec::new();
        while let Some((_, label)) = running.pop_due(u64::MAX) {
            completed.push(label);
        }
        orders.insert(completed);
        Ok(())
    });
    orders
}
// ANCHOR_END: async_callback

/// A variation: the same callback, with A#1's work taking 3 s and A#2's 1 s; the process
/// crashes 2 s after the callbacks returned, and a new process pulls once the deadlines
/// have passed and applies what it receives. Returns the effects applied, in order.
fn crash_after_ack() -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [effect("A", 1), effect("A", 2)] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let mut running: Timers<String> = Timers::new();
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    for (received, seconds) in batch.into_iter().zip([3, 1]) {
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

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let completions = async_completion_orders();
    obs.ask("In the background experiment, does A#1's work finish before A#2's in every explored schedule?", completions.iter().all(|o| o == &["A#1", "A#2"]));
    let applied = crash_after_ack();
    let answer = match applied.join(",").as_str() {
        "A#2,A#1" | "A#1,A#2" => "a",
        "A#2" => "b",
        "" => "c",
        _ => "?",
    };
    obs.choose("Variation: in the background experiment, A#1's work takes the longer of the two durations and A#2's the shorter, and the process crashes 2 s after the callbacks return. Once a new process has pulled after the deadlines, which effects have been applied?",
        answer,
        format!("applied: [{}]", applied.join(", ")),
    );
    let orders: Vec<String> = completions.iter().map(|o| o.join(" then ")).collect();
    vec![
        ("async_completion_orders", orders.into()),
        ("applied_after_a_crash_with_a1_running", applied.into()),
    ]
}
