//! Your part: settle each intent exactly once, and reconcile every receipt.
//!
//! `settle` is called for each intent by one process after another (a process can crash
//! after any step, and every error ends it); it must leave the intent charged once and its
//! settlement row `settled` with that receipt. `reconcile` is called the same way over a
//! history that already holds a duplicate charge and a charge that was never recorded.

use crate::world::{App, Intent, RECONCILIATION, RECORDED, SETTLEMENTS, Stop};
use sim_spanner::{ChargeRequest, Row};

// ANCHOR: settle
/// Settles one intent: charges its amount and records the receipt in its settlement row.
pub fn settle(app: &mut App<'_>, intent: &Intent) -> Result<(), Stop> {
    // TODO: the runner calls this callback again whenever the commit ends ABORTED, and
    //       the charge inside it happens again with it. Record the intent first (a
    //       `pending` row with a stable idempotency key), and charge outside the callback.
    // TODO: a commit or a charge that ends DEADLINE_EXCEEDED / timeout was neither rolled
    //       back nor done. Before charging again, locate the state of the original
    //       identity (the settlement row; the processor's receipts for this intent) and
    //       resend only under the same idempotency key.
    app.transaction(|txn, outside| {
        if txn.read(SETTLEMENTS, intent.id).is_some() {
            return Ok(()); // already settled
        }
        let receipt = outside.charge(ChargeRequest {
            reference: intent.id.to_string(),
            amount: intent.amount,
            idempotency_key: None,
        })?;
        txn.insert(
            SETTLEMENTS,
            intent.id,
            Row::new()
                .with("amount", intent.amount)
                .with("status", "settled")
                .with("receipt", receipt.id.as_str()),
        );
        Ok(())
    })?;
    Ok(())
}
// ANCHOR_END: settle

// ANCHOR: reconcile
/// Writes one reconciliation row per receipt, keyed by receipt id.
pub fn reconcile(app: &mut App<'_>) -> Result<(), Stop> {
    // TODO: one settlement row does not mean one receipt. Relate *every* receipt the
    //       processor issued (`app.all_receipts()`) to its intent and attempt (the
    //       idempotency key it was sent with, or `no key`), and say whether the settlement
    //       row names it (`RECORDED`) or not (`UNRECORDED`). Change no settlement row and
    //       charge nothing: the evidence stays as it is, an owner decides the rest.
    app.transaction(|txn, _outside| {
        for (intent, row) in txn.scan(SETTLEMENTS) {
            if let (Some(receipt), Some(amount)) = (row.text("receipt"), row.int("amount")) {
                txn.insert_or_update(
                    RECONCILIATION,
                    receipt,
                    Row::new()
                        .with("intent", intent.as_str())
                        .with("attempt", "no key")
                        .with("amount", amount)
                        .with("recorded", true)
                        .with("finding", RECORDED),
                );
            }
        }
        Ok(())
    })?;
    Ok(())
}
// ANCHOR_END: reconcile
