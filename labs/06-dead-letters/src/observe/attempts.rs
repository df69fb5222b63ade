//! Five reminders counted by delivery attempts.

use super::{Summary, scope};
use crate::scenarios::reminder_broker;
use crate::world::{INVOICES, REMINDERS};
use labkit::Observation;
use labkit::fault;
use sim_pubsub::PubsubMessage;
use std::collections::BTreeSet;

// ANCHOR: naive_reminders
/// "Five reminders": one e-mail per delivery, nack until `delivery_attempt` reaches 5,
/// the dead-letter policy (5 attempts) as the backstop. Returns the reminders sent, for
/// every schedule with one fault.
fn reminders_by_attempts() -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = reminder_broker();
        broker
            .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
            .expect("publish");
        let mut sent = 0;
        for _ in 0..20 {
            for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
                sent += 1; // one reminder e-mail per delivery
                let id = [received.ack_id.clone()];
                if received.delivery_attempt >= 5 {
                    broker.acknowledge(sim, REMINDERS, &id).expect("ack");
                } else {
                    broker
                        .modify_ack_deadline(sim, REMINDERS, &id, 0)
                        .expect("nack");
                }
            }
            broker.advance(sim, 10);
        }
        seen.insert(sent);
        Ok(())
    });
    seen
}
// ANCHOR_END: naive_reminders

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let reminders = reminders_by_attempts();
    obs.check(
        "counting delivery attempts sends exactly five reminders",
        reminders.iter().all(|n| *n == 5),
    );
    let reminders: Vec<usize> = reminders.into_iter().collect();
    vec![("reminders_sent_by_attempt_counting", reminders.into())]
}
