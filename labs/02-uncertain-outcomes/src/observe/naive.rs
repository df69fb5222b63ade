//! The naive settlement, run on every schedule with at most one fault.

use crate::world::{App, Intent, SETTLEMENTS, Stop, World};
use labkit::fault::{self, CrashMatrix, Glyph, Scope, Sim, Verdict, Violation};
use sim_spanner::{ChargeRequest, Code, Row};

/// The one intent of the observe phase.
pub const S1: Intent = Intent {
    id: "S1",
    amount: 120,
};

// ANCHOR: naive
/// The naive settlement: the charge happens inside the read-write callback, with no
/// idempotency key. `callback_runs` counts how often the runner called the callback.
pub fn settle_naive(
    app: &mut App<'_>,
    intent: &Intent,
    callback_runs: &mut u32,
) -> Result<(), Stop> {
    app.transaction(|txn, outside| {
        *callback_runs += 1;
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
// ANCHOR_END: naive

/// What one naive schedule left behind.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The faults the schedule took, as `site=option`.
    pub faults: Vec<String>,
    pub callback_runs: u32,
    pub rows: usize,
    /// Receipt ids for S1, in the order the processor issued them.
    pub receipts: Vec<String>,
    /// The receipt the settlement row names.
    pub row_receipt: Option<String>,
    /// For each DEADLINE_EXCEEDED the caller saw: was the row in the database right then?
    pub row_when_deadline_exceeded: Vec<bool>,
}

// ANCHOR: naive_caller
/// One naive schedule: up to three processes call `settle_naive`; the caller reads any
/// error, DEADLINE_EXCEEDED included, as "nothing happened" and tries again. Then the
/// faults heal and the invariants are checked.
pub fn naive_scenario(sim: &mut Sim) -> (Verdict, Facts) {
    let mut world = World::default();
    let mut facts = Facts::default();
    for _process in 1..=3 {
        let result = settle_naive(
            &mut App::new(sim, &mut world),
            &S1,
            &mut facts.callback_runs,
        );
        match result {
            Ok(()) => break,
            Err(Stop::Spanner(Code::DeadlineExceeded)) => {
                // The lab (not the naive code) looks at the truth at this moment.
                let present = world.db.read(SETTLEMENTS, S1.id).is_some();
                facts.row_when_deadline_exceeded.push(present);
                sim.note("app", || {
                    "DEADLINE_EXCEEDED read as a rollback: settle again".into()
                });
            }
            Err(stop @ Stop::Crash(_)) => sim.event("app", Glyph::Recover, || {
                (
                    format!("{stop}; a new process settles again"),
                    String::new(),
                )
            }),
            Err(stop) => sim.note("app", || format!("{stop}: settle again")),
        }
    }
    sim.heal();
    world.land_in_flight(sim);
    record(sim, &world, &mut facts);
    (verdict(&facts), facts)
}
// ANCHOR_END: naive_caller

/// What the schedule left behind, once the faults healed.
fn record(sim: &Sim, world: &World, facts: &mut Facts) {
    facts.faults = sim.fault_list();
    facts.rows = world.db.count(SETTLEMENTS);
    facts.receipts = world
        .processor
        .search(S1.id)
        .into_iter()
        .map(|r| r.id)
        .collect();
    facts.row_receipt = world
        .db
        .read(SETTLEMENTS, S1.id)
        .and_then(|row| row.text("receipt").map(str::to_string));
}

/// The naive settlement's invariants: one receipt, named by the row.
fn verdict(facts: &Facts) -> Verdict {
    if facts.receipts.len() > 1 {
        Err(Violation::new(
            "one receipt per intent",
            &[
                format!("Let S1 be the intent to charge {} once.", S1.amount),
                format!(
                    "Then the processor issued {} receipts ({}) while the database holds {} row(s).",
                    facts.receipts.len(),
                    facts.receipts.join(", "),
                    facts.rows
                ),
                "Contradiction: the charge ran once per callback run or per retry.".into(),
            ],
        ))
    } else if facts.row_receipt.is_none() || facts.row_receipt.as_ref() != facts.receipts.first() {
        Err(Violation::new(
            "the row names the receipt",
            &[
                "Let S1 be the intent.".into(),
                format!(
                    "Then its row names {:?} and the processor holds {:?}.",
                    facts.row_receipt, facts.receipts
                ),
                "Contradiction: a settled intent names the receipt that paid for it.".into(),
            ],
        ))
    } else {
        Ok(())
    }
}

pub fn scope() -> Scope {
    Scope {
        lab: "02",
        scenario: "naive",
        max_faults: 1,
    }
}

/// Every one-fault schedule of the naive settlement: the exploration, the crash matrix and
/// the facts of each schedule (in exploration order).
pub fn explore_naive() -> (fault::Exploration, CrashMatrix, Vec<Facts>) {
    let mut all_facts = Vec::new();
    let exploration = fault::explore_all(scope(), |sim| {
        let (verdict, facts) = naive_scenario(sim);
        all_facts.push(facts);
        verdict
    });
    let matrix = CrashMatrix::from_exploration(&exploration);
    (exploration, matrix, all_facts)
}
