//! The graded scenarios: coordinator processes run one after another against the world,
//! under every fault schedule of a bounded scope. `SCENARIOS` lists what
//! `cargo labs replay 09 NAME TOKEN` can replay.

use crate::invariants::{Ending, Outcome, UnseenCommit, violation};
use crate::world::{Coordinator, Stop, World};
use labkit::fault::{
    self, CrashMatrix, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict,
};
use sim_writeapi::Faults;

/// Your `run_coordinator` from `coordinator.rs`, as the graded worlds call it
/// (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub run_coordinator: fn(&mut Coordinator) -> Result<(), Stop>,
}

/// Fates the graded calls may meet.
pub const APPEND_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const FINALIZE_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost];
pub const COMMIT_FATES: &[Fate] = &[Fate::Ok, Fate::AppliedResponseLost, Fate::NotApplied];

/// How many coordinator processes a schedule may start; the last two run healed.
const PROCESSES: u32 = 5;

/// Runs coordinator processes until one finishes or holds; also returns the first process
/// that ended while a sent commit was missing from the journal.
fn run_processes(
    yours: Protocol,
    sim: &mut Sim,
    world: &mut World,
) -> (Ending, Option<UnseenCommit>) {
    let mut unseen = None;
    for number in 1..=PROCESSES {
        if number + 1 >= PROCESSES {
            sim.heal();
            world.api.drain(sim);
        }
        sim.event("coordinator", Glyph::Recover, || {
            let started = format!("coordinator-{number} starts and opens coordinator.db");
            (started, String::new())
        });
        let result = (yours.run_coordinator)(&mut Coordinator::start(sim, world));
        match result {
            Ok(()) => return (Ending::Done, unseen),
            Err(Stop::Hold(reason)) => return (Ending::Held(reason), unseen),
            Err(stop) => {
                sim.event("coordinator", Glyph::Recover, || {
                    (
                        format!("coordinator-{number} ends: {stop}"),
                        "its memory is gone; coordinator.db remains".into(),
                    )
                });
                unseen = unseen.or_else(|| UnseenCommit::check(world, number, &stop));
            }
        }
    }
    (Ending::Unfinished, unseen)
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
pub fn run_batch(yours: Protocol, sim: &mut Sim, script: Script) -> Outcome {
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
    let (ending, unseen_commit) = run_processes(yours, sim, &mut world);
    Outcome::of(&world, ending, unseen_commit)
}

fn verdict(outcome: &Outcome) -> Verdict {
    violation(outcome).map_or(Ok(()), Err)
}

/// One schedule of the batch: the verdict of [`run_batch`].
pub fn batch_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    verdict(&run_batch(yours, sim, Script::Nothing))
}

/// The chapter's headline case: the group is committed and the response is lost.
pub fn lost_commit_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    verdict(&run_batch(yours, sim, Script::LoseFirstCommitResponse))
}

/// The commit request is lost before the service applies it.
pub fn lost_request_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    verdict(&run_batch(yours, sim, Script::LoseFirstCommitRequest))
}

/// W1's append is applied and its response lost.
pub fn lost_append_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    verdict(&run_batch(yours, sim, Script::LoseFirstAppendResponse))
}

fn scope(scenario: &'static str, max_faults: usize) -> Scope {
    Scope {
        lab: "09",
        scenario,
        max_faults,
    }
}

/// Explores every schedule of the batch with up to `max_faults` faults.
pub fn explore_batch(yours: Protocol, max_faults: usize) -> Exploration {
    fault::explore(scope("batch", max_faults), |sim| batch_scenario(yours, sim))
}

/// Runs one scripted case with no other fault: `lost-commit`, `lost-request` or
/// `lost-append`.
pub fn explore_case(yours: Protocol, name: &'static str) -> Exploration {
    let scenario = case(name);
    fault::explore(scope(name, 0), |sim| scenario(yours, sim))
}

fn case(name: &str) -> fn(Protocol, &mut Sim) -> Verdict {
    match name {
        "lost-commit" => lost_commit_scenario,
        "lost-request" => lost_request_scenario,
        "lost-append" => lost_append_scenario,
        _ => batch_scenario,
    }
}

/// Every one-fault schedule of the batch and its verdict.
pub fn explore_every_single_fault(yours: Protocol) -> Exploration {
    fault::explore_all(scope("batch", 1), |sim| batch_scenario(yours, sim))
}

/// Every one-fault schedule and what it broke.
pub fn crash_matrix(yours: Protocol) -> CrashMatrix {
    CrashMatrix::from_exploration(&explore_every_single_fault(yours))
}

fn replay_batch(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| batch_scenario(yours, sim))
}

fn replay_lost_commit(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| lost_commit_scenario(yours, sim))
}

fn replay_lost_request(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| lost_request_scenario(yours, sim))
}

fn replay_lost_append(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| lost_append_scenario(yours, sim))
}

/// The scenarios `cargo labs replay 09 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("batch", replay_batch),
    ("lost-commit", replay_lost_commit),
    ("lost-request", replay_lost_request),
    ("lost-append", replay_lost_append),
];
