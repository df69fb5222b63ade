//! Wrong solution: the settlement is recorded as settled before the charge.

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
    let key = idempotency_key(intent);
    // 1. Record the outcome first, so that no crash can lose it: a settled row means an
    //    earlier process took this intent through to the end.
    if app.read(SETTLEMENTS, intent.id).is_some() {
        return Ok(());
    }
    app.transaction(|txn, _outside| {
        if txn.read(SETTLEMENTS, intent.id).is_none() {
            txn.insert(
                SETTLEMENTS,
                intent.id,
                Row::new()
                    .with("amount", intent.amount)
                    .with("status", "settled")
                    .with("idempotency_key", key.as_str()),
            );
        }
        Ok(())
    })?;

    // 2. Charge outside any callback, under the intent's key.
    let receipt = app.charge(ChargeRequest {
        reference: intent.id.to_string(),
        amount: intent.amount,
        idempotency_key: Some(key.clone()),
    })?;

    // 3. Add the receipt to the settled row.
    app.transaction(|txn, _outside| {
        txn.update(
            SETTLEMENTS,
            intent.id,
            Row::new().with("receipt", receipt.id.as_str()),
        );
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
