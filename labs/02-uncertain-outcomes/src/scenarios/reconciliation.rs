//! The reconciliation scenario: a history an older, naive job left behind, and
//! `reconcile` run over it while faults happen, and once more after they heal.

use super::{Protocol, process};
use crate::invariants::{Evidence, Reconciled, check_reconciliation};
use crate::world::{SETTLEMENTS, World};
use labkit::fault::{Sim, Verdict};
use sim_spanner::{ChargeRequest, Mutation, Receipt, Row};

/// The history the reconciliation starts from, written by an older, naive settlement
/// job: S7 charged twice (the callback ran again after ABORTED), S8 charged once, S9
/// charged but its settlement never recorded (the commit ended DEADLINE_EXCEEDED, not
/// applied).
pub fn legacy_world() -> World {
    // Built once per thread and copied for each schedule: it never changes.
    thread_local! {
        static LEGACY: World = build_legacy_world();
    }
    LEGACY.with(World::clone)
}

fn build_legacy_world() -> World {
    let mut world = World::default();
    let charge = |world: &mut World, reference: &str, amount: i64| {
        world.processor.seed(ChargeRequest {
            reference: reference.to_string(),
            amount,
            idempotency_key: None,
        })
    };
    let _first_attempt = charge(&mut world, "S7", 120);
    let s7 = charge(&mut world, "S7", 120);
    let s8 = charge(&mut world, "S8", 60);
    let _s9 = charge(&mut world, "S9", 45);
    let settled = |id: &str, amount: i64, receipt: &Receipt| Mutation::Insert {
        table: SETTLEMENTS,
        key: id.into(),
        row: Row::new()
            .with("amount", amount)
            .with("status", "settled")
            .with("receipt", receipt.id.as_str()),
    };
    world.db.seed(&[
        settled("S7", 120, &s7),
        settled("S8", 60, &s8),
        Mutation::Insert {
            table: SETTLEMENTS,
            key: "S9".into(),
            row: Row::new().with("amount", 45).with("status", "pending"),
        },
    ]);
    world
}

/// Two timeline lines: the settlement rows and the receipts the history holds.
fn note_history(sim: &mut Sim, history: &World) {
    sim.note("history", || {
        let rows: Vec<String> = history
            .db
            .rows(SETTLEMENTS)
            .iter()
            .map(|(id, row)| {
                let status = row.text("status").unwrap_or("?");
                match row.text("receipt") {
                    Some(receipt) => format!("{id} {status} ({receipt})"),
                    None => format!("{id} {status}"),
                }
            })
            .collect();
        format!("settlement rows: {}", rows.join(", "))
    });
    sim.note("history", || {
        let receipts: Vec<String> = history
            .processor
            .receipts()
            .iter()
            .map(|r| format!("{} for {} ({})", r.id, r.reference, r.amount))
            .collect();
        format!("receipts: {}", receipts.join(", "))
    });
}

// ANCHOR: reconciliation_scenario
/// One graded reconciliation schedule: the legacy history; reconciliation runs until one
/// finishes (at most three runs while faults happen); the faults heal; one more run (a
/// reconciliation can always be run again); then the invariants.
pub fn reconciliation_scenario(yours: Protocol, sim: &mut Sim, invariants: &[Evidence]) -> Verdict {
    let before = legacy_world();
    let mut world = before.clone();
    note_history(sim, &before);
    for _run in 1..=3 {
        if process(sim, "reconcile", yours.reconcile, &mut world) {
            break;
        }
    }
    sim.heal();
    world.land_in_flight(sim);
    let last_run_finished = process(sim, "reconcile", yours.reconcile, &mut world);
    let reconciled = Reconciled {
        before: &before,
        after: &world,
        last_run_finished,
    };
    check_reconciliation(&reconciled, invariants)
}
// ANCHOR_END: reconciliation_scenario
