//! `Sim`: the handle through which simulated code makes every decision.
//!
//! One run of a scenario gets one fresh `Sim`. Every nondeterministic decision — crash or
//! continue, what happens to a call, which message is delivered next — goes through
//! [`Sim::choose`], which takes its answer from the driver (exhaustive, random or replay)
//! and appends it to the run's *choice path*. Option 0 is always "nothing unusual", so a
//! path of zeros is the fault-free run and a schedule's fault count is the number of
//! non-zero choices in its path.
use super::event::{Choice, Event, Glyph};
use super::fate::{Crash, Fate};
use super::rng::Rng;

pub(crate) enum Source {
    /// Follow `prefix`, then take option 0 (exhaustive exploration and replay).
    Path { prefix: Vec<usize> },
    /// Take a fault with probability `num/den` at each choice, uniformly among the faults.
    Random { rng: Rng, num: u64, den: u64 },
}

/// How many choices a run of a driver ([`explore`](super::explore),
/// [`random`](super::random), [`replay`](super::replay), …) may make before it is stopped
/// as a schedule that does not finish. The longest graded run of the workbook makes about
/// 1,100 (lab 10's chaos run); a loop that never ends reaches this in seconds, long before
/// a lab's time limit. A scenario that is longer by design raises it with
/// [`Sim::limit_choices`].
pub(crate) const DEFAULT_CHOICE_LIMIT: usize = 10_000;

/// What a driver's run unwinds with when it reaches its choice limit. The driver catches
/// it and reports the schedule as one that did not finish.
pub(crate) struct ChoiceLimitReached;

/// Where a replayed path first asked for a choice this code does not offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Divergence {
    /// The choice's position in the path.
    pub position: usize,
    pub site: &'static str,
    /// The option the path asked for, and how many this code offered there.
    pub asked: usize,
    pub offered: usize,
}

/// The fault core's handle for one run.
pub struct Sim {
    source: Source,
    budget: usize,
    healed: bool,
    path: Vec<Choice>,
    faults: usize,
    clock: u64,
    recording: bool,
    events: Vec<Event>,
    divergence: Option<Divergence>,
    choice_limit: usize,
    /// True when a driver runs this `Sim` and catches [`ChoiceLimitReached`].
    driven: bool,
    stopped_at_limit: bool,
}

impl Sim {
    pub(crate) fn new(source: Source, budget: usize, recording: bool) -> Self {
        Sim {
            source,
            budget,
            healed: false,
            path: Vec::new(),
            faults: 0,
            clock: 0,
            recording,
            events: Vec::new(),
            divergence: None,
            choice_limit: usize::MAX,
            driven: false,
            stopped_at_limit: false,
        }
    }

    /// A run of a driver: stopped after [`DEFAULT_CHOICE_LIMIT`] choices unless the
    /// scenario says otherwise.
    pub(crate) fn driven(source: Source, budget: usize, recording: bool) -> Self {
        Sim {
            choice_limit: DEFAULT_CHOICE_LIMIT,
            driven: true,
            ..Sim::new(source, budget, recording)
        }
    }

    /// A run with no faults at all: every choice takes option 0. Handy in examples and
    /// observe phases that describe a fault-free world.
    pub fn fault_free() -> Self {
        Sim::new(Source::Path { prefix: Vec::new() }, 0, false)
    }

    /// A run that follows `path` (the indices of a replay token) and records its timeline.
    pub fn replaying(path: &[usize]) -> Self {
        Sim::new(
            Source::Path {
                prefix: path.to_vec(),
            },
            usize::MAX,
            true,
        )
    }

    /// Sets how many choices this run may make (the default under a driver is 10,000,
    /// `DEFAULT_CHOICE_LIMIT`). A scenario whose nominal run is longer calls this first
    /// thing, so that exploration, random runs and replays of it all stop at the same
    /// choice; a run that reaches its limit ends as a schedule that did not finish.
    pub fn limit_choices(&mut self, limit: usize) {
        self.choice_limit = limit;
    }

    /// The number of choices this run may make.
    pub(crate) fn choice_limit(&self) -> usize {
        self.choice_limit
    }

    /// The one choice primitive. Option 0 must be "nothing unusual happens".
    pub fn choose(&mut self, site: &'static str, options: &[&'static str]) -> usize {
        assert!(!options.is_empty(), "choice {site} has no options");
        let position = self.path.len();
        if position >= self.choice_limit {
            self.stop_at_limit();
        }
        self.clock += 1;
        let open = !self.healed && self.faults < self.budget && options.len() > 1;
        let arity = if open { options.len() } else { 1 };
        let mut index = match &mut self.source {
            Source::Path { prefix } => prefix.get(position).copied().unwrap_or(0),
            Source::Random { rng, num, den } => {
                if open && rng.chance(*num, *den) {
                    1 + rng.below(options.len() as u64 - 1) as usize
                } else {
                    0
                }
            }
        };
        if index >= arity {
            // A token from another version of the code, or one that asks for more faults
            // than this run allows: take the normal path and say so in the report.
            if self.divergence.is_none() {
                self.divergence = Some(Divergence {
                    position,
                    site,
                    asked: index,
                    offered: arity,
                });
            }
            index = 0;
        }
        if index != 0 {
            self.faults += 1;
        }
        self.path.push(Choice {
            site,
            option: options[index],
            index,
            arity,
        });
        index
    }

    /// A named crash point. Returns `Err(Crash)` when the schedule crashes here; the caller
    /// propagates it with `?`. The actor in the timeline is the name's part before `:`.
    pub fn crash_point(&mut self, point: &'static str) -> Result<(), Crash> {
        if self.choose(point, &["continue", "crash"]) == 0 {
            return Ok(());
        }
        let actor = point.split(':').next().unwrap_or(point);
        self.event(actor, Glyph::Crash, || {
            (format!("crash at {point}"), "volatile state lost".into())
        });
        Err(Crash { point })
    }

    /// Decides the fate of one call among `allowed` (whose first entry must be
    /// [`Fate::Ok`]). Services call this; application code only sees the response.
    pub fn fate(&mut self, site: &'static str, allowed: &[Fate]) -> Fate {
        assert_eq!(
            allowed.first(),
            Some(&Fate::Ok),
            "{site}: option 0 must be Ok"
        );
        let labels: Vec<&'static str> = allowed.iter().map(|f| f.label()).collect();
        allowed[self.choose(site, &labels)]
    }

    /// From now on every choice is option 0: the faulty phase is over and the scenario
    /// checks that the system converges (the "heal" of a safety-then-liveness run).
    pub fn heal(&mut self) {
        self.healed = true;
    }

    /// True once [`Sim::heal`] was called: every later choice takes option 0.
    pub fn is_healed(&self) -> bool {
        self.healed
    }

    /// Records one timeline line. The closure runs only when the run is recording (replay
    /// and failure reports), so exploration does not pay for formatting.
    pub fn event(
        &mut self,
        actor: &'static str,
        glyph: Glyph,
        describe: impl FnOnce() -> (String, String),
    ) {
        if self.recording {
            let (client, truth) = describe();
            self.events.push(Event {
                tick: self.clock,
                actor,
                glyph,
                client,
                truth,
            });
        }
    }

    /// Records a line that has no hidden truth.
    pub fn note(&mut self, actor: &'static str, describe: impl FnOnce() -> String) {
        self.event(actor, Glyph::Normal, || (describe(), String::new()));
    }

    /// The logical clock: one tick per choice, plus explicit [`Sim::advance`]s. No wall
    /// clock is ever read.
    pub fn now(&self) -> u64 {
        self.clock
    }

    /// Moves the logical clock forward by `ticks`, for time that passes without a choice
    /// (a timeout, a backoff).
    pub fn advance(&mut self, ticks: u64) {
        self.clock += ticks;
    }

    /// How many faults this run has taken so far.
    pub fn faults(&self) -> usize {
        self.faults
    }

    /// Every choice this run has made so far, in order.
    pub fn path(&self) -> &[Choice] {
        &self.path
    }

    /// The timeline recorded so far (empty unless the run is recording).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// True when the run records its timeline (replays and failure reports), so code can
    /// skip work that only the timeline needs.
    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// True when a replayed token asked for a choice this code does not offer.
    pub(crate) fn diverged(&self) -> bool {
        self.divergence.is_some()
    }

    pub(crate) fn divergence(&self) -> Option<Divergence> {
        self.divergence
    }

    /// True when the run was stopped at its choice limit.
    pub(crate) fn stopped_at_limit(&self) -> bool {
        self.stopped_at_limit
    }

    /// Ends a run that reached its choice limit. Under a driver the run unwinds without a
    /// panic message (the driver reports it as a schedule that did not finish, with its
    /// timeline and token); a `Sim` used directly panics with the reason.
    fn stop_at_limit(&mut self) -> ! {
        self.stopped_at_limit = true;
        if self.driven {
            std::panic::resume_unwind(Box::new(ChoiceLimitReached));
        }
        panic!(
            "schedule did not finish after {} choices (Sim::limit_choices sets the limit)",
            self.choice_limit
        );
    }

    /// The faults this run took, as `site=option`.
    pub fn fault_list(&self) -> Vec<String> {
        self.path
            .iter()
            .filter(|c| c.index != 0)
            .map(|c| format!("{}={}", c.site, c.option))
            .collect()
    }
}
