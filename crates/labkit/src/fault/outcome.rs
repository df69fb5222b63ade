//! What the drivers conclude: a broken invariant ([`Violation`]) and a schedule's
//! [`Verdict`], where a scenario lives ([`Scope`]), one explored schedule ([`Run`]), a
//! failing one ready to print ([`Failure`]) and an exhaustive exploration's result
//! ([`Exploration`]).

use super::event::Event;
use super::timeline::{BOOK_WIDTH, MIN_WIDTH, output_width, render_timeline_width, wrap_indented};
use super::token::Token;
use std::fmt;

/// An invariant that a schedule broke, with a short "Let … then … contradiction"
/// explanation written by the lab's checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's name, as the failure report's header prints it.
    pub invariant: String,
    /// The explanation, one line per step of the argument.
    pub explanation: Vec<String>,
}

impl Violation {
    /// A violation of `invariant`, explained by `explanation`'s lines.
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

/// One explored schedule.
#[derive(Clone, Debug)]
pub struct Run {
    /// The token that replays this schedule.
    pub token: Token,
    /// The faults taken, as `site=option`, in order.
    pub faults: Vec<String>,
    /// Whether the schedule kept every invariant.
    pub verdict: Verdict,
}

/// A failing schedule, ready to print: timeline, explanation, replay command.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The lab and scenario, for the replay command.
    pub scope: Scope,
    /// The token that replays this schedule.
    pub token: Token,
    /// The faults taken, as `site=option`, in order.
    pub faults: Vec<String>,
    /// The invariant the schedule broke, and why.
    pub violation: Violation,
    /// The schedule's timeline, recorded by replaying it.
    pub events: Vec<Event>,
}

impl fmt::Display for Failure {
    /// The report within [`BOOK_WIDTH`] columns, or within the formatter's width
    /// (`format!("{failure:120}")`): the timeline stacks what does not fit, and the
    /// explanation wraps. The replay command stays on one line, to be copied whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = f.width().unwrap_or(BOOK_WIDTH).max(MIN_WIDTH);
        let header = format!(
            "invariant violated: {} (lab {}, scenario {}, {} explored fault{})",
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
    /// The lab and scenario that were explored.
    pub scope: Scope,
    /// Schedules run, each counted once (at the level of its own fault count).
    pub schedules: u64,
    /// `per_level[k]` = schedules with exactly k faults.
    pub per_level: Vec<u64>,
    /// The first failure, which has the fewest faults of all failures.
    pub failure: Option<Failure>,
    /// Every schedule and its verdict (only from [`explore_all`](super::explore_all)).
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
