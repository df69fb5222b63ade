//! The drivers: exhaustive exploration, seeded random runs with shrinking, replay from a
//! token, and the determinism self-check. All of them re-execute the scenario from
//! scratch for every schedule: a scenario builds its whole world (databases, services,
//! actors) inside the closure, so nothing survives from one schedule to the next.
//!
//! This file holds what every driver shares (running a schedule, the report of a failing
//! one) and the exhaustive exploration; `random.rs` the seeded random runs and shrinking,
//! `replay.rs` the replay of a token and the determinism self-check.

use super::event::{Event, Glyph};
use super::outcome::{Exploration, Failure, Run, Scope, Verdict, Violation};
use super::sim::{Sim, Source};
use super::token::Token;
use std::panic::{AssertUnwindSafe, catch_unwind};

pub(super) fn run_once(scenario: &mut dyn FnMut(&mut Sim) -> Verdict, sim: &mut Sim) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| scenario(sim))) {
        Ok(verdict) => verdict,
        Err(_) if sim.stopped_at_limit() => Err(did_not_finish(sim)),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            Err(Violation::new(
                "the code under test does not panic",
                &[format!("It panicked: {message}")],
            ))
        }
    }
}

/// How many of a stopped run's last choices its violation summarises, and how many of
/// its last events the failure's timeline shows.
const LOOP_WINDOW: usize = 100;
const LOOP_EVENTS: usize = 30;

/// The violation of a run stopped at its choice limit, naming the sites it kept
/// choosing at (the loop that did not end).
fn did_not_finish(sim: &Sim) -> Violation {
    let limit = sim.choice_limit();
    let path = sim.path();
    let window = &path[path.len().saturating_sub(LOOP_WINDOW)..];
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for choice in window {
        *counts.entry(choice.site).or_default() += 1;
    }
    let mut busiest: Vec<(&str, usize)> = counts.into_iter().collect();
    busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let sites: Vec<String> = busiest
        .iter()
        .take(3)
        .map(|(site, n)| format!("{site} ({n})"))
        .collect();
    Violation::new(
        format!("every schedule finishes within {limit} choices"),
        &[
            format!("Let N = {limit} be the most choices one run may make."),
            format!(
                "Then this schedule did not finish after {limit} choices; of its last {}, the most were at {}.",
                window.len(),
                sites.join(", ")
            ),
            "Contradiction: a run still choosing after N choices is a loop that does not end (a retry without a bound, a wait for what cannot happen). A scenario longer by design raises N with Sim::limit_choices.".into(),
        ],
    )
}

pub(super) fn failure(
    scope: Scope,
    token: &Token,
    scenario: &mut dyn FnMut(&mut Sim) -> Verdict,
    fallback: Violation,
) -> Failure {
    // Re-run loudly: the same path, now recording the timeline.
    let mut sim = recording(token);
    let violation = run_once(scenario, &mut sim).err().unwrap_or(fallback);
    let mut events = sim.events().to_vec();
    if sim.stopped_at_limit() && events.len() > LOOP_EVENTS {
        // A run that did not finish has as many events as the limit allows: show the loop.
        let hidden = events.len() - LOOP_EVENTS;
        events.drain(..hidden);
        let tick = events[0].tick;
        events.insert(
            0,
            Event {
                tick,
                actor: "...",
                glyph: Glyph::Normal,
                client: format!("({hidden} earlier events not shown)"),
                truth: String::new(),
            },
        );
    }
    Failure {
        scope,
        token: Token::of_run(sim.path()),
        faults: sim.fault_list(),
        violation,
        events,
    }
}

/// A driver's silent run along `prefix` with `budget` faults.
pub(super) fn silent(prefix: Vec<usize>, budget: usize) -> Sim {
    Sim::driven(Source::Path { prefix }, budget, false)
}

/// A driver's run along `token`'s path with its timeline recorded.
pub(super) fn recording(token: &Token) -> Sim {
    Sim::driven(
        Source::Path {
            prefix: token.path().to_vec(),
        },
        usize::MAX,
        true,
    )
}

fn exhaustive(
    scope: Scope,
    scenario: &mut dyn FnMut(&mut Sim) -> Verdict,
    collect: bool,
) -> Exploration {
    let mut result = Exploration {
        scope,
        schedules: 0,
        per_level: vec![0; scope.max_faults + 1],
        failure: None,
        runs: Vec::new(),
    };
    // Iterative deepening on the fault budget: every schedule with k faults is run at
    // level k, so the first failure found has the fewest faults.
    for budget in 0..=scope.max_faults {
        let mut prefix: Vec<usize> = Vec::new();
        loop {
            let mut sim = silent(prefix, budget);
            let verdict = run_once(scenario, &mut sim);
            let path = sim.path();
            if sim.faults() == budget {
                result.schedules += 1;
                result.per_level[budget] += 1;
                if let Err(violation) = &verdict
                    && result.failure.is_none()
                {
                    let token = Token::of_run(path);
                    result.failure = Some(failure(scope, &token, scenario, violation.clone()));
                    if !collect {
                        return result;
                    }
                }
                if collect {
                    result.runs.push(Run {
                        token: Token::of_run(path),
                        faults: sim.fault_list(),
                        verdict,
                    });
                }
            }
            // Backtrack like an odometer: the deepest choice with an untried option.
            let Some(depth) = path.iter().rposition(|c| c.index + 1 < c.arity) else {
                break;
            };
            prefix = path[..depth].iter().map(|c| c.index).collect();
            prefix.push(path[depth].index + 1);
        }
    }
    result
}

/// Runs every schedule with up to `scope.max_faults` faults, fewest faults first, and
/// stops at the first failure.
pub fn explore(scope: Scope, mut scenario: impl FnMut(&mut Sim) -> Verdict) -> Exploration {
    exhaustive(scope, &mut scenario, false)
}

/// Like [`explore`], but runs every schedule and keeps each verdict (crash matrices).
pub fn explore_all(scope: Scope, mut scenario: impl FnMut(&mut Sim) -> Verdict) -> Exploration {
    exhaustive(scope, &mut scenario, true)
}
