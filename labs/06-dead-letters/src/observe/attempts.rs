//! Five reminders counted by delivery attempts.

use super::counting::{Reminded, counter_with_key, reminded};
use super::{Summary, scope};
use crate::scenarios::reminder_broker;
use crate::world::{INVOICES, REMINDERS, REMINDERS_DEAD};
use labkit::Observation;
use labkit::fault::{self, Sim};
use labkit::figure::Sequence;
use sim_pubsub::PubsubMessage;
use std::collections::BTreeSet;

// ANCHOR: naive_reminders
/// "Five reminders": one e-mail per delivery, nack until `delivery_attempt` reaches 5,
/// the dead-letter policy (5 attempts) as the backstop. Returns the `delivery_attempt`
/// of each delivery, one reminder e-mail each.
fn remind_by_attempts(sim: &mut Sim) -> Vec<u32> {
    let mut broker = reminder_broker();
    broker
        .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
        .expect("publish");
    let mut reminders = Vec::new();
    for _ in 0..20 {
        for received in broker.pull(sim, REMINDERS, 1).expect("pull") {
            reminders.push(received.delivery_attempt); // one e-mail per delivery
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
    reminders
}
// ANCHOR_END: naive_reminders

/// The reminders of every schedule with one fault (each schedule's attempts).
fn reminders_by_attempts() -> BTreeSet<Vec<u32>> {
    let mut seen = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        seen.insert(remind_by_attempts(sim));
        Ok(())
    });
    seen
}

/// The schedule that sent the fewest reminders, drawn for chapter 6.
pub fn fewest_reminders_figure() -> Sequence {
    let fewest = reminders_by_attempts()
        .into_iter()
        .min_by_key(|attempts| attempts.len())
        .unwrap_or_default();
    let mut figure = Sequence::new(
        "Five reminders counted by delivery attempts: one schedule",
        &["Pub/Sub", "reminder job", "mail provider"],
    );
    for attempt in &fewest {
        let delivery = format!("INV-7, delivery_attempt {attempt}");
        figure = figure
            .call("Pub/Sub", "reminder job", &delivery)
            .call("reminder job", "mail provider", "send a reminder")
            .call("reminder job", "Pub/Sub", "nack");
    }
    let n = fewest.len();
    figure
        .note(
            "Pub/Sub",
            &format!("forwarded to reminders-dead after {n} attempts"),
        )
        .note("mail provider", &format!("{n} reminders sent"))
}

/// The reminders sent over `runs`, each count once, in order.
fn sent(runs: &BTreeSet<Reminded>) -> Vec<usize> {
    let counts: BTreeSet<usize> = runs.iter().map(|run| run.sent).collect();
    counts.into_iter().collect()
}

/// The job that keeps a count and sends under keys, its second send timing out: the
/// reminders that reached the customer, over the schedules.
fn keyed_reminders(obs: &mut Observation) -> Vec<usize> {
    let keyed: BTreeSet<usize> = (counter_with_key().into_iter())
        .filter(|(faults, _)| !faults.is_empty())
        .map(|(_, sent)| sent)
        .collect();
    let keyed: Vec<usize> = keyed.into_iter().collect();
    let answer = match keyed.as_slice() {
        [5] => "a",
        [4] => "b",
        [6] => "c",
        _ => "none of these",
    };
    obs.choose("A reminder job pulls reminders as the listed one does, but keeps a durable count per invoice: it sends reminder N under the idempotency key INV-7/reminder-N, counts it once the provider confirms it, nacks until five are counted, then acks. Its second send times out. How many reminders reach the customer?",
        answer,
        format!("reminder e-mails when the second send timed out: {keyed:?}"),
    );
    keyed
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let both = reminded(5, true, &[REMINDERS, REMINDERS_DEAD]);
    let early: Vec<&Reminded> = (both.iter())
        .filter(|run| run.faults.iter().any(|f| f.ends_with("forward early")))
        .collect();
    let reminders: BTreeSet<usize> = reminders_by_attempts().iter().map(Vec::len).collect();
    obs.ask(
        "Does the reminder job as listed send a sixth reminder in some explored schedule?",
        reminders.iter().any(|n| *n > 5),
    );
    // The publisher role alone, for the chapter's account of the run.
    let publisher_only = sent(&reminded(5, false, &[REMINDERS]));
    let ten = sent(&reminded(10, true, &[REMINDERS]));
    let answer = match ten.iter().max() {
        Some(5) => "a",
        Some(10) => "b",
        Some(11) => "c",
        Some(6) => "d",
        _ => "none of these",
    };
    obs.choose("The reminders subscription's max_delivery_attempts is raised to 10; the job is as listed. What is the largest number of reminders INV-7 gets in one explored schedule?",
        answer,
        format!("reminders sent with a maximum of 10: {ten:?}"),
    );
    let keyed = keyed_reminders(obs);
    let reminders: Vec<usize> = reminders.into_iter().collect();
    let early: Vec<usize> = early.iter().map(|run| run.sent).collect();
    vec![
        ("reminders_sent_by_attempt_counting", reminders.into()),
        (
            "reminders_when_forwarded_early_and_dead_served",
            early.into(),
        ),
        (
            "reminders_with_the_publisher_role_only",
            publisher_only.into(),
        ),
        ("reminders_with_a_maximum_of_10", ten.into()),
        (
            "reminders_with_a_counter_and_keys_after_a_timeout",
            keyed.into(),
        ),
    ]
}
