//! The build phase, part 2: exactly five reminder e-mails per overdue invoice.
//!
//! `on_reminder` runs for every delivery of an overdue invoice, from the subscription
//! `reminders` (dead-letter policy: 5 attempts) and, once the broker forwarded it, from
//! `reminders-dead`. Several invoices are overdue at once. The process can crash before
//! or after a commit; acks can be lost; a reminder send can time out, whether or not the
//! e-mail went out.
//!
//! Goal: the customer of each invoice receives exactly five reminder e-mails, under every
//! schedule the graded suite explores. Grade it with `cargo labs check 06`.

use dead_letters::world::{Crash, Delivery, REMINDERS_DEAD, Reminders};

// ANCHOR: on_reminder
/// Sends the next reminder for the invoice a delivery carries.
pub fn on_reminder(job: &mut Reminders, received: &Delivery) -> Result<(), Crash> {
    let invoice = received.message.data.clone();
    if job.subscription() == REMINDERS_DEAD {
        // Dead-lettered: the five attempts are used up, so five reminders went out.
        job.ack(received);
        return Ok(());
    }
    // One reminder per delivery; the dead-letter policy (5 attempts) stops it at
    // five.
    // TODO: what does the broker promise about `delivery_attempt` and the maximum?
    let _ = job.send_reminder(&invoice, &received.ack_id);
    if received.delivery_attempt >= 5 {
        job.ack(received);
    } else {
        job.nack(received);
    }
    Ok(())
}
// ANCHOR_END: on_reminder
