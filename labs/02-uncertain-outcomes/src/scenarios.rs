//! The graded scenarios: the worlds your `settle` and `reconcile` run in, the
//! explorations of their schedules, and the scenarios `cargo labs replay 02` replays.

use crate::invariants::{
    ALL_EVIDENCE, ALL_INVARIANTS, Evidence, Invariant, check_reconciliation, check_settlements,
};
use crate::settlement::{reconcile, settle};
use crate::world::{App, Intent, SETTLEMENTS, Stop, World};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use sim_spanner::{ChargeRequest, Mutation, Receipt, Row};

/// The intents every graded settlement schedule starts with.
pub const INTENTS: [Intent; 2] = [
    Intent {
        id: "S1",
        amount: 120,
    },
    Intent {
        id: "S2",
        amount: 80,
    },
];

/// Runs `step` as one application process; a stop is recorded in the timeline and the
/// next process starts from the durable state. Returns whether the step finished.
fn process(
    sim: &mut Sim,
    what: &str,
    step: impl FnOnce(&mut App<'_>) -> Result<(), Stop>,
    world: &mut World,
) -> bool {
    let result = {
        let mut app = App::new(sim, world);
        step(&mut app)
    };
    let finished = result.is_ok();
    if let Err(stop) = result {
        let glyph = if matches!(stop, Stop::Crash(_)) {
            Glyph::Recover
        } else {
            Glyph::Normal
        };
        sim.event("app", glyph, || {
            (
                format!("{what} stopped ({stop}); a new process starts from the database"),
                String::new(),
            )
        });
    }
    finished
}

// ANCHOR: settlement_scenario
/// One graded settlement schedule: passes over the intents (each settlement in its own
/// process) until one pass finishes every intent, at most three while faults happen; then
/// the faults heal (commits and charges in flight land) and passes run again until one
/// finishes everything, at most two; then the invariants.
pub fn settlement_scenario(sim: &mut Sim, invariants: &[Invariant]) -> Verdict {
    let mut world = World::default();
    for phase_passes in [3, 2] {
        for _pass in 0..phase_passes {
            let mut finished = true;
            for intent in INTENTS {
                finished &= process(sim, "settle", |app| settle(app, &intent), &mut world);
            }
            if finished {
                break;
            }
        }
        if !sim.is_healed() {
            sim.heal();
            world.land_in_flight(sim);
        }
    }
    check_settlements(&world, &INTENTS, invariants)
}
// ANCHOR_END: settlement_scenario

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
pub fn reconciliation_scenario(sim: &mut Sim, invariants: &[Evidence]) -> Verdict {
    let before = legacy_world();
    let mut world = before.clone();
    note_history(sim, &before);
    for _run in 1..=3 {
        if process(sim, "reconcile", reconcile, &mut world) {
            break;
        }
    }
    sim.heal();
    world.land_in_flight(sim);
    process(sim, "reconcile", reconcile, &mut world);
    check_reconciliation(&before, &world, invariants)
}
// ANCHOR_END: reconciliation_scenario

pub fn settlement_scope(max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: "settlement",
        max_faults,
    }
}

pub fn reconciliation_scope(max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: "reconciliation",
        max_faults,
    }
}

/// Explores every settlement schedule with up to `max_faults` faults.
pub fn explore_settlement(max_faults: usize, invariants: &'static [Invariant]) -> Exploration {
    fault::explore(settlement_scope(max_faults), |sim| {
        settlement_scenario(sim, invariants)
    })
}

/// Explores every reconciliation schedule with up to `max_faults` faults.
pub fn explore_reconciliation(max_faults: usize, invariants: &'static [Evidence]) -> Exploration {
    fault::explore(reconciliation_scope(max_faults), |sim| {
        reconciliation_scenario(sim, invariants)
    })
}

fn replay_settlement(token: &Token) -> Replay {
    fault::replay(token, |sim| settlement_scenario(sim, &ALL_INVARIANTS))
}

fn replay_reconciliation(token: &Token) -> Replay {
    fault::replay(token, |sim| reconciliation_scenario(sim, &ALL_EVIDENCE))
}

fn replay_naive(token: &Token) -> Replay {
    fault::replay(token, |sim| crate::observe::naive_scenario(sim).0)
}

/// The scenarios `cargo labs replay 02 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("settlement", replay_settlement),
    ("reconciliation", replay_reconciliation),
    ("naive", replay_naive),
];
