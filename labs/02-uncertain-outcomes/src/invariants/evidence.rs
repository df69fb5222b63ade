//! The reconciliation's invariants: every receipt related, the evidence untouched, and
//! a run that can always be repeated.

use crate::world::{RECONCILIATION, RECORDED, SETTLEMENTS, UNRECORDED, World};
use labkit::fault::{Verdict, Violation};
use sim_spanner::{Receipt, Row};

/// The invariants of the reconciliation scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The settlement rows and the processor's receipts are exactly as before, and the
    /// reconciliation charged nothing (no deletion, no invented compensation).
    Untouched,
    /// One reconciliation row per receipt, relating it to its intent and attempt, with
    /// the right finding.
    EveryReceiptRelated,
    /// A reconciliation run after the faults healed, over a table an earlier run wrote,
    /// finishes too: a reconciliation can always be run again.
    Rerunnable,
}

pub const ALL_EVIDENCE: [Evidence; 3] = [
    Evidence::Untouched,
    Evidence::EveryReceiptRelated,
    Evidence::Rerunnable,
];

/// What a reconciliation schedule left: the history it started from, the world after
/// it, and whether its last run (after the faults healed) finished.
pub struct Reconciled<'w> {
    pub before: &'w World,
    pub after: &'w World,
    pub last_run_finished: bool,
}

/// Checks `invariants` on what a reconciliation schedule left.
pub fn check_reconciliation(run: &Reconciled<'_>, invariants: &[Evidence]) -> Verdict {
    for invariant in invariants {
        match invariant {
            Evidence::Untouched => untouched(run.before, run.after)?,
            Evidence::EveryReceiptRelated => {
                for receipt in run.after.processor.receipts() {
                    related(run.after, receipt)?;
                }
            }
            Evidence::Rerunnable if !run.last_run_finished => {
                return Err(Violation::new(
                    "a reconciliation can be run again",
                    &[
                        "Let a reconciliation have run, and the faults have healed.".into(),
                        "Then the next run over the same history stopped with an error.".into(),
                        "Contradiction: a reconciliation is run again after every doubt (a crash, a timeout, an owner's question); a run that meets its own earlier rows must finish.".into(),
                    ],
                ));
            }
            Evidence::Rerunnable => {}
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

/// One receipt's reconciliation row: it exists, it relates the receipt to its intent
/// and attempt, and its finding says whether the settlement row names the receipt.
fn related(after: &World, receipt: &Receipt) -> Verdict {
    let attempt = receipt.idempotency_key.as_deref().unwrap_or("no key");
    let described = format!(
        "Let {} be the processor's receipt for {} ({}), sent with {attempt}.",
        receipt.id, receipt.reference, receipt.amount
    );
    let Some(line) = after.db.read(RECONCILIATION, &receipt.id) else {
        return Err(Violation::new(
            "every receipt has a reconciliation row",
            &[
                described,
                format!("Then the reconciliation table has no row for {}.", receipt.id),
                "Contradiction: every receipt is evidence, whether a settlement row names it or not; reconcile from the processor's receipts, not from the rows.".into(),
            ],
        ));
    };
    let relates = line.text("intent") == Some(receipt.reference.as_str())
        && line.text("attempt") == Some(attempt)
        && line.int("amount") == Some(receipt.amount);
    if !relates {
        return Err(Violation::new(
            "every receipt is related to its intent and attempt",
            &[
                described,
                format!("Then its reconciliation row is {line:?}."),
                format!(
                    "Contradiction: its row must say intent {}, attempt {attempt}, amount {}.",
                    receipt.reference, receipt.amount
                ),
            ],
        ));
    }
    finding(after, receipt, &line, described)
}

fn finding(after: &World, receipt: &Receipt, line: &Row, described: String) -> Verdict {
    let named = after
        .db
        .read(SETTLEMENTS, &receipt.reference)
        .and_then(|r| r.text("receipt").map(str::to_string));
    let recorded = named.as_deref() == Some(receipt.id.as_str());
    let finding = if recorded { RECORDED } else { UNRECORDED };
    if line.bool("recorded") == Some(recorded) && line.text("finding") == Some(finding) {
        return Ok(());
    }
    let names = if recorded { "names" } else { "does not name" };
    Err(Violation::new(
        "each finding says whether the row names its receipt",
        &[
            format!(
                "{described} The settlement row of {} {names} it.",
                receipt.reference
            ),
            format!("Then its reconciliation row is {line:?}."),
            format!("Contradiction: its row must say recorded {recorded}, finding `{finding}`."),
        ],
    ))
}
