//! Wrong solution: reconciles from the settlement rows.

use crate::world::{App, Intent, RECONCILIATION, RECORDED, SETTLEMENTS, Stop, UNRECORDED};
use sim_spanner::{ChargeRequest, Row};

// ANCHOR: settle
/// The settlement's idempotency key: derived from the intent, so every attempt of every
/// process sends the same one.
fn idempotency_key(intent: &Intent) -> String {
    format!("settle-{}", intent.id)
}

/// Settles one intent: charges its amount once and records the receipt in its row.
pub fn settle(app: &mut App<'_>, intent: &Intent) -> Result<(), Stop> {
    // 1. Locate the state of the original identity before doing anything.
    match app.read(SETTLEMENTS, intent.id) {
        Some(row) if row.text("status") == Some("settled") => return Ok(()),
        Some(_pending) => {}
        None => {
            let key = idempotency_key(intent);
            // Record the intent and its key first. Insert only if absent: after a
            // DEADLINE_EXCEEDED the first commit may have applied (or may still land, in
            // which case this transaction's read is invalidated and the runner re-reads).
            app.transaction(|txn, _outside| {
                if txn.read(SETTLEMENTS, intent.id).is_none() {
                    txn.insert(
                        SETTLEMENTS,
                        intent.id,
                        Row::new()
                            .with("amount", intent.amount)
                            .with("status", "pending")
                            .with("idempotency_key", key.as_str()),
                    );
                }
                Ok(())
            })?;
        }
    }

    // 2. Charge outside any callback, under the intent's key, unless the processor
    //    already holds the receipt of an earlier attempt whose response was lost.
    let key = idempotency_key(intent);
    let earlier = app
        .search(intent.id)
        .into_iter()
        .find(|r| r.idempotency_key.as_deref() == Some(key.as_str()));
    let receipt = match earlier {
        Some(receipt) => receipt,
        None => app.charge(ChargeRequest {
            reference: intent.id.to_string(),
            amount: intent.amount,
            idempotency_key: Some(key.clone()),
        })?,
    };

    // 3. Record the receipt. Re-running this transaction is harmless: it only moves a
    //    pending row to settled.
    app.transaction(|txn, _outside| {
        let row = txn.read(SETTLEMENTS, intent.id);
        if row.as_ref().and_then(|r| r.text("status")) != Some("settled") {
            txn.update(
                SETTLEMENTS,
                intent.id,
                Row::new()
                    .with("status", "settled")
                    .with("receipt", receipt.id.as_str()),
            );
        }
        Ok(())
    })?;
    Ok(())
}
// ANCHOR_END: settle

// ANCHOR: reconcile
/// Writes one reconciliation row per receipt, keyed by receipt id.
pub fn reconcile(app: &mut App<'_>) -> Result<(), Stop> {
    // Every settled intent has its receipt in its row: one line per row.
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
