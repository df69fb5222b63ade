//! The graded scenarios: writer processes run one after another against the world, under
//! every fault schedule of a bounded scope. `SCENARIOS` lists what
//! `cargo labs replay 08 NAME TOKEN` can replay.

mod fence;

pub use fence::{fence_checkpoint_scenario, fence_record_scenario};

use crate::invariants::{self, Ending};
use crate::world::{Journal, Setup, Stop, World, Writer};
use labkit::fault::{self, CrashMatrix, Exploration, Fate, Glyph, Replay, Scope, Sim, Token};
use labkit::fault::{Verdict, Violation};
use std::rc::Rc;

/// `transition(journal, epoch, batch_id, from, to, evidence)`: one fenced move of a
/// journal record from one of the states `from` to `to`.
pub type Transition = fn(&mut Journal, i64, &str, &[&str], &str, &str) -> Result<(), Stop>;

/// Your functions from `ledger.rs`, as the graded worlds call them (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub run_writer: fn(&mut Writer) -> Result<(), Stop>,
    pub acquire_lease: fn(&mut Journal, &str) -> Result<i64, Stop>,
    pub transition: Transition,
    pub advance_checkpoint: fn(&mut Journal, i64, i64) -> Result<(), Stop>,
}

/// A first owner that may pause and wake up after a takeover; appends may lose their
/// response (the other fates are explored by the ledger scenario).
pub const STALE_OWNER: Setup = Setup {
    stale_owner: true,
    append_fates: &[Fate::Ok, Fate::AppliedResponseLost],
    ..Setup::LEDGER
};
/// Position 1004 carries a value its column cannot take (a row error).
pub const SCHEMA: Setup = Setup {
    bad_row: Some(1004),
    ..Setup::LEDGER
};
/// A lost response: the first append is applied, its response lost, the process dies.
pub const LOST_RESPONSE: Setup = Setup {
    lose_first_response_and_crash: true,
    ..Setup::LEDGER
};
/// The wrong-offset drill: another client occupies the stream's first three offsets.
pub const DRILL: Setup = Setup {
    foreign_rows: 3,
    ..Setup::LEDGER
};
/// When the first process ends unfinished, the source loses position 1001.
pub const CHANGED_SOURCE: Setup = Setup {
    source_loses: Some(1001),
    append_fates: &[Fate::Ok, Fate::AppliedResponseLost, Fate::NotApplied],
    ..Setup::LEDGER
};

/// The crash-point matrix: a first owner that may pause, and every append fate.
pub const MATRIX: Setup = Setup {
    stale_owner: true,
    ..Setup::LEDGER
};

/// How many writer processes a schedule may start; the last two run healed.
const PROCESSES: u32 = 5;

/// Starts one writer process and runs it until it returns. What the process left is
/// checked at once: every confirmed record in the table, the checkpoint not ahead.
fn run_one_process(
    yours: Protocol,
    sim: &mut Sim,
    world: &mut World,
    may_pause: bool,
) -> (u32, Result<(), Stop>, Option<Violation>) {
    let mut writer = Writer::start(sim, world, may_pause);
    let (number, owner) = (writer.number(), writer.owner().to_string());
    writer.note(|| format!("{owner} starts and opens journal.db"));
    let result = (yours.run_writer)(&mut writer);
    drop(writer);
    let found = invariants::journal_matches_table(world)
        .or_else(|| invariants::checkpoint_violation(world));
    (number, result, found)
}

/// The new owner of a stale-owner scenario: one process, then the snapshot of what the
/// stale owner must leave as it is.
fn takeover(yours: Protocol, sim: &mut Sim, world: &mut World) {
    let (number, result, found) = run_one_process(yours, sim, world, false);
    world.findings.extend(found);
    if let Err(stop) = result {
        let line = format!("writer-{number} ends: {stop}");
        sim.event("writer", Glyph::Recover, || (line, String::new()));
    }
    world.stale_snapshot = Some(invariants::snapshot(world));
}

/// After the first process ended unfinished, the source loses a position that a journal
/// record already covers (a record never journaled has nothing to reproduce).
fn break_the_source(sim: &mut Sim, world: &mut World) {
    let Some(position) = world.setup.source_loses else {
        return;
    };
    let records = invariants::records(world.keeper());
    if records
        .iter()
        .any(|r| (r.source_first..r.source_end).contains(&position))
    {
        world.lose_from_source(position);
        let what = format!("the source no longer returns {position}");
        sim.event("source", Glyph::Fault, || (String::new(), what));
    }
}

/// Runs writer processes one after another until one finishes or holds twice.
fn run_processes(yours: Protocol, sim: &mut Sim, world: &mut World) -> Ending {
    // A hold must survive a restart: after the first one, the supervisor starts one more
    // process, which must hold again.
    let mut held: Option<String> = None;
    for attempt in 1..=PROCESSES {
        if attempt + 1 >= PROCESSES {
            sim.heal();
            world.api.drain(sim);
        }
        let may_pause = world.setup.stale_owner && attempt == 1;
        let (number, result, found) = run_one_process(yours, sim, world, may_pause);
        let owner = format!("writer-{number}");
        if let (Ok(()), Some(reason)) = (&result, &held) {
            world
                .findings
                .push(invariants::hold_violation(reason, &owner));
        }
        world.findings.extend(found);
        if let Some(before) = world.stale_snapshot.take() {
            let end = result
                .as_ref()
                .map_or_else(|s| s.to_string(), |_| "it finished".into());
            sim.note("writer", || format!("{owner} (stale) ends: {end}"));
            let after = invariants::snapshot(world);
            let stale = invariants::stale_owner_violation(&owner, &before, &after);
            world.findings.extend(stale);
            // The stale process's end is not the run's: later owners carry on.
            continue;
        }
        if result.is_err() && number == 1 {
            break_the_source(sim, world);
        }
        match result {
            Ok(()) => {
                if let Some(reason) = held {
                    world
                        .findings
                        .push(invariants::hold_violation(&reason, &owner));
                }
                return Ending::Done;
            }
            Err(Stop::Hold(reason)) => {
                sim.note("writer", || format!("{owner} holds: {reason}"));
                if held.is_some() {
                    return Ending::Held(reason);
                }
                held = Some(reason);
            }
            Err(stop) => sim.event("writer", Glyph::Recover, || {
                let truth = "its memory is gone; journal.db remains".into();
                (format!("{owner} ends: {stop}"), truth)
            }),
        }
    }
    Ending::Unfinished
}

/// A new world for `setup`, whose new owner (in a stale-owner scenario) runs `yours`.
fn new_world(yours: Protocol, setup: Setup) -> World {
    World::create(
        setup,
        Rc::new(move |sim: &mut Sim, world: &mut World| takeover(yours, sim, world)),
    )
}

/// Runs one schedule of the ledger in `setup`: the first invariant it breaks, if any.
pub fn run_ledger(yours: Protocol, sim: &mut Sim, setup: Setup) -> Verdict {
    let mut world = new_world(yours, setup);
    let ending = run_processes(yours, sim, &mut world);
    world.api.drain(sim);
    let mut found: Vec<Violation> = std::mem::take(&mut world.findings);
    found.extend(invariants::final_violation(&world, &ending));
    found.into_iter().next().map_or(Ok(()), Err)
}

/// The scenarios, by name: the setup each one runs.
pub const SETUPS: &[(&str, Setup)] = &[
    ("ledger", Setup::LEDGER),
    ("lost-response", LOST_RESPONSE),
    ("drill", DRILL),
    ("schema", SCHEMA),
    ("stale-owner", STALE_OWNER),
    ("changed-source", CHANGED_SOURCE),
    ("matrix", MATRIX),
];

fn setup(name: &str) -> Setup {
    let found = SETUPS.iter().find(|(n, _)| *n == name);
    found.map(|(_, setup)| *setup).expect("a known scenario")
}

/// Explores every schedule of scenario `name` with up to `max_faults` faults.
pub fn explore(yours: Protocol, name: &'static str, max_faults: usize) -> Exploration {
    let setup = setup(name);
    let scope = Scope {
        lab: "08",
        scenario: name,
        max_faults,
    };
    fault::explore(scope, move |sim| run_ledger(yours, sim, setup))
}

/// Every one-fault schedule of the matrix scenario, with its verdict.
pub fn explore_every_single_fault(yours: Protocol) -> Exploration {
    let scope = Scope {
        lab: "08",
        scenario: "matrix",
        max_faults: 1,
    };
    fault::explore_all(scope, move |sim| run_ledger(yours, sim, MATRIX))
}

/// Every one-fault schedule and what it broke: the crash-point matrix.
pub fn crash_matrix(yours: Protocol) -> CrashMatrix {
    CrashMatrix::from_exploration(&explore_every_single_fault(yours))
}

/// Runs one of the fence scenarios (`fence-record`, `fence-checkpoint`).
pub fn explore_fence(yours: Protocol, name: &'static str) -> Exploration {
    let scope = Scope {
        lab: "08",
        scenario: name,
        max_faults: 0,
    };
    let scenario = if name == "fence-record" {
        fence_record_scenario
    } else {
        fence_checkpoint_scenario
    };
    fault::explore(scope, |sim| scenario(yours, sim))
}

fn replay_named(yours: Protocol, name: &str, token: &Token) -> Replay {
    let setup = setup(name);
    fault::replay(token, move |sim| run_ledger(yours, sim, setup))
}

/// The scenarios `cargo labs replay 08 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("ledger", |yours, t| replay_named(yours, "ledger", t)),
    ("lost-response", |yours, t| {
        replay_named(yours, "lost-response", t)
    }),
    ("drill", |yours, t| replay_named(yours, "drill", t)),
    ("schema", |yours, t| replay_named(yours, "schema", t)),
    ("stale-owner", |yours, t| {
        replay_named(yours, "stale-owner", t)
    }),
    ("changed-source", |yours, t| {
        replay_named(yours, "changed-source", t)
    }),
    ("matrix", |yours, t| replay_named(yours, "matrix", t)),
    ("fence-record", |yours, t| {
        fault::replay(t, |sim| fence_record_scenario(yours, sim))
    }),
    ("fence-checkpoint", |yours, t| {
        fault::replay(t, |sim| fence_checkpoint_scenario(yours, sim))
    }),
];
