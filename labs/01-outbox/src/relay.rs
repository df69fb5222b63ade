//! The build phase: your relay and your receiver.
//!
//! `relay_outbox` runs in a relay process that can crash after any of its steps
//! (`unsent_intents`, `deliver`, `mark_sent` each end at a crash point; `?` passes the
//! crash up). After a crash a new process runs `relay_outbox` again from the start, with
//! only what `outbox.db` holds. Between the relay and the receiver, the network can lose
//! a request or its response, refuse a request, or deliver it late (`outbox::world`).
//!
//! `apply_effect` runs at the receiver, inside the receiver's own transaction on
//! `receiver.db` (table `effects (seq, order_id, amount)`).
//!
//! Goal: under every schedule with up to two faults, every intent of the outbox takes
//! effect at the receiver once, never twice, and ends marked sent; an intent whose name
//! the receiver already holds for another amount is refused and stays unsent. Grade it with
//! `cargo labs check 01`; `cargo labs hint 01` gives one hint at a time.

use outbox::world::{Crash, Delivery, ReceiverError, Relay};
use rusqlite::Transaction;

// ANCHOR: relay_outbox
/// Publishes every unsent intent of the outbox.
pub fn relay_outbox(relay: &mut Relay) -> Result<(), Crash> {
    for intent in relay.unsent_intents()? {
        // TODO: an intent marked sent is never sent again; one left unsent is sent
        // again by the next run. Decide, from what `deliver` returned, when marking
        // it sent keeps both: no intent without its effect, none with two.
        let _outcome = relay.deliver(&intent)?;
        relay.mark_sent(&intent.order_id)?;
    }
    Ok(())
}
// ANCHOR_END: relay_outbox

// ANCHOR: apply_effect
/// Applies one delivered intent at the receiver.
pub fn apply_effect(
    tx: &Transaction,
    order_id: &str,
    amount: i64,
) -> Result<Delivery, ReceiverError> {
    // TODO: the same intent can arrive more than once (resent after a crash or a lost
    // response, or landing late). Keep: one identity, at most one effect; an effect
    // already held is never changed by a delivery that does not match it.
    tx.execute(
        "INSERT INTO effects (order_id, amount) VALUES (?1, ?2)",
        (order_id, amount),
    )?;
    Ok(Delivery::Applied)
}
// ANCHOR_END: apply_effect
