//! The graded scenarios: which actor runs first, which others a switch may run, what is
//! checked after each attempt, and the replayable names of each.

mod actors;
mod peers;

pub use actors::{run_abandon, run_consumer, run_publisher};

use crate::invariants::{check_abandoned, check_all, check_manifest, on_write};
use crate::world::{
    DATA, Dataset, Error, FileRef, Gcs, PUBLISHER, RUN_1, RUN_2, RUN_3, Report, World, dataset,
};
use labkit::fault::{self, Exploration, Replay, Scope, Sim, Token, Verdict, Violation};
use peers::{
    AnalystEdits, ConsumerHousekeeping, ConsumerRuns, PublicationRuns, Restatement,
    STAGED_ACCOUNTS, StagedAccounts, leave_notes,
};
use sim_storage::Role;

/// Your bindings and functions from `publication.rs`, as the graded worlds use them
/// (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub access: &'static [(&'static str, &'static str, Role)],
    pub publish: fn(&mut Gcs, &Dataset) -> Result<(), Error>,
    pub abandon: fn(&mut Gcs, &str) -> Result<(), Error>,
    pub consume: fn(&mut Gcs) -> Result<Report, Error>,
}

/// Which actor runs first, and which others may be switched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// The publisher publishes run-2 (and restarts after a crash); before any of its
    /// requests a consumer may run, or the restatement job may stage its own accounts
    /// file under run-2's accounts name (only if the name is free).
    Publish,
    /// A consumer runs; before any of its requests, a whole publication attempt of
    /// run-2 may happen, or the restatement job may rewrite the accepted positions.
    Consume,
    /// The publisher's attempt at run-2 may crash; then the publisher abandons run-2
    /// (restarting after a crash), and a consumer run may happen before any request.
    Abandon,
    /// The publisher publishes run-2; before any of its requests the analyst may
    /// "fix" the accepted accounts file by hand, try to replace, create or delete the
    /// manifest and stage a hand-fixed file under run-2's name, or the consumer's
    /// housekeeping job may delete the files of the accepted run.
    Analyst,
    /// The publisher publishes run-2; before any of its requests a second publisher
    /// process may publish run-3, the next night's run, from start to end.
    Race,
}

impl Scenario {
    pub const ALL: [Scenario; 5] = [
        Scenario::Publish,
        Scenario::Consume,
        Scenario::Abandon,
        Scenario::Analyst,
        Scenario::Race,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Publish => "publish",
            Scenario::Consume => "consume",
            Scenario::Abandon => "abandon",
            Scenario::Analyst => "analyst",
            Scenario::Race => "race",
        }
    }
}

/// One graded schedule of `scenario`.
pub fn run_scenario(yours: Protocol, sim: &mut Sim, scenario: Scenario) -> Verdict {
    let mut world = World::new(sim, yours.access, on_write);
    set_up(yours, &mut world)?;
    world.faults = true;
    let second = dataset(RUN_2).expect("run-2");
    let publication = |data, label, lane| {
        Box::new(PublicationRuns {
            yours,
            data,
            label,
            lane,
        })
    };
    match scenario {
        Scenario::Publish => {
            world.peers.push(Box::new(ConsumerRuns(yours)));
            world.peers.push(Box::new(StagedAccounts));
        }
        Scenario::Analyst => {
            world.peers.push(Box::new(AnalystEdits));
            world.peers.push(Box::new(ConsumerHousekeeping));
        }
        Scenario::Race => {
            let third = dataset(RUN_3).expect("run-3");
            let label = "another publisher publishes run-3 now";
            // The other process gets a lane of its own beside the scenario's publisher.
            world.peers.push(publication(third, label, "publisher 2"));
        }
        Scenario::Consume => {
            let label = "a publication attempt runs now";
            world
                .peers
                .push(publication(second.clone(), label, "publisher"));
            world.peers.push(Box::new(Restatement));
            run_consumer(yours, &mut world);
        }
        Scenario::Abandon => return abandon_second_run(yours, &mut world),
    }
    if scenario != Scenario::Consume {
        // A crashed attempt is restarted once, by a new process.
        for _attempt in 0..2 {
            if run_publisher(yours, &mut world, &second).is_ok() {
                break;
            }
            check_all(&world)?;
        }
    }
    check_all(&world)?;
    finish(yours, &mut world)
}

/// Every scenario starts from the same bucket: the restatement job's notes under
/// `runs/run-2/`, and run-1 published without faults and accepted. The timeline shows
/// the result in one line.
fn set_up(yours: Protocol, world: &mut World) -> Verdict {
    world.quiet = true;
    leave_notes(world);
    let first = dataset(RUN_1).expect("run-1");
    let published = run_publisher(yours, world, &first);
    world.quiet = false;
    let accepted = world.manifest();
    world.sim.note("setup", || {
        "the restatement job keeps datasets/runs/run-2/NOTES.txt".into()
    });
    world.sim.note("setup", || match &accepted {
        Some(m) => format!(
            "run-1 accepted: the manifest names {} and {}",
            named(&m.accounts),
            named(&m.positions)
        ),
        None => "run-1 is not accepted".into(),
    });
    published.map_err(|e| {
        Violation::new(
            "a fault-free publication is accepted",
            &[
                "Let run-1 be published with no crash and no other actor.".into(),
                format!("Then `publish` returned: {e}."),
                "Contradiction: without faults, a publication must complete.".into(),
            ],
        )
    })?;
    check_all(world)?;
    check_manifest(world)
}

/// A file as the manifest names it: `name#generation`, or the bare name when unpinned.
fn named(file: &FileRef) -> String {
    match file.generation {
        Some(g) => format!("{}#{g}", file.name),
        None => format!("{} (no generation)", file.name),
    }
}

/// The `abandon` scenario after run-1 was accepted: an attempt at run-2 that may crash,
/// then `abandon` (restarted once after a crash) with a consumer that may run between.
fn abandon_second_run(yours: Protocol, world: &mut World) -> Verdict {
    let second = dataset(RUN_2).expect("run-2");
    let _ = run_publisher(yours, world, &second);
    check_all(world)?;
    world.peers.push(Box::new(ConsumerRuns(yours)));
    let mut outcome = run_abandon(yours, world, RUN_2);
    if matches!(outcome, Err(Error::Crashed(_))) {
        check_all(world)?;
        outcome = run_abandon(yours, world, RUN_2);
    }
    check_all(world)?;
    check_abandoned(world, RUN_2, &outcome.map_err(|e| e.to_string()))
}

/// After the faults: the publisher finishes run-2 (or finds a later run accepted), and a
/// consumer reports the run the manifest accepts.
fn finish(yours: Protocol, world: &mut World) -> Verdict {
    world.sim.heal();
    world.faults = false;
    world.peers.clear();
    let second = dataset(RUN_2).expect("run-2");
    let later_accepted = |world: &World| {
        let run = world.manifest().map(|m| m.run);
        run.and_then(|r| dataset(&r)).map_or(0, |d| d.sequence) > second.sequence
    };
    let refused = match run_publisher(yours, world, &second) {
        Ok(()) => false,
        Err(Error::Rejected(_)) if later_accepted(world) => false,
        // Another writer's object holds run-2's name: refusing is the safe answer.
        Err(Error::Rejected(_)) if staged_by_another(world) => true,
        Err(e) => return Err(earliest(world, Violation::new(
            "publish is safe to call again",
            &[
                "Let run-2 be published again after the faults stopped (the earlier attempt completed, crashed, or never ran).".into(),
                format!("Then `publish` returned: {e}."),
                "Contradiction: calling publish again must finish or confirm the run: a file already uploaded with the same content is the publisher's own earlier write, not a conflict.".into(),
            ],
        ))),
    };
    let reports = world.reports.len();
    run_consumer(yours, world);
    check_all(world)?;
    let accepted = world.manifest().map(|m| m.run).unwrap_or_default();
    let reported = world.reports.get(reports).map(|r| r.run.clone());
    if (refused || accepted != RUN_1) && reported.as_deref() == Some(accepted.as_str()) {
        return Ok(());
    }
    Err(earliest(world, Violation::new(
        "consumers see the new set once it is accepted",
        &[
            format!("Let run-2 be published, and the manifest accept {accepted}."),
            match reported {
                Some(run) => format!("Then a consumer that runs afterwards reports {run}."),
                None => "Then a consumer that runs afterwards reports nothing.".into(),
            },
            "Contradiction: once a publication returns, the next consumer must report the run the manifest accepts, and that run is not run-1 any more.".into(),
        ],
    )))
}

/// Whether the live object at run-2's accounts name was written by someone other than the
/// publisher (the restatement job's staged file): run-2 cannot be published under it.
fn staged_by_another(world: &World) -> bool {
    let Some(live) = world.live_generation(DATA, STAGED_ACCOUNTS) else {
        return false;
    };
    world.store.audit().iter().any(|e| {
        e.method == "objects.insert"
            && e.status == 200
            && e.name == STAGED_ACCOUNTS
            && e.generation == Some(live)
            && e.principal != PUBLISHER
    })
}

/// The violation to report: the first one a write broke, if any, else `violation`.
fn earliest(world: &World, violation: Violation) -> Violation {
    world.broken.clone().unwrap_or(violation)
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
pub fn explore_scenario(yours: Protocol, scenario: Scenario, max_faults: usize) -> Exploration {
    fault::explore(scope(scenario, max_faults), |sim| {
        run_scenario(yours, sim, scenario)
    })
}

fn replay_with(yours: Protocol, scenario: Scenario, token: &Token) -> Replay {
    fault::replay(token, |sim| run_scenario(yours, sim, scenario))
}

fn replay_publish(yours: Protocol, token: &Token) -> Replay {
    replay_with(yours, Scenario::Publish, token)
}
fn replay_consume(yours: Protocol, token: &Token) -> Replay {
    replay_with(yours, Scenario::Consume, token)
}
fn replay_abandon(yours: Protocol, token: &Token) -> Replay {
    replay_with(yours, Scenario::Abandon, token)
}
fn replay_analyst(yours: Protocol, token: &Token) -> Replay {
    replay_with(yours, Scenario::Analyst, token)
}
fn replay_race(yours: Protocol, token: &Token) -> Replay {
    replay_with(yours, Scenario::Race, token)
}

/// The scenarios `cargo labs replay 07 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("publish", replay_publish),
    ("consume", replay_consume),
    ("abandon", replay_abandon),
    ("analyst", replay_analyst),
    ("race", replay_race),
];
