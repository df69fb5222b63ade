//! The drivers: exhaustive exploration, seeded random runs with shrinking, replay from a
//! token, and the determinism self-check. All of them re-execute the scenario from
//! scratch for every schedule: a scenario builds its whole world (databases, services,
//! actors) inside the closure, so nothing survives from one schedule to the next.

use super::sim::{Choice, Event, Glyph, Sim, Source};
use super::timeline::{
    BOOK_WIDTH, MIN_WIDTH, output_width, render_timeline, render_timeline_width, wrap_indented,
};
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

/// A short digest of the choices along a path: each choice's site and the option it
/// took, FNV-1a hashed and folded to 20 bits, printed as five hex digits. A token carries
/// the digest of the choices it was made on, so a replay can tell whether the code still
/// offers the same choices along the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteDigest(u32);

impl SiteDigest {
    pub fn of(choices: &[Choice]) -> SiteDigest {
        let mut hash = Fnv64::new();
        for choice in choices {
            hash.write(choice.site.as_bytes());
            hash.write(&[0x1f]);
            hash.write(choice.option.as_bytes());
            hash.write(&[0x1e]);
        }
        let h = hash.finish();
        SiteDigest(((h ^ (h >> 20) ^ (h >> 40)) & 0xF_FFFF) as u32)
    }

    fn parse(text: &str) -> Option<SiteDigest> {
        if text.len() != 5 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(text, 16).ok().map(SiteDigest)
    }
}

impl fmt::Display for SiteDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:05x}", self.0)
    }
}

/// A replay token: the option taken at each choice of a schedule (trailing zeros, the
/// "nothing unusual" options after the last fault, dropped) and the [`SiteDigest`] of the
/// choices they were taken at.
///
/// Printed as `v2:0.0.1@3fa2c` (the fault-free schedule is `v2:`). Version 1 tokens
/// (`v1:0.0.1`) carried no digest; they still parse, as unverified tokens.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    path: Vec<usize>,
    /// `None` for a token that names no sites (a `v1:` token, or one built by hand).
    sites: Option<SiteDigest>,
}

impl Token {
    /// The schedule with no fault: option 0 at every choice. It is the same schedule in
    /// every version of the code, so it needs no digest.
    pub fn fault_free() -> Token {
        Token {
            path: Vec::new(),
            sites: None,
        }
    }

    /// A token for a path written by hand, which names no sites: replaying it cannot
    /// prove it is the schedule it was meant to be.
    pub fn unverified(path: Vec<usize>) -> Token {
        Token { path, sites: None }
    }

    /// The token of a run that took `choices`: its path up to the last fault, and the
    /// digest of the choices on it.
    pub fn of_run(choices: &[Choice]) -> Token {
        let length = choices
            .iter()
            .rposition(|c| c.index != 0)
            .map_or(0, |last| last + 1);
        let path = choices[..length].iter().map(|c| c.index).collect();
        Token {
            path,
            sites: (length > 0).then(|| SiteDigest::of(&choices[..length])),
        }
    }

    fn from_path(indices: impl IntoIterator<Item = usize>) -> Token {
        let mut path: Vec<usize> = indices.into_iter().collect();
        while path.last() == Some(&0) {
            path.pop();
        }
        Token::unverified(path)
    }

    /// The option index taken at each choice.
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    /// The digest of the choices the token was made on, when it names them.
    pub fn sites(&self) -> Option<SiteDigest> {
        self.sites
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
        let trimmed = text.trim();
        let path_of = |body: &str| -> Result<Vec<usize>, String> {
            if body.is_empty() {
                return Ok(Vec::new());
            }
            body.split('.')
                .map(|part| {
                    part.parse::<usize>()
                        .map_err(|_| format!("`{part}` in token `{text}` is not a choice index"))
                })
                .collect()
        };
        if let Some(body) = trimmed.strip_prefix("v2:") {
            if body.is_empty() {
                return Ok(Token::fault_free());
            }
            let (path, sites) = body.split_once('@').ok_or_else(|| {
                format!(
                    "a `v2:` token ends with `@` and the five hex digits of its choice sites, got `{text}`"
                )
            })?;
            let sites = SiteDigest::parse(sites)
                .ok_or_else(|| format!("`{sites}` in token `{text}` is not five hex digits"))?;
            return Ok(Token {
                path: path_of(path)?,
                sites: Some(sites),
            });
        }
        if let Some(body) = trimmed.strip_prefix("v1:") {
            return Ok(Token::unverified(path_of(body)?));
        }
        Err(format!(
            "a replay token starts with `v2:` (or the older `v1:`), got `{text}`"
        ))
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.path.iter().map(|i| i.to_string()).collect();
        match self.sites {
            _ if self.path.is_empty() => f.write_str("v2:"),
            Some(sites) => write!(f, "v2:{}@{sites}", parts.join(".")),
            None => write!(f, "v1:{}", parts.join(".")),
        }
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
    /// The report within [`BOOK_WIDTH`] columns, or within the formatter's width
    /// (`format!("{failure:120}")`): the timeline stacks what does not fit, and the
    /// explanation wraps. The replay command stays on one line, to be copied whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = f.width().unwrap_or(BOOK_WIDTH).max(MIN_WIDTH);
        let header = format!(
            "invariant violated: {} (lab {}, scenario {}, {} fault{})",
            self.violation.invariant,
            self.scope.lab,
            self.scope.scenario,
            self.faults.len(),
            if self.faults.len() == 1 { "" } else { "s" }
        );
        f.write_str(&wrap_indented(&header, width, "", "  "))?;
        if !self.faults.is_empty() {
            let faults = self.faults.join(", ");
            f.write_str(&wrap_indented(&faults, width, "faults: ", "        "))?;
        }
        writeln!(f)?;
        f.write_str(&render_timeline_width(&self.events, width))?;
        writeln!(f)?;
        for line in &self.violation.explanation {
            f.write_str(&wrap_indented(line, width, "  ", "    "))?;
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
    /// Panics with the failure's full report, as wide as [`output_width`] says; the
    /// graded suites call this.
    pub fn assert_ok(&self) {
        if let Some(failure) = &self.failure {
            panic!("\n{failure:width$}\n", width = output_width());
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

fn failure(
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
fn silent(prefix: Vec<usize>, budget: usize) -> Sim {
    Sim::driven(Source::Path { prefix }, budget, false)
}

/// A driver's run along `token`'s path with its timeline recorded.
fn recording(token: &Token) -> Sim {
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

/// Whether a replayed token fits the code it was replayed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The code offered the same choices along the token's path as the code it was made
    /// on (or the token is the fault-free one, the same schedule in every version).
    Verified,
    /// The token names no sites (a `v1:` token, or one built by hand): the code offered
    /// every option it asks for, but nothing proves they are the choices it was made on.
    Unverified,
    /// The token does not fit this code, for the reason given: it was made on another
    /// version of the scenario or of the code under test, and names another schedule
    /// here.
    Stale(String),
}

/// The result of replaying one token.
#[derive(Clone, Debug)]
pub struct Replay {
    pub verdict: Verdict,
    pub events: Vec<Event>,
    pub faults: Vec<String>,
    /// Whether the token fits this code.
    pub fit: Fit,
    /// The token of the schedule this code ran (with this code's site digest).
    pub ran: Token,
}

impl Replay {
    /// The timeline within [`BOOK_WIDTH`] columns.
    pub fn timeline(&self) -> String {
        render_timeline(&self.events)
    }

    /// The timeline within `width` columns.
    pub fn timeline_width(&self, width: usize) -> String {
        render_timeline_width(&self.events, width)
    }

    /// True when the token does not fit the code it was replayed on.
    pub fn is_stale(&self) -> bool {
        matches!(self.fit, Fit::Stale(_))
    }

    /// A hash of everything the replay printed and concluded.
    pub fn fingerprint(&self) -> u64 {
        let mut hash = Fnv64::new();
        hash.write(self.timeline().as_bytes());
        hash.write(format!("{:?}", self.verdict).as_bytes());
        hash.finish()
    }
}

/// Whether `token` fits the run `sim` made along it.
fn fit(token: &Token, sim: &Sim) -> Fit {
    if let Some(d) = sim.divergence() {
        return Fit::Stale(format!(
            "its choice {} asks for option {} at `{}`, where this code offers {}",
            d.position + 1,
            d.asked,
            d.site,
            if d.offered == 1 {
                "no other option".to_string()
            } else {
                format!("options 0 to {}", d.offered - 1)
            }
        ));
    }
    let length = token.path().len();
    if length == 0 {
        return Fit::Verified;
    }
    let ran = sim.path();
    if ran.len() < length {
        return Fit::Stale(format!(
            "it names {length} choices, and this code's run makes only {}",
            ran.len()
        ));
    }
    match token.sites() {
        None => Fit::Unverified,
        Some(made_on) => {
            let here = SiteDigest::of(&ran[..length]);
            if here == made_on {
                Fit::Verified
            } else {
                Fit::Stale(format!(
                    "it was made on choices with digest {made_on}, and this code's choices along the same path have digest {here}"
                ))
            }
        }
    }
}

/// Replays one token with the timeline recorded, and says whether the token fits the code.
pub fn replay(token: &Token, mut scenario: impl FnMut(&mut Sim) -> Verdict) -> Replay {
    let mut sim = recording(token);
    let verdict = run_once(&mut scenario, &mut sim);
    Replay {
        verdict,
        events: sim.events().to_vec(),
        faults: sim.fault_list(),
        fit: fit(token, &sim),
        ran: Token::of_run(sim.path()),
    }
}

/// The determinism self-check: replays each token twice and compares the fingerprints of
/// what was printed. Also checks that recording a timeline does not change the path.
///
/// A token need not fit the code: the learner's code may offer other choices than the
/// code a suite's sample was made on, and a token names some schedule of it all the same,
/// which is what is replayed twice.
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
        let mut quiet = silent(token.path().to_vec(), usize::MAX);
        let verdict = run_once(&mut scenario, &mut quiet);
        if verdict.is_ok() != first.verdict.is_ok() || quiet.fault_list() != first.faults {
            return Err(format!(
                "schedule {token} behaves differently when its timeline is recorded"
            ));
        }
    }
    Ok(tokens.len())
}
