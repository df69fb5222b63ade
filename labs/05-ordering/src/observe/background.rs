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
/// have passed. Returns how often A#1's work completed, and whether A#1 came back.
fn crash_after_ack() -> (usize, bool) {
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
    let mut completed = Vec::new();
    while let Some((_, label)) = running.pop_due(broker.now()) {
        completed.push(label);
    }
    // The process crashes here: the work still running is gone with it.
    drop(running);
    broker.advance(&mut sim, 10);
    let again = labels(&broker.pull(&mut sim, SUB, 10).expect("pull"));
    let a1 = |l: &String| l == "A#1";
    (
        completed.iter().filter(|l| a1(l)).count(),
        again.iter().any(a1),
    )
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let completions = async_completion_orders();
    obs.ask("The callback starts the work on A#1 and A#2 in the background, acknowledges and returns. Does A#1's work finish before A#2's in every explored schedule?", completions.iter().all(|o| o == &["A#1", "A#2"]));
    let (a1_done, a1_again) = crash_after_ack();
    let answer = match (a1_done, a1_again) {
        (_, true) => "b",
        (0, false) => "a",
        _ => "c",
    };
    obs.choose("The callback starts the work in the background (A#1 takes 3 s, A#2 1 s), acknowledges and returns. The process crashes 2 s later, with A#1's work still running, and a new process pulls after the deadlines. What becomes of A#1?",
        answer,
        format!(
            "A#1's work completed {a1_done} time(s); the new process received A#1 again: {a1_again}"
        ),
    );
    let orders: Vec<String> = completions.iter().map(|o| o.join(" then ")).collect();
    vec![
        ("async_completion_orders", orders.into()),
        (
            "a1_applied_after_a_crash_with_its_work_running",
            a1_done.into(),
        ),
    ]
}
