//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Delivery, Outcome, ReceiverError, Relay};
use labkit::fault::Crash;
use rusqlite::{OptionalExtension, Transaction};

// ANCHOR: relay_outbox
/// Publishes every unsent intent of the outbox.
pub fn relay_outbox(relay: &mut Relay) -> Result<(), Crash> {
    for intent in relay.unsent_intents()? {
        match relay.deliver(&intent)? {
            // The answer proves the effect exists, new or recognised: now, and only now,
            // the intent is done.
            Outcome::Delivered(Delivery::Applied | Delivery::Existing) => {
                relay.mark_sent(&intent.order_id)?;
            }
            // No answer, or a refusal: the effect may or may not exist. Leave the intent
            // unsent; the next run sends it again under the same identity, and the
            // receiver recognises it if it was applied.
            Outcome::DeadlineExceeded | Outcome::ResourceExhausted | Outcome::Rejected(_) => {}
        }
    }
    Ok(())
}
// ANCHOR_END: relay_outbox

// ANCHOR: apply_effect
/// Applies one delivered intent at the receiver, once per payment.
pub fn apply_effect(
    tx: &Transaction,
    order_id: &str,
    amount: i64,
) -> Result<Delivery, ReceiverError> {
    // A payment already made for this amount is the same payment again.
    let held: Option<String> = tx
        .query_row(
            "SELECT order_id FROM effects WHERE amount = ?1",
            [amount],
            |r| r.get(0),
        )
        .optional()?;
    if held.is_some() {
        return Ok(Delivery::Existing);
    }
    tx.execute(
        "INSERT INTO effects (order_id, amount) VALUES (?1, ?2)",
        (order_id, amount),
    )?;
    Ok(Delivery::Applied)
}
// ANCHOR_END: apply_effect
