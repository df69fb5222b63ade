//! The build phase, part 2, solved: five reminders counted by a durable counter of the
//! application's own, each sent under an idempotency key derived from the count.

use dead_letters::world::{Crash, Delivery, REMINDERS_PER_INVOICE, Reminders};

// ANCHOR: on_reminder
/// Sends the next reminder for the invoice a delivery carries.
pub fn on_reminder(job: &mut Reminders, received: &Delivery) -> Result<(), Crash> {
    // The same handler serves `reminders` and `reminders-dead`: where the delivery came
    // from does not say how many reminders went out; the counter does.
    let invoice = received.message.data.clone();
    let tx = job.begin();
    let sent: i64 = tx
        .query_row(
            "SELECT COALESCE((SELECT sent FROM reminder_counter WHERE invoice = ?1), 0)",
            [&invoice],
            |r| r.get(0),
        )
        .expect("read counter");
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
    tx.execute(
        "INSERT INTO reminder_counter (invoice, sent) VALUES (?1, ?2)
         ON CONFLICT (invoice) DO UPDATE SET sent = excluded.sent",
        (&invoice, next),
    )
    .expect("count reminder");
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
