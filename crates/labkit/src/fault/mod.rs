//! The deterministic fault core.
//!
//! * [`Rng`]: SplitMix64, constants written down so seeds stay valid forever.
//! * [`Sim`]: one run's handle; [`Sim::choose`] is the only source of nondeterminism,
//!   [`Sim::crash_point`] and [`Sim::fate`] are thin wrappers over it, and the logical
//!   clock ticks once per choice.
//! * [`explore`], [`explore_all`], [`random`], [`run_seeded`], [`replay`], [`shrink`] and
//!   [`check_determinism`]: the drivers. Each run of a driver may make at most
//!   10,000 choices ([`Sim::limit_choices`] changes it); one that does
//!   not finish by then is reported like any other failing schedule.
//! * [`Token`]: a schedule's replay token, with the digest of the choice sites it was made
//!   on, so that a replay refuses a token the code no longer fits.
//! * [`render_timeline`]: timelines (and [`Failure`] reports) that fit a width.
//!
//! Rules for simulated code: no wall clock, no threads, no iteration over `HashMap`; every
//! decision goes through the `Sim`; a scenario builds its whole world inside the closure.

mod event;
mod explore;
mod fate;
mod matrix;
mod outcome;
mod random;
mod replay;
mod rng;
mod sim;
mod timeline;
mod timers;
mod token;

pub use event::{Choice, Event, Glyph};
pub use explore::{explore, explore_all};
pub use fate::{Crash, Fate};
pub use matrix::{CrashMatrix, MatrixRow};
pub use outcome::{Exploration, Failure, Run, Scope, Verdict, Violation};
pub use random::{RandomReport, SeededRun, random, run_seeded, shrink};
pub use replay::{Fit, Replay, check_determinism, replay};
pub use rng::{Rng, parse_seed, seed_hex};
#[cfg(test)]
use sim::DEFAULT_CHOICE_LIMIT;
pub use sim::Sim;
#[cfg(test)]
use timeline::render_timeline_width;
pub use timeline::{BOOK_WIDTH, output_width, render_timeline, wrap, wrap_indented};
pub use timers::Timers;
pub use token::{SiteDigest, Token};

#[cfg(test)]
mod tests;
