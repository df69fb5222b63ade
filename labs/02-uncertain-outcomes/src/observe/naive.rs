//! The naive settlement: the charge inside the read-write callback, and a caller that
//! reads every error as "nothing happened". Run on every schedule with up to one or two
//! faults, without a key and with one.

use crate::world::{App, Intent, SETTLEMENTS, Stop, World};
use labkit::fault::{self, CrashMatrix, Glyph, Scope, Sim, Verdict, Violation};
use sim_spanner::{ChargeRequest, Code, Row};

/// The one intent of the observe phase.
pub const S1: Intent = Intent {
    id: "S1",
    amount: 120,
};

// ANCHOR: naive
/// The naive settlement: the charge happens inside the read-write callback, under
/// `key` (the lab runs it with none, and with one). `callback_runs` counts how often
/// the runner called the callback.
pub fn settle_naive(
    app: &mut App<'_>,
    intent: &Intent,
    key: Option<&str>,
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
            idempotency_key: key.map(str::to_string),
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

/// Which naive settlement runs: with or without a key, and when a new process starts
/// after the last one stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub key: Option<&'static str>,
    pub next_process_a_day_later: bool,
}

/// The naive settlement of the chapter: no key, the next process at once.
pub const NAIVE: Variant = Variant {
    key: None,
    next_process_a_day_later: false,
};

/// What one naive schedule left behind.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The schedule: the option taken at each choice.
    pub path: Vec<usize>,
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
/// One naive schedule: up to three processes call `settle_naive`; the caller reads
/// any error, DEADLINE_EXCEEDED included, as "nothing happened" and tries again. Then
/// the faults heal and the invariants are checked.
pub fn naive_scenario(sim: &mut Sim, variant: Variant) -> (Verdict, Facts) {
    let mut world = World::default();
    let mut facts = Facts::default();
    for process in 1..=3 {
        if process > 1 && variant.next_process_a_day_later {
            world.pass_a_day(sim);
        }
        let mut app = App::new(sim, &mut world);
        match settle_naive(&mut app, &S1, variant.key, &mut facts.callback_runs) {
            Ok(()) => break,
            Err(Stop::Spanner(Code::DeadlineExceeded)) => {
                // The lab (not the naive code) looks at the truth at this moment.
                let present = world.db.read(SETTLEMENTS, S1.id).is_some();
                facts.row_when_deadline_exceeded.push(present);
                sim.note("app", || "DEADLINE_EXCEEDED read as a rollback".into());
            }
            Err(stop) => sim.event("app", Glyph::Recover, || {
                (format!("{stop}: a new process settles again"), "".into())
            }),
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
    facts.path = sim.path().iter().map(|c| c.index).collect();
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
        return Err(Violation::new(
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
        ));
    }
    if facts.row_receipt.is_none() || facts.row_receipt.as_ref() != facts.receipts.first() {
        return Err(Violation::new(
            "the row names the receipt",
            &[
                "Let S1 be the intent.".into(),
                format!(
                    "Then its row names {:?} and the processor holds {:?}.",
                    facts.row_receipt, facts.receipts
                ),
                "Contradiction: a settled intent names the receipt that paid for it.".into(),
            ],
        ));
    }
    Ok(())
}

pub fn scope(max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: "naive",
        max_faults,
    }
}

/// One exploration of a naive variant.
pub struct Explored {
    pub exploration: fault::Exploration,
    /// One row per single fault: `pass`, or the invariant it broke.
    pub matrix: CrashMatrix,
    /// The facts of every schedule, once each, in exploration order.
    pub facts: Vec<Facts>,
}

impl Explored {
    /// The schedule whose faults are exactly `faults`, in that order.
    pub fn with_faults(&self, faults: &[&str]) -> &Facts {
        self.facts
            .iter()
            .find(|f| f.faults == faults)
            .unwrap_or_else(|| panic!("no schedule with the faults {faults:?}"))
    }
}

/// Every schedule of `variant` with up to `max_faults` faults.
pub fn explore_naive(variant: Variant, max_faults: usize) -> Explored {
    let mut facts = Vec::new();
    let exploration = fault::explore_all(scope(max_faults), |sim| {
        let (verdict, f) = naive_scenario(sim, variant);
        facts.push(f);
        verdict
    });
    // The driver runs a schedule again at each deeper fault budget: keep each once.
    let mut seen = std::collections::BTreeSet::new();
    facts.retain(|f| seen.insert(f.path.clone()));
    for f in &mut facts {
        f.faults = f.faults.iter().map(|x| in_the_services_words(x)).collect();
    }
    let mut matrix = CrashMatrix::from_exploration(&exploration);
    for row in &mut matrix.rows {
        row.fault = in_the_services_words(&row.fault);
    }
    Explored {
        exploration,
        matrix,
        facts,
    }
}

/// A fault as the service names it: the fault core calls an injected definite error
/// `rejected (definite)`; Spanner answers ABORTED.
pub(crate) fn in_the_services_words(fault: &str) -> String {
    match fault {
        "spanner:commit=rejected (definite)" => "spanner:commit=ABORTED".into(),
        other => other.into(),
    }
}
