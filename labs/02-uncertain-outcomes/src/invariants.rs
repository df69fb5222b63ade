//! The invariants the graded scenarios check, each with the "Let … Then …
//! Contradiction" explanation a failing schedule prints.

use crate::world::{Intent, RECONCILIATION, RECORDED, SETTLEMENTS, UNRECORDED, World};
use labkit::fault::{Verdict, Violation};
use sim_spanner::{Receipt, Row};

/// The invariants of the settlement scenario, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// No intent has more than one receipt.
    ChargedAtMostOnce,
    /// Every intent has a receipt once the faults heal.
    ChargedAtLeastOnce,
    /// Every intent's row is settled and names the receipt the processor issued.
    SettledWithItsReceipt,
}

pub const ALL_INVARIANTS: [Invariant; 3] = [
    Invariant::ChargedAtMostOnce,
    Invariant::ChargedAtLeastOnce,
    Invariant::SettledWithItsReceipt,
];

fn receipt_ids(receipts: &[Receipt]) -> String {
    let ids: Vec<&str> = receipts.iter().map(|r| r.id.as_str()).collect();
    ids.join(" and ")
}

/// Checks `invariants` for every intent, after the scenario has run.
pub fn check_settlements(world: &World, intents: &[Intent], invariants: &[Invariant]) -> Verdict {
    for intent in intents {
        let receipts = world.processor.search(intent.id);
        let row = world.db.read(SETTLEMENTS, intent.id);
        for invariant in invariants {
            match invariant {
                Invariant::ChargedAtMostOnce => at_most_once(intent, &receipts, &row)?,
                Invariant::ChargedAtLeastOnce => at_least_once(intent, &receipts)?,
                Invariant::SettledWithItsReceipt => settled(intent, &receipts, &row)?,
            }
        }
    }
    Ok(())
}

fn at_most_once(intent: &Intent, receipts: &[Receipt], row: &Option<Row>) -> Verdict {
    if receipts.len() <= 1 {
        return Ok(());
    }
    let id = intent.id;
    let rows = if row.is_some() {
        "one settlement row"
    } else {
        "no settlement row"
    };
    Err(Violation::new(
        "no intent is charged twice",
        &[
            format!("Let {id} be the intent to charge {} once.", intent.amount),
            format!(
                "Then the processor issued {} receipts for {id} ({}), and the database holds {rows}.",
                receipts.len(),
                receipt_ids(receipts)
            ),
            "Contradiction: one intent, one charge. A callback runs again after ABORTED, and DEADLINE_EXCEEDED is not a rollback: locate the original identity's state, and resend only under the same idempotency key.".into(),
        ],
    ))
}

fn at_least_once(intent: &Intent, receipts: &[Receipt]) -> Verdict {
    if !receipts.is_empty() {
        return Ok(());
    }
    let id = intent.id;
    Err(Violation::new(
        "every intent is charged once the faults heal",
        &[
            format!("Let {id} be the intent to charge {}.", intent.amount),
            format!("Then, after the faults healed and the application ran twice more, the processor holds no receipt for {id}."),
            "Contradiction: a healed application must finish its work. An unknown outcome must be resolved, not abandoned.".into(),
        ],
    ))
}

fn settled(intent: &Intent, receipts: &[Receipt], row: &Option<Row>) -> Verdict {
    let status = row.as_ref().and_then(|r| r.text("status"));
    let named = row.as_ref().and_then(|r| r.text("receipt"));
    let issued = receipts.first().map(|r| r.id.as_str());
    if status == Some("settled") && named.is_some() && named == issued {
        return Ok(());
    }
    let shown = match (status, named) {
        (None, _) => "missing".to_string(),
        (Some(s), None) => format!("`{s}` without a receipt"),
        (Some(s), Some(r)) => format!("`{s}` naming receipt {r}"),
    };
    Err(Violation::new(
        "every intent is settled with the receipt the processor issued",
        &[
            format!(
                "Let {} be the intent, with receipt(s) [{}] at the processor.",
                intent.id,
                receipt_ids(receipts)
            ),
            format!("Then its settlement row is {shown}."),
            "Contradiction: once the faults heal, every intent's row must be `settled` and name the one receipt that pays for it.".into(),
        ],
    ))
}

/// The invariants of the reconciliation scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The settlement rows and the processor's receipts are exactly as before, and the
    /// reconciliation charged nothing (no deletion, no invented compensation).
    Untouched,
    /// One reconciliation row per receipt, relating it to its intent and attempt, with
    /// the right finding.
    EveryReceiptRelated,
}

pub const ALL_EVIDENCE: [Evidence; 2] = [Evidence::Untouched, Evidence::EveryReceiptRelated];

/// Checks `invariants` on the world a reconciliation left (`after`), against the
/// history it started from (`before`).
pub fn check_reconciliation(before: &World, after: &World, invariants: &[Evidence]) -> Verdict {
    for invariant in invariants {
        match invariant {
            Evidence::Untouched => untouched(before, after)?,
            Evidence::EveryReceiptRelated => {
                for receipt in after.processor.receipts() {
                    related(after, receipt)?;
                }
            }
        }
    }
    Ok(())
}

fn untouched(before: &World, after: &World) -> Verdict {
    if !before.db.same_rows(&after.db, SETTLEMENTS) {
        let (rows_before, rows_after) = (before.db.rows(SETTLEMENTS), after.db.rows(SETTLEMENTS));
        return Err(Violation::new(
            "reconciliation deletes and rewrites no evidence",
            &[
                format!("Let the settlements table hold {} row(s) before reconciliation.", rows_before.len()),
                format!("Then afterwards it holds {} row(s), and they differ from the originals.", rows_after.len()),
                "Contradiction: reconciliation records what it found beside the evidence; it never changes or deletes the evidence itself.".into(),
            ],
        ));
    }
    let calls = after.processor.calls() - before.processor.calls();
    if calls > 0 || after.processor.receipts() != before.processor.receipts() {
        return Err(Violation::new(
            "reconciliation invents no compensation",
            &[
                format!("Let the processor hold {} receipt(s) before reconciliation.", before.processor.receipts().len()),
                format!("Then reconciliation sent {calls} charge request(s) to the processor."),
                "Contradiction: a duplicate charge is for an owner to confirm and settle; reconciliation only records the relation between intent, attempt and effect.".into(),
            ],
        ));
    }
    Ok(())
}

fn related(after: &World, receipt: &Receipt) -> Verdict {
    let line = after.db.read(RECONCILIATION, &receipt.id);
    let recorded_receipt = after
        .db
        .read(SETTLEMENTS, &receipt.reference)
        .and_then(|r| r.text("receipt").map(str::to_string));
    let recorded = recorded_receipt.as_deref() == Some(receipt.id.as_str());
    let attempt = receipt.idempotency_key.as_deref().unwrap_or("no key");
    let finding = if recorded { RECORDED } else { UNRECORDED };
    let matches = line.as_ref().is_some_and(|l| {
        l.text("intent") == Some(receipt.reference.as_str())
            && l.text("attempt") == Some(attempt)
            && l.int("amount") == Some(receipt.amount)
            && l.bool("recorded") == Some(recorded)
            && l.text("finding") == Some(finding)
    });
    if matches {
        return Ok(());
    }
    let names = if recorded { "names" } else { "does not name" };
    Err(Violation::new(
        "every receipt is related to its intent and attempt",
        &[
            format!(
                "Let {} be the processor's receipt for {} ({}), sent with {attempt}; the settlement row {names} it.",
                receipt.id, receipt.reference, receipt.amount
            ),
            match &line {
                None => format!(
                    "Then the reconciliation table has no row for {}.",
                    receipt.id
                ),
                Some(l) => format!("Then its reconciliation row is {l:?}."),
            },
            format!(
                "Contradiction: every receipt is evidence; its row must say intent {}, attempt {attempt}, amount {}, recorded {recorded}, finding `{finding}`.",
                receipt.reference, receipt.amount
            ),
        ],
    ))
}
