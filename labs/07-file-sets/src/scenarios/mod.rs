//! The graded scenarios: which actor runs first, which one a switch may run, what the
//! world checks after each attempt, and the replayable names of each.

mod actors;

pub use actors::{run_abandon, run_consumer, run_publisher};

use crate::invariants::{check_all, check_manifest};
use crate::publication::ACCESS;
use crate::world::{AUDITOR, DATA, RUN_1, RUN_2, World, dataset, run_tag};
use actors::{AnalystEdits, ConsumerRuns, PublicationRuns};
use labkit::fault::{self, Exploration, Replay, Scope, Sim, Token, Verdict, Violation};

// ANCHOR: scenarios
/// Which actor runs first, and which one may be switched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// The publisher publishes run-2 (and restarts after a crash); a consumer run may
    /// happen before any of its requests.
    Publish,
    /// A consumer runs; a whole publication attempt of run-2 may happen before any of
    /// its requests.
    Consume,
    /// The publisher's attempt at run-2 may crash; then the publisher abandons run-2
    /// (and restarts after a crash), while a consumer run may happen before any request.
    Abandon,
    /// The publisher publishes run-2; before any of its requests the analyst may "fix"
    /// the accepted accounts file by hand and try to replace, create or delete the
    /// manifest.
    Analyst,
}

// ANCHOR_END: scenarios

impl Scenario {
    pub const ALL: [Scenario; 4] = [
        Scenario::Publish,
        Scenario::Consume,
        Scenario::Abandon,
        Scenario::Analyst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Publish => "publish",
            Scenario::Consume => "consume",
            Scenario::Abandon => "abandon",
            Scenario::Analyst => "analyst",
        }
    }
}

/// One graded schedule of `scenario`.
pub fn run_scenario(sim: &mut Sim, scenario: Scenario) -> Verdict {
    let mut world = World::new(sim, ACCESS);
    accept_first_run(&mut world)?;
    world.faults = true;
    let second = dataset(RUN_2).expect("run-2");
    match scenario {
        Scenario::Publish | Scenario::Analyst => {
            world.peer = Some(if scenario == Scenario::Publish {
                Box::new(ConsumerRuns)
            } else {
                Box::new(AnalystEdits)
            });
            for _attempt in 0..2 {
                if run_publisher(&mut world, &second).is_ok() {
                    break;
                }
                check_all(&world)?;
            }
        }
        Scenario::Consume => {
            world.peer = Some(Box::new(PublicationRuns(second.clone())));
            run_consumer(&mut world);
        }
        Scenario::Abandon => abandon_second_run(&mut world)?,
    }
    check_all(&world)?;
    if scenario == Scenario::Abandon {
        return Ok(());
    }
    finish(&mut world)
}

/// Publishes run-1 without faults: every scenario starts from an accepted set.
fn accept_first_run(world: &mut World) -> Verdict {
    let first = dataset(RUN_1).expect("run-1");
    run_publisher(world, &first).map_err(|e| {
        Violation::new(
            "a fault-free publication is accepted",
            &[
                "Let run-1 be published with no crash and no other actor.".into(),
                format!("Then `publish` returned: {e}."),
                "Contradiction: without faults, a publication must complete.".into(),
            ],
        )
    })?;
    check_manifest(world)
}

/// The `abandon` scenario after run-1 was accepted: an attempt at run-2 that may crash,
/// then `abandon` (restarted once after a crash) with a consumer that may run between.
fn abandon_second_run(world: &mut World) -> Verdict {
    let second = dataset(RUN_2).expect("run-2");
    let _ = run_publisher(world, &second);
    check_all(world)?;
    world.peer = Some(Box::new(ConsumerRuns));
    let mut outcome = run_abandon(world, RUN_2);
    if matches!(outcome, Err(crate::world::Error::Crashed(_))) {
        check_all(world)?;
        outcome = run_abandon(world, RUN_2);
    }
    check_all(world)?;
    let accepted = world.manifest().map(|m| m.run);
    let left = world.store.list(AUDITOR, DATA, "").unwrap_or_default();
    let leftovers: Vec<String> = left
        .iter()
        .filter_map(|m| world.origin(DATA, &m.name, None))
        .filter(|(_, bytes)| run_tag(bytes).as_deref() == Some(RUN_2))
        .map(|(m, _)| format!("{}#{}", m.name, m.generation))
        .collect();
    if accepted.as_deref() != Some(RUN_2) && (outcome.is_err() || !leftovers.is_empty()) {
        return Err(Violation::new(
            "an abandoned publication leaves nothing behind",
            &[
                format!("Let run-2 be abandoned while the manifest accepts {accepted:?}."),
                format!("Then `abandon` returned {outcome:?} and run-2 files remain: {leftovers:?}."),
                "Contradiction: abandoning a run that was never accepted must remove its files, and only its files.".into(),
            ],
        ));
    }
    Ok(())
}

/// After the faults: the publisher finishes run-2, and a consumer reports it.
fn finish(world: &mut World) -> Verdict {
    world.sim.heal();
    world.faults = false;
    world.peer = None;
    let second = dataset(RUN_2).expect("run-2");
    if let Err(e) = run_publisher(world, &second) {
        return Err(Violation::new(
            "a publication can be resumed: publish is safe to call again",
            &[
                "Let run-2 be published again after the faults stopped (the earlier attempt completed, crashed, or never ran).".into(),
                format!("Then `publish` returned: {e}."),
                "Contradiction: calling publish again must finish or confirm the run: a file already uploaded with the same content is the publisher's own earlier write, not a conflict.".into(),
            ],
        ));
    }
    run_consumer(world);
    check_all(world)?;
    match world.reports.last() {
        Some(r) if r.run == RUN_2 => Ok(()),
        last => Err(Violation::new(
            "consumers see the new set once it is accepted",
            &[
                "Let run-2 be accepted and a consumer run afterwards.".into(),
                format!("Then its last report is {last:?}."),
                "Contradiction: a consumer must report the accepted run.".into(),
            ],
        )),
    }
}

/// The scope of a graded exploration of `scenario` with up to `max_faults` faults.
pub fn scope(scenario: Scenario, max_faults: usize) -> Scope {
    Scope {
        lab: "07",
        scenario: scenario.name(),
        max_faults,
    }
}

/// Explores every schedule of `scenario` with up to `max_faults` faults.
pub fn explore_scenario(scenario: Scenario, max_faults: usize) -> Exploration {
    fault::explore(scope(scenario, max_faults), |sim| {
        run_scenario(sim, scenario)
    })
}

fn replay_with(scenario: Scenario, token: &Token) -> Replay {
    fault::replay(token, |sim| run_scenario(sim, scenario))
}

fn replay_publish(token: &Token) -> Replay {
    replay_with(Scenario::Publish, token)
}
fn replay_consume(token: &Token) -> Replay {
    replay_with(Scenario::Consume, token)
}
fn replay_abandon(token: &Token) -> Replay {
    replay_with(Scenario::Abandon, token)
}
fn replay_analyst(token: &Token) -> Replay {
    replay_with(Scenario::Analyst, token)
}

/// The scenarios `cargo labs replay 07 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("publish", replay_publish),
    ("consume", replay_consume),
    ("abandon", replay_abandon),
    ("analyst", replay_analyst),
];
