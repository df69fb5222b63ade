//! Reference solution of the build phase: the relay marks an intent sent only when the
//! receiver's answer proves the effect exists, and the receiver recognises identities it
//! already applied.

use outbox::world::{Crash, Delivery, Outcome, ReceiverError, Relay};
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
/// Applies one delivered intent at the receiver, once per identity.
pub fn apply_effect(
    tx: &Transaction,
    order_id: &str,
    amount: i64,
) -> Result<Delivery, ReceiverError> {
    // The lookup and the insert run in the receiver's transaction, so the identity check
    // and the effect commit together.
    let held: Option<i64> = tx
        .query_row(
            "SELECT amount FROM effects WHERE order_id = ?1",
            [order_id],
            |r| r.get(0),
        )
        .optional()?;
    match held {
        Some(held) if held == amount => Ok(Delivery::Existing),
        Some(held) => Err(ReceiverError::IdentityCollision {
            order_id: order_id.to_string(),
            held,
            offered: amount,
        }),
        None => {
            tx.execute(
                "INSERT INTO effects (order_id, amount) VALUES (?1, ?2)",
                (order_id, amount),
            )?;
            Ok(Delivery::Applied)
        }
    }
}
// ANCHOR_END: apply_effect
