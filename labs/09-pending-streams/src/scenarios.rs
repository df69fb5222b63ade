//! The graded scenarios: coordinator processes run one after another against the world,
//! under every fault schedule of a bounded scope. `SCENARIOS` lists what
//! `cargo labs replay 09 NAME TOKEN` can replay.

use crate::coordinator::run_coordinator;
use crate::invariants::{Ending, Outcome, violation};
use crate::world::{Coordinator, Stop, World};
use labkit::fault::{
    self, CrashMatrix, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict,
};
use sim_writeapi::Faults;

/// Fates the graded calls may meet.
pub const APPEND_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const FINALIZE_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const COMMIT_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost, Fate::NotApplied];

/// How many coordinator processes a schedule may start; the last two run healed.
const PROCESSES: u32 = 5;

/// Runs coordinator processes until one finishes or holds.
fn run_processes(sim: &mut Sim, world: &mut World) -> Ending {
    for number in 1..=PROCESSES {
        if number + 1 >= PROCESSES {
            sim.heal();
            world.api.drain(sim);
        }
        sim.event("coordinator", Glyph::Recover, || {
            let started = format!("coordinator-{number} starts and opens coordinator.db");
            (started, String::new())
        });
        let result = run_coordinator(&mut Coordinator::start(sim, world));
        match result {
            Ok(()) => return Ending::Done,
            Err(Stop::Hold(reason)) => return Ending::Held(reason),
            Err(stop) => sim.event("coordinator", Glyph::Recover, || {
                (
                    format!("coordinator-{number} ends: {stop}"),
                    "its memory is gone; coordinator.db remains".into(),
                )
            }),
        }
    }
    Ending::Unfinished
}

/// A fault fixed by the scenario, outside the explored choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Nothing,
    /// The first `BatchCommitWriteStreams` is applied and its response lost.
    LoseFirstCommitResponse,
    /// The first `BatchCommitWriteStreams` is lost before the service applies it.
    LoseFirstCommitRequest,
    /// The first `AppendRows` is applied and its response lost.
    LoseFirstAppendResponse,
}

/// Runs one schedule of the batch, with `script`'s fault on top of the schedule's own.
pub fn run_batch(sim: &mut Sim, script: Script) -> Outcome {
    let mut world = World::create(Faults {
        append: APPEND_FATES,
        finalize: FINALIZE_FATES,
        commit: COMMIT_FATES,
    });
    match script {
        Script::Nothing => {}
        Script::LoseFirstCommitResponse => world.api.script_next_commit(Fate::AppliedResponseLost),
        Script::LoseFirstCommitRequest => world.api.script_next_commit(Fate::NotApplied),
        Script::LoseFirstAppendResponse => world.api.script_next_append(Fate::AppliedResponseLost),
    }
    let ending = run_processes(sim, &mut world);
    Outcome::of(&world, ending)
}

fn verdict(outcome: &Outcome) -> Verdict {
    violation(outcome).map_or(Ok(()), Err)
}

/// One schedule of the batch: the verdict of [`run_batch`].
pub fn batch_scenario(sim: &mut Sim) -> Verdict {
    verdict(&run_batch(sim, Script::Nothing))
}

/// The chapter's headline case: the group is committed and the response is lost.
pub fn lost_commit_scenario(sim: &mut Sim) -> Verdict {
    verdict(&run_batch(sim, Script::LoseFirstCommitResponse))
}

/// The commit request is lost before the service applies it.
pub fn lost_request_scenario(sim: &mut Sim) -> Verdict {
    verdict(&run_batch(sim, Script::LoseFirstCommitRequest))
}

/// W1's append is applied and its response lost.
pub fn lost_append_scenario(sim: &mut Sim) -> Verdict {
    verdict(&run_batch(sim, Script::LoseFirstAppendResponse))
}

fn scope(scenario: &'static str, max_faults: usize) -> Scope {
    Scope {
        lab: "09",
        scenario,
        max_faults,
    }
}

/// Explores every schedule of the batch with up to `max_faults` faults.
pub fn explore_batch(max_faults: usize) -> Exploration {
    fault::explore(scope("batch", max_faults), batch_scenario)
}

/// Runs one scripted case with no other fault: `lost-commit`, `lost-request` or
/// `lost-append`.
pub fn explore_case(name: &'static str) -> Exploration {
    fault::explore(scope(name, 0), case(name))
}

fn case(name: &str) -> fn(&mut Sim) -> Verdict {
    match name {
        "lost-commit" => lost_commit_scenario,
        "lost-request" => lost_request_scenario,
        "lost-append" => lost_append_scenario,
        _ => batch_scenario,
    }
}

/// Every one-fault schedule of the batch and its verdict.
pub fn explore_every_single_fault() -> Exploration {
    fault::explore_all(scope("batch", 1), batch_scenario)
}

/// Every one-fault schedule and what it broke.
pub fn crash_matrix() -> CrashMatrix {
    CrashMatrix::from_exploration(&explore_every_single_fault())
}

fn replay_batch(token: &Token) -> Replay {
    fault::replay(token, batch_scenario)
}

fn replay_lost_commit(token: &Token) -> Replay {
    fault::replay(token, lost_commit_scenario)
}

fn replay_lost_request(token: &Token) -> Replay {
    fault::replay(token, lost_request_scenario)
}

fn replay_lost_append(token: &Token) -> Replay {
    fault::replay(token, lost_append_scenario)
}

/// The scenarios `cargo labs replay 09 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("batch", replay_batch),
    ("lost-commit", replay_lost_commit),
    ("lost-request", replay_lost_request),
    ("lost-append", replay_lost_append),
];
