//! A callback that starts asynchronous work, acknowledges and returns.

use super::{SUB, Summary, TOPIC, broker, effect, labels, scope};
use labkit::Observation;
use labkit::fault::{self, Timers};
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

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let completions = async_completion_orders();
    obs.check(
        "async work started by a callback completes in receipt order",
        completions.iter().all(|o| o == &["A#1", "A#2"]),
    );
    let out_of_order = completions.iter().filter(|o| *o != &["A#1", "A#2"]).count();
    let async_answer = match (out_of_order, completions.len()) {
        (0, _) => "a",
        (n, total) if n < total => "b",
        _ => "c",
    };
    let seen: Vec<String> = completions.iter().map(|o| o.join(" then ")).collect();
    obs.answer(
        "async-completion",
        async_answer,
        format!("completion orders seen: {}", seen.join("; ")),
    );
    vec![("async_completion_orders", completions.len().into())]
}
