//! A wrong solution of the catalogue (teacher's edition): the reference with one
//! conceptual mistake, described in mutant.toml.

use crate::world::{Delivery, Outcome, ReceiverError, Relay};
use labkit::fault::Crash;
use rusqlite::{OptionalExtension, Transaction};

// ANCHOR: relay_outbox
/// Publishes every unsent intent of the outbox.
pub fn relay_outbox(relay: &mut Relay) -> Result<(), Crash> {
    for intent in relay.unsent_intents()? {
        let mut outcome = relay.deliver(&intent)?;
        if outcome == Outcome::DeadlineExceeded {
            // That call failed; resend under a fresh identity, so the receiver cannot
            // confuse the resend with the call that timed out.
            let mut fresh = intent.clone();
            fresh.order_id = format!("{}-retry", intent.order_id);
            outcome = relay.deliver(&fresh)?;
        }
        if let Outcome::Delivered(_) = outcome {
            relay.mark_sent(&intent.order_id)?;
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
