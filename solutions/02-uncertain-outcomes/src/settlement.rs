//! Reference solution: settle each intent exactly once, and reconcile every receipt.
//!
//! The identity of a settlement is its intent id, and the idempotency key derived from it
//! is recorded with the intent before any money moves. Every process starts by locating
//! what earlier processes left behind (the row, then the processor's receipts) and only
//! then acts, always under the same key; no external call runs inside a callback.

use sim_spanner::{ChargeRequest, Row};
use uncertain_outcomes::world::{
    App, Intent, RECONCILIATION, RECORDED, SETTLEMENTS, Stop, UNRECORDED,
};

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
/// Writes one reconciliation row per receipt, keyed by receipt id: intent, attempt,
/// amount, whether the settlement row names it, and the finding. Reads the evidence,
/// writes only to the reconciliation table, charges nothing.
pub fn reconcile(app: &mut App<'_>) -> Result<(), Stop> {
    let receipts = app.all_receipts();
    app.transaction(|txn, _outside| {
        for receipt in &receipts {
            let named = txn
                .read(SETTLEMENTS, &receipt.reference)
                .and_then(|row| row.text("receipt").map(str::to_string));
            let recorded = named.as_deref() == Some(receipt.id.as_str());
            txn.insert_or_update(
                RECONCILIATION,
                &receipt.id,
                Row::new()
                    .with("intent", receipt.reference.as_str())
                    .with(
                        "attempt",
                        receipt.idempotency_key.as_deref().unwrap_or("no key"),
                    )
                    .with("amount", receipt.amount)
                    .with("recorded", recorded)
                    .with("finding", if recorded { RECORDED } else { UNRECORDED }),
            );
        }
        Ok(())
    })?;
    Ok(())
}
// ANCHOR_END: reconcile
