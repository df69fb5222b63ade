//! Seeded random runs: `runs` schedules from a seed, a fault at each open choice with a
//! given probability, the first failure shrunk to fewer and smaller faults.

use super::explore::{failure, run_once, silent};
use super::outcome::{Failure, Scope, Verdict};
use super::sim::{Sim, Source};
use super::token::Token;

/// The result of seeded random runs.
#[derive(Clone, Debug)]
pub struct RandomReport {
    /// The seed the runs were generated from, so they can be run again.
    pub seed: u64,
    /// How many schedules ran.
    pub runs: u64,
    /// The first failing run, shrunk.
    pub failure: Option<Failure>,
    /// The unshrunk token of that run.
    pub original: Option<Token>,
}

/// The run of random schedule number `i` from `seed`: the generator seeded with
/// `seed + i`, a fault with probability `num/den` at each open choice.
fn random_sim(seed: u64, i: u64, (num, den): (u64, u64)) -> Sim {
    let rng = super::rng::Rng::new(seed.wrapping_add(i));
    Sim::driven(Source::Random { rng, num, den }, usize::MAX, false)
}

/// `runs` random schedules from `seed`: run `i` uses the generator seeded with
/// `seed + i`, and at each open choice takes a fault with probability `num/den`. A
/// failure is shrunk before it is reported.
pub fn random(
    scope: Scope,
    seed: u64,
    runs: u64,
    rate: (u64, u64),
    mut scenario: impl FnMut(&mut Sim) -> Verdict,
) -> RandomReport {
    for i in 0..runs {
        let mut sim = random_sim(seed, i, rate);
        if let Err(violation) = run_once(&mut scenario, &mut sim) {
            let original = Token::of_run(sim.path());
            let shrunk = shrink(&original, &mut scenario);
            return RandomReport {
                seed,
                runs: i + 1,
                failure: Some(failure(scope, &shrunk, &mut scenario, violation)),
                original: Some(original),
            };
        }
    }
    RandomReport {
        seed,
        runs,
        failure: None,
        original: None,
    }
}

/// One seeded random schedule, run once and not shrunk.
#[derive(Clone, Debug)]
pub struct SeededRun {
    /// The token that replays this schedule.
    pub token: Token,
    /// The faults taken, as `site=option`, in order.
    pub faults: Vec<String>,
    /// Whether the schedule kept every invariant.
    pub verdict: Verdict,
}

/// Runs the schedule that the first run of [`random`] with the same `seed` and `rate`
/// runs, and returns its verdict and its token, whatever the verdict (a long seeded run
/// that the caller reports in its own way, without shrinking).
pub fn run_seeded(
    seed: u64,
    rate: (u64, u64),
    mut scenario: impl FnMut(&mut Sim) -> Verdict,
) -> SeededRun {
    let mut sim = random_sim(seed, 0, rate);
    let verdict = run_once(&mut scenario, &mut sim);
    SeededRun {
        token: Token::of_run(sim.path()),
        faults: sim.fault_list(),
        verdict,
    }
}

fn fails(token: &Token, scenario: &mut dyn FnMut(&mut Sim) -> Verdict) -> bool {
    let mut sim = silent(token.path().to_vec(), usize::MAX);
    run_once(scenario, &mut sim).is_err() && !sim.diverged()
}

/// Shrinks a failing token: zero or delete each fault from left to right, then lower what
/// is left, keeping every candidate that still fails. Repeats until nothing changes. The
/// shrunk token names no sites; [`random`] reports the one its failure re-run makes.
pub fn shrink(token: &Token, scenario: &mut dyn FnMut(&mut Sim) -> Verdict) -> Token {
    let mut best = token.path().to_vec();
    loop {
        let mut changed = false;
        let mut i = 0;
        while i < best.len() {
            if best[i] > 0 {
                // Zero the fault; or delete the choice, so that the choices after it keep
                // their meaning when the run takes a shorter path.
                let mut zeroed = best.clone();
                zeroed[i] = 0;
                let mut deleted = best.clone();
                deleted.remove(i);
                let candidates = [Token::from_path(zeroed), Token::from_path(deleted)];
                if let Some(smaller) = candidates.into_iter().find(|t| fails(t, scenario)) {
                    best = smaller.path;
                    changed = true;
                    continue;
                }
                if best[i] > 1 {
                    let mut lowered = best.clone();
                    lowered[i] -= 1;
                    let lowered = Token::from_path(lowered);
                    if fails(&lowered, scenario) {
                        best = lowered.path;
                        changed = true;
                        continue;
                    }
                }
            }
            i += 1;
        }
        if !changed {
            return Token::from_path(best);
        }
    }
}
