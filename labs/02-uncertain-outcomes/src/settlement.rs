//! Your part: settle each intent exactly once, and reconcile every receipt.
//!
//! `settle` is called for each intent by one process after another (a process can crash
//! after any step, and every error ends it) until one call returns `Ok`; the settlement
//! job calls it again a minute or a day after a process stopped. `reconcile` is called
//! the same way over a history that already holds a duplicate charge and a charge that
//! was never recorded. Everything you may use is in [`uncertain_outcomes::world`].

use sim_spanner::{ChargeRequest, Row};
use uncertain_outcomes::world::{App, Intent, RECONCILIATION, RECORDED, SETTLEMENTS, Stop};

// ANCHOR: settle
/// Settles one intent: charges its amount and records the receipt in its row.
pub fn settle(app: &mut App<'_>, intent: &Intent) -> Result<(), Stop> {
    // TODO: make this safe under every schedule `cargo labs check 02` explores.
    //       Whatever happens to a commit, a charge or this process:
    //       - each intent is charged exactly once, and once the faults heal its
    //         row is `settled` and names that receipt;
    //       - whenever a process stops, the database holds every intent for
    //         which money may have moved;
    //       - `Ok` means the settlement is recorded: the job never asks again
    //         about an intent it got `Ok` for.
    //       A timeout, DEADLINE_EXCEEDED or a crash says nothing about what
    //       happened, and the processor keeps a key's result for one day only.
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
    // TODO: every charge the processor made must end up with one reconciliation
    //       row, keyed by its receipt id, relating it to its intent and attempt
    //       (the key it was sent with, or `no key`) and saying whether the
    //       intent's settlement row names it (`RECORDED`) or not (`UNRECORDED`).
    //       The evidence stays as it is: no settlement row changes and nothing
    //       is charged. Any run may be followed by another over the same tables.
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
