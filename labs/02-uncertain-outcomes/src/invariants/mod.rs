//! The invariants the graded scenarios check, each with the "Let … Then …
//! Contradiction" explanation a failing schedule prints.

use crate::world::{Intent, SETTLEMENTS, World};
use labkit::fault::{Verdict, Violation};
use sim_spanner::{Code, Receipt, Row};

mod evidence;

pub use evidence::{ALL_EVIDENCE, Evidence, Reconciled, check_reconciliation};

/// The invariants of the settlement scenario, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// No intent has more than one receipt.
    ChargedAtMostOnce,
    /// Every intent has a receipt once the faults heal.
    ChargedAtLeastOnce,
    /// Every intent's row is settled and names the receipt the processor issued.
    SettledWithItsReceipt,
    /// Whenever a settle process stops, every receipt's intent has a settlement row:
    /// nothing is charged for an intent the database does not hold.
    RecordedBeforeCharged,
    /// No settle process is refused by the database (ALREADY_EXISTS, NOT_FOUND, …): the
    /// job leaves an intent whose process a definite refusal stopped to an operator.
    NeverRefused,
}

pub const ALL_INVARIANTS: [Invariant; 5] = [
    Invariant::ChargedAtMostOnce,
    Invariant::ChargedAtLeastOnce,
    Invariant::SettledWithItsReceipt,
    Invariant::RecordedBeforeCharged,
    Invariant::NeverRefused,
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
                // Checked by the scenario: when a process stops, when one is refused.
                Invariant::RecordedBeforeCharged | Invariant::NeverRefused => {}
            }
        }
    }
    Ok(())
}

fn key_of(receipt: &Receipt) -> &str {
    receipt.idempotency_key.as_deref().unwrap_or("no key")
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
    let listed: Vec<String> = receipts
        .iter()
        .map(|r| format!("{} ({})", r.id, key_of(r)))
        .collect();
    let one_key = receipts[0].idempotency_key.is_some()
        && receipts
            .iter()
            .all(|r| r.idempotency_key == receipts[0].idempotency_key);
    let why = if one_key {
        "Contradiction: one intent, one charge. The same key did not stop the resend: the processor keeps a key's result for a day, no longer. Find out what the processor holds for the intent before sending again."
    } else {
        "Contradiction: one intent, one charge. A callback runs again after ABORTED, a timeout is not a rollback, and a request without the first one's key is a new charge."
    };
    Err(Violation::new(
        "no intent is charged twice",
        &[
            format!("Let {id} be the intent to charge {} once.", intent.amount),
            format!(
                "Then the processor issued {} receipts for {id}: {}; the database holds {rows}.",
                receipts.len(),
                listed.join(", ")
            ),
            why.into(),
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
    let shown = match (status, named) {
        (None, _) => "missing".to_string(),
        (Some(s), None) => format!("`{s}` without a receipt"),
        (Some(s), Some(r)) => format!("`{s}` naming receipt {r}"),
    };
    let given = format!(
        "Let {} be the intent, with receipt(s) [{}] at the processor, and the faults healed.",
        intent.id,
        receipt_ids(receipts)
    );
    if status != Some("settled") {
        return Err(Violation::new(
            "every intent's row ends settled",
            &[
                given,
                format!("Then its settlement row is {shown}, and the job will not ask again: it got Ok."),
                "Contradiction: return Ok only once the settlement is recorded; a commit that ended DEADLINE_EXCEEDED may not have applied.".into(),
            ],
        ));
    }
    if named.is_none() || named != issued {
        return Err(Violation::new(
            "every settled row names its receipt",
            &[
                given,
                format!("Then its settlement row is {shown}."),
                "Contradiction: a row that says `settled` must name the receipt that pays for it; a row written settled before the charge is a promise the process may not live to keep.".into(),
            ],
        ));
    }
    Ok(())
}

/// Checked when a settle process stops: every receipt the processor issued belongs to
/// an intent the database holds (pending or settled).
pub fn check_recorded_intents(world: &World, intents: &[Intent]) -> Verdict {
    let charged = world.processor.receipts().iter();
    let Some(orphan) = charged
        .filter(|r| intents.iter().any(|i| i.id == r.reference))
        .find(|r| world.db.read(SETTLEMENTS, &r.reference).is_none())
    else {
        return Ok(());
    };
    let id = &orphan.reference;
    Err(Violation::new(
        "every charge has a recorded intent",
        &[
            format!("Let {} be the processor's receipt for {id} when a settle process stopped.", orphan.id),
            format!("Then the database held no row for {id}: nothing durable said that {id} may have been charged."),
            "Contradiction: record the intent and its key before any money moves; a process that never comes back must leave the trace of what it started.".into(),
        ],
    ))
}

/// Checked before the settlements: the first intent the job left to an operator, because
/// its settle process was refused with `code`.
pub fn check_never_refused(refused: Option<(&str, Code)>) -> Verdict {
    let Some((id, code)) = refused else {
        return Ok(());
    };
    let code = code.name();
    Err(Violation::new(
        "no settle process is refused by the database",
        &[
            format!("Let {id}'s settle process stop with {code}, a definite refusal: the job does not retry it, it leaves {id} to an operator."),
            format!("Then {id} is never settled by the job: its process asked the database for a change that contradicted what the database held."),
            "Contradiction: after DEADLINE_EXCEEDED the commit may have applied, or may still land before the next one; a transaction that writes as if it had not is refused when it had. Read inside the transaction and write only what is missing, so its answer holds either way.".into(),
        ],
    ))
}
