//! The graded scenarios: the worlds your `settle` and `reconcile` run in, the
//! explorations of their schedules, and the scenarios `cargo labs replay 02` replays.

use crate::invariants::{
    ALL_EVIDENCE, ALL_INVARIANTS, Evidence, Invariant, check_never_refused, check_recorded_intents,
    check_settlements,
};
use crate::world::{App, Intent, Stop, World};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use sim_spanner::Code;

mod reconciliation;

pub use reconciliation::{legacy_world, reconciliation_scenario};

/// Your functions from `settlement.rs`, as the graded worlds call them (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub settle: fn(&mut App<'_>, &Intent) -> Result<(), Stop>,
    pub reconcile: fn(&mut App<'_>) -> Result<(), Stop>,
}

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
pub(crate) fn process(
    sim: &mut Sim,
    what: &str,
    step: impl FnOnce(&mut App<'_>) -> Result<(), Stop>,
    world: &mut World,
) -> bool {
    process_stop(sim, what, step, world, false).is_none()
}

/// [`process`], returning why the process stopped (`None`: it finished). With
/// `refusal_ends_it`, no new process follows a definite refusal.
fn process_stop(
    sim: &mut Sim,
    what: &str,
    step: impl FnOnce(&mut App<'_>) -> Result<(), Stop>,
    world: &mut World,
    refusal_ends_it: bool,
) -> Option<Stop> {
    let result = {
        let mut app = App::new(sim, world);
        step(&mut app)
    };
    if let Err(stop) = &result {
        let glyph = if matches!(stop, Stop::Crash(_)) {
            Glyph::Recover
        } else {
            Glyph::Normal
        };
        let next = match refusal_ends_it && refusal(stop).is_some() {
            true => "",
            false => "; a new process starts from the database",
        };
        sim.event("app", glyph, || {
            (format!("{what} stopped ({stop}){next}"), String::new())
        });
    }
    result.err()
}

/// A definite refusal by the database: the request contradicted what it held, and the
/// same request would be refused again. The job does not retry it.
fn refusal(stop: &Stop) -> Option<Code> {
    match stop {
        Stop::Spanner(
            code @ (Code::AlreadyExists
            | Code::NotFound
            | Code::FailedPrecondition
            | Code::InvalidArgument),
        ) => Some(*code),
        _ => None,
    }
}

/// When the settlement job runs again after a run that left an intent unfinished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rerun {
    /// A minute later: its supervisor restarts it.
    AtOnce,
    /// A day later: the job runs once a day, or the outage lasted that long.
    NextDay,
    /// Either; the fault core chooses each time (the next day is a fault).
    EitherWay,
}

fn wait_for_the_next_run(sim: &mut Sim, world: &mut World, rerun: Rerun) {
    let next_day = match rerun {
        Rerun::AtOnce => false,
        Rerun::NextDay => true,
        Rerun::EitherWay => sim.choose("job:rerun", &["at once", "the next day"]) == 1,
    };
    if next_day {
        world.pass_a_day(sim);
    } else {
        sim.advance(60);
    }
    sim.note("job", || {
        let when = if next_day {
            "the next day"
        } else {
            "a minute later"
        };
        format!("the settlement job runs again {when}")
    });
}

/// One run of the settlement job: each unfinished intent settled in a process of its
/// own. An intent whose process returned `Ok` is finished: the job never asks again. An
/// intent whose process the database refused definitely goes to an operator (`refused`):
/// the job does not ask again either.
fn run_job(
    yours: Protocol,
    sim: &mut Sim,
    world: &mut World,
    unfinished: &mut Vec<Intent>,
    refused: &mut Option<(&'static str, Code)>,
) -> Verdict {
    let mut stopped_with_a_charge = Ok(());
    unfinished.retain(|intent| {
        let settle = |app: &mut App<'_>| (yours.settle)(app, intent);
        let Some(stop) = process_stop(sim, "settle", settle, world, true) else {
            return false;
        };
        if stopped_with_a_charge.is_ok() {
            stopped_with_a_charge = check_recorded_intents(world, &INTENTS);
        }
        let Some(code) = refusal(&stop) else {
            return true;
        };
        sim.event("job", Glyph::Error, || {
            let truth = format!("a definite refusal: {} goes to an operator", intent.id);
            (format!("{} refused with {}", intent.id, code.name()), truth)
        });
        refused.get_or_insert((intent.id, code));
        false
    });
    stopped_with_a_charge
}

// ANCHOR: settlement_scenario
/// One graded settlement schedule. The settlement job runs over the intents not yet
/// finished, at most three times while faults happen; then the faults heal (commits
/// and charges in flight land) and it runs at most twice more; then the invariants.
/// `rerun` says when the job runs again after a run that left an intent unfinished.
pub fn settlement_scenario(
    yours: Protocol,
    sim: &mut Sim,
    rerun: Rerun,
    invariants: &[Invariant],
) -> Verdict {
    let mut world = World::default();
    let mut unfinished = INTENTS.to_vec();
    let mut first_stop = Ok(());
    let mut refused = None;
    for run in 0..5 {
        if unfinished.is_empty() {
            break;
        }
        if run > 0 {
            wait_for_the_next_run(sim, &mut world, rerun);
        }
        if run == 3 {
            sim.heal();
            world.land_in_flight(sim);
        }
        let stop = run_job(yours, sim, &mut world, &mut unfinished, &mut refused);
        first_stop = first_stop.and(stop);
    }
    sim.heal();
    world.land_in_flight(sim);
    if invariants.contains(&Invariant::NeverRefused) {
        check_never_refused(refused)?;
    }
    check_settlements(&world, &INTENTS, invariants)?;
    if invariants.contains(&Invariant::RecordedBeforeCharged) {
        return first_stop;
    }
    Ok(())
}
// ANCHOR_END: settlement_scenario

/// The scope of the settlement scenario whose job reruns as `rerun` says.
pub fn settlement_scope(rerun: Rerun, max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: match rerun {
            Rerun::AtOnce => "settlement",
            Rerun::NextDay => "settlement-next-day",
            Rerun::EitherWay => "settlement-any-day",
        },
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
pub fn explore_settlement(
    yours: Protocol,
    rerun: Rerun,
    max_faults: usize,
    invariants: &'static [Invariant],
) -> Exploration {
    fault::explore(settlement_scope(rerun, max_faults), |sim| {
        settlement_scenario(yours, sim, rerun, invariants)
    })
}

/// Explores every reconciliation schedule with up to `max_faults` faults.
pub fn explore_reconciliation(
    yours: Protocol,
    max_faults: usize,
    invariants: &'static [Evidence],
) -> Exploration {
    fault::explore(reconciliation_scope(max_faults), |sim| {
        reconciliation_scenario(yours, sim, invariants)
    })
}

fn replay_settlement(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        settlement_scenario(yours, sim, Rerun::AtOnce, &ALL_INVARIANTS)
    })
}

fn replay_next_day(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        settlement_scenario(yours, sim, Rerun::NextDay, &ALL_INVARIANTS)
    })
}

fn replay_any_day(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        settlement_scenario(yours, sim, Rerun::EitherWay, &ALL_INVARIANTS)
    })
}

fn replay_reconciliation(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        reconciliation_scenario(yours, sim, &ALL_EVIDENCE)
    })
}

fn replay_naive(_: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        crate::observe::naive_scenario(sim, crate::observe::NAIVE).0
    })
}

/// The scenarios `cargo labs replay 02 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("settlement", replay_settlement),
    ("settlement-next-day", replay_next_day),
    ("settlement-any-day", replay_any_day),
    ("reconciliation", replay_reconciliation),
    ("naive", replay_naive),
];
