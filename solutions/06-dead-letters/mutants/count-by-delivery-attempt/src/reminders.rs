//! A wrong solution (catalogue entry): The broker's delivery_attempt counts the reminders: delivery n is reminder n.

use crate::world::{Delivery, REMINDERS_DEAD, REMINDERS_PER_INVOICE, Reminders};
use labkit::fault::Crash;

// ANCHOR: on_reminder
/// Sends the next reminder for the invoice a delivery carries.
pub fn on_reminder(job: &mut Reminders, received: &Delivery) -> Result<(), Crash> {
    // The same handler serves `reminders` and `reminders-dead`: where the delivery came
    // from does not say how many reminders went out; the counter does.
    let invoice = received.message.data.clone();
    let tx = job.begin();
    // The broker counts the deliveries: delivery n is reminder n.
    let sent: i64 = match job.subscription() {
        REMINDERS_DEAD => REMINDERS_PER_INVOICE,
        _ => received.delivery_attempt as i64 - 1,
    };
    if sent >= REMINDERS_PER_INVOICE {
        drop(tx);
        job.ack(received);
        return Ok(());
    }
    let next = sent + 1;
    // The same key for a retry of the same reminder: the provider sends it once.
    let key = format!("{invoice}/reminder-{next}");
    if job.send_reminder(&invoice, &key).is_err() {
        // Maybe sent: the counter stays, the next delivery retries under the same key.
        drop(tx);
        job.nack(received);
        return Ok(());
    }
    job.commit(tx)?;
    if next == REMINDERS_PER_INVOICE {
        job.ack(received);
    } else {
        // Ask for the next delivery: the next reminder.
        job.nack(received);
    }
    Ok(())
}
// ANCHOR_END: on_reminder
