//! The drivers: exhaustive exploration, seeded random runs with shrinking, replay from a
//! token, and the determinism self-check. All of them re-execute the scenario from
//! scratch for every schedule: a scenario builds its whole world (databases, services,
//! actors) inside the closure, so nothing survives from one schedule to the next.

use super::sim::{Event, Sim, Source};
use crate::hash::Fnv64;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// An invariant that a schedule broke, with a short "Let … then … contradiction"
/// explanation written by the lab's checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: String,
    pub explanation: Vec<String>,
}

impl Violation {
    pub fn new(invariant: impl Into<String>, explanation: &[String]) -> Self {
        Violation {
            invariant: invariant.into(),
            explanation: explanation.to_vec(),
        }
    }
}

/// What one schedule concluded.
pub type Verdict = Result<(), Violation>;

/// Where a scenario lives, so a failure can print the command that replays it.
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    /// The lab's number as the CLI takes it, e.g. "01".
    pub lab: &'static str,
    /// The scenario's name as the lab binary's `replay` command takes it.
    pub scenario: &'static str,
    /// The largest number of faults in one schedule.
    pub max_faults: usize,
}

/// A replay token: `v1:` followed by the choice indices, trailing zeros dropped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token(pub Vec<usize>);

impl Token {
    fn from_path(indices: impl IntoIterator<Item = usize>) -> Token {
        let mut path: Vec<usize> = indices.into_iter().collect();
        while path.last() == Some(&0) {
            path.pop();
        }
        Token(path)
    }

    /// Parses a list of token literals (a graded suite's determinism sample); a malformed
    /// literal is a bug in the suite, so it panics with the parse error.
    pub fn parse_all(texts: &[&str]) -> Vec<Token> {
        texts
            .iter()
            .map(|t| Token::parse(t).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    pub fn parse(text: &str) -> Result<Token, String> {
        let body = text
            .trim()
            .strip_prefix("v1:")
            .ok_or_else(|| format!("a replay token starts with `v1:`, got `{text}`"))?;
        if body.is_empty() {
            return Ok(Token(Vec::new()));
        }
        body.split('.')
            .map(|part| {
                part.parse::<usize>()
                    .map_err(|_| format!("`{part}` in token `{text}` is not a choice index"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Token)
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|i| i.to_string()).collect();
        write!(f, "v1:{}", parts.join("."))
    }
}

/// One explored schedule.
#[derive(Clone, Debug)]
pub struct Run {
    pub token: Token,
    /// The faults taken, as `site=option`, in order.
    pub faults: Vec<String>,
    pub verdict: Verdict,
}

/// A failing schedule, ready to print: timeline, explanation, replay command.
#[derive(Clone, Debug)]
pub struct Failure {
    pub scope: Scope,
    pub token: Token,
    pub faults: Vec<String>,
    pub violation: Violation,
    pub events: Vec<Event>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "invariant violated: {} (lab {}, scenario {}, {} fault{})",
            self.violation.invariant,
            self.scope.lab,
            self.scope.scenario,
            self.faults.len(),
            if self.faults.len() == 1 { "" } else { "s" }
        )?;
        if !self.faults.is_empty() {
            writeln!(f, "faults: {}", self.faults.join(", "))?;
        }
        writeln!(f)?;
        f.write_str(&render_timeline(&self.events))?;
        writeln!(f)?;
        for line in &self.violation.explanation {
            writeln!(f, "  {line}")?;
        }
        writeln!(f)?;
        write!(
            f,
            "replay: cargo labs replay {} {} {}",
            self.scope.lab, self.scope.scenario, self.token
        )
    }
}

/// The result of an exhaustive exploration.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub scope: Scope,
    /// Schedules run, each counted once (at the level of its own fault count).
    pub schedules: u64,
    /// `per_level[k]` = schedules with exactly k faults.
    pub per_level: Vec<u64>,
    /// The first failure, which has the fewest faults of all failures.
    pub failure: Option<Failure>,
    /// Every schedule and its verdict (only from [`explore_all`]).
    pub runs: Vec<Run>,
}

impl Exploration {
    /// Panics with the failure's full report; the graded suites call this.
    pub fn assert_ok(&self) {
        if let Some(failure) = &self.failure {
            panic!("\n{failure}\n");
        }
    }

    /// [`Exploration::assert_ok`], and proves the exploration reached schedules with
    /// `faults` faults (a scope whose code never offers that many choices proves little).
    pub fn assert_ok_reaching(&self, faults: usize) {
        self.assert_ok();
        assert!(
            self.per_level.get(faults).is_some_and(|&n| n > 0),
            "no schedule with {faults} faults was explored (per fault count: {:?})",
            self.per_level
        );
    }
}

fn run_once(scenario: &mut dyn FnMut(&mut Sim) -> Verdict, sim: &mut Sim) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| scenario(sim))) {
        Ok(verdict) => verdict,
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

fn failure(
    scope: Scope,
    token: Token,
    scenario: &mut dyn FnMut(&mut Sim) -> Verdict,
    fallback: Violation,
) -> Failure {
    // Re-run loudly: the same path, now recording the timeline.
    let mut sim = Sim::replaying(&token.0);
    let violation = run_once(scenario, &mut sim).err().unwrap_or(fallback);
    Failure {
        scope,
        token,
        faults: sim.fault_list(),
        violation,
        events: sim.events().to_vec(),
    }
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
            let mut sim = Sim::new(
                Source::Path {
                    prefix: prefix.clone(),
                },
                budget,
                false,
            );
            let verdict = run_once(scenario, &mut sim);
            let path = sim.path().to_vec();
            if sim.faults() == budget {
                result.schedules += 1;
                result.per_level[budget] += 1;
                let token = Token::from_path(path.iter().map(|c| c.index));
                if let Err(violation) = &verdict
                    && result.failure.is_none()
                {
                    result.failure =
                        Some(failure(scope, token.clone(), scenario, violation.clone()));
                    if !collect {
                        return result;
                    }
                }
                if collect {
                    result.runs.push(Run {
                        token,
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

/// The result of seeded random runs.
#[derive(Clone, Debug)]
pub struct RandomReport {
    pub seed: u64,
    pub runs: u64,
    /// The first failing run, shrunk.
    pub failure: Option<Failure>,
    /// The unshrunk token of that run.
    pub original: Option<Token>,
}

/// `runs` random schedules from `seed`: run `i` uses the generator seeded with
/// `seed + i`, and at each open choice takes a fault with probability `num/den`. A
/// failure is shrunk before it is reported.
pub fn random(
    scope: Scope,
    seed: u64,
    runs: u64,
    (num, den): (u64, u64),
    mut scenario: impl FnMut(&mut Sim) -> Verdict,
) -> RandomReport {
    for i in 0..runs {
        let rng = super::rng::Rng::new(seed.wrapping_add(i));
        let mut sim = Sim::new(Source::Random { rng, num, den }, usize::MAX, false);
        if let Err(violation) = run_once(&mut scenario, &mut sim) {
            let original = Token::from_path(sim.path().iter().map(|c| c.index));
            let shrunk = shrink(&original, &mut scenario);
            return RandomReport {
                seed,
                runs: i + 1,
                failure: Some(failure(scope, shrunk, &mut scenario, violation)),
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

fn fails(token: &Token, scenario: &mut dyn FnMut(&mut Sim) -> Verdict) -> bool {
    let mut sim = Sim::new(
        Source::Path {
            prefix: token.0.clone(),
        },
        usize::MAX,
        false,
    );
    run_once(scenario, &mut sim).is_err() && !sim.diverged()
}

/// Shrinks a failing token: zero or delete each fault from left to right, then lower what
/// is left,
/// keeping every candidate that still fails. Repeats until nothing changes.
pub fn shrink(token: &Token, scenario: &mut dyn FnMut(&mut Sim) -> Verdict) -> Token {
    let mut best = token.clone();
    loop {
        let mut changed = false;
        let mut i = 0;
        while i < best.0.len() {
            if best.0[i] > 0 {
                // Zero the fault; or delete the choice, so that the choices after it keep
                // their meaning when the run takes a shorter path.
                let mut zeroed = best.0.clone();
                zeroed[i] = 0;
                let mut deleted = best.0.clone();
                deleted.remove(i);
                let candidates = [Token::from_path(zeroed), Token::from_path(deleted)];
                if let Some(smaller) = candidates.into_iter().find(|t| fails(t, scenario)) {
                    best = smaller;
                    changed = true;
                    continue;
                }
                if best.0[i] > 1 {
                    let mut lowered = best.0.clone();
                    lowered[i] -= 1;
                    let lowered = Token::from_path(lowered);
                    if fails(&lowered, scenario) {
                        best = lowered;
                        changed = true;
                        continue;
                    }
                }
            }
            i += 1;
        }
        if !changed {
            return best;
        }
    }
}

/// The result of replaying one token.
#[derive(Clone, Debug)]
pub struct Replay {
    pub verdict: Verdict,
    pub events: Vec<Event>,
    pub faults: Vec<String>,
    /// The token asked for choices this code does not offer (a stale token).
    pub diverged: bool,
}

impl Replay {
    pub fn timeline(&self) -> String {
        render_timeline(&self.events)
    }

    /// A hash of everything the replay printed and concluded.
    pub fn fingerprint(&self) -> u64 {
        let mut hash = Fnv64::new();
        hash.write(self.timeline().as_bytes());
        hash.write(format!("{:?}", self.verdict).as_bytes());
        hash.finish()
    }
}

/// Replays one token with the timeline recorded.
pub fn replay(token: &Token, mut scenario: impl FnMut(&mut Sim) -> Verdict) -> Replay {
    let mut sim = Sim::replaying(&token.0);
    let verdict = run_once(&mut scenario, &mut sim);
    Replay {
        verdict,
        events: sim.events().to_vec(),
        faults: sim.fault_list(),
        diverged: sim.diverged(),
    }
}

/// The determinism self-check: replays each token twice and compares the fingerprints of
/// what was printed. Also checks that recording a timeline does not change the path.
pub fn check_determinism(
    tokens: &[Token],
    mut scenario: impl FnMut(&mut Sim) -> Verdict,
) -> Result<usize, String> {
    for token in tokens {
        let first = replay(token, &mut scenario);
        let second = replay(token, &mut scenario);
        if first.fingerprint() != second.fingerprint() {
            return Err(format!(
                "schedule {token} printed two different timelines:\n{}\n---\n{}",
                first.timeline(),
                second.timeline()
            ));
        }
        let mut silent = Sim::new(
            Source::Path {
                prefix: token.0.clone(),
            },
            usize::MAX,
            false,
        );
        let verdict = run_once(&mut scenario, &mut silent);
        if verdict.is_ok() != first.verdict.is_ok() || silent.fault_list() != first.faults {
            return Err(format!(
                "schedule {token} behaves differently when its timeline is recorded"
            ));
        }
    }
    Ok(tokens.len())
}

/// Formats events one per line: tick, actor, glyph, what the client saw, the truth.
pub fn render_timeline(events: &[Event]) -> String {
    let actor_width = events
        .iter()
        .map(|e| e.actor.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let client_width = events
        .iter()
        .map(|e| e.client.chars().count())
        .max()
        .unwrap_or(10)
        .clamp(10, 60);
    let mut out = format!(
        "{:>5}  {:<actor_width$}   {:<client_width$}  {}\n",
        "tick", "actor", "client saw", "truth"
    );
    for e in events {
        let line = format!(
            "{:>5}  {:<actor_width$} {} {:<client_width$}  {}",
            e.tick,
            e.actor,
            e.glyph.symbol(),
            e.client,
            e.truth
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
