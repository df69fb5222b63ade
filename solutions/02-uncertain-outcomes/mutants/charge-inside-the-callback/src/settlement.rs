//! Wrong solution: the naive settlement, with a key derived from the intent.

use crate::world::{App, Intent, RECONCILIATION, RECORDED, SETTLEMENTS, Stop, UNRECORDED};
use sim_spanner::{ChargeRequest, Row};

// ANCHOR: settle
/// Settles one intent: charges its amount and records the receipt in its settlement row.
pub fn settle(app: &mut App<'_>, intent: &Intent) -> Result<(), Stop> {
    // The runner may call this callback again after ABORTED; the charge repeats with it,
    // but under the same key the processor returns the first receipt.
    app.transaction(|txn, outside| {
        if txn.read(SETTLEMENTS, intent.id).is_some() {
            return Ok(()); // already settled
        }
        let receipt = outside.charge(ChargeRequest {
            reference: intent.id.to_string(),
            amount: intent.amount,
            idempotency_key: Some(format!("settle-{}", intent.id)),
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
