//! The deterministic fault core.
//!
//! * [`Rng`]: SplitMix64, constants written down so seeds stay valid forever.
//! * [`Sim`]: one run's handle; [`Sim::choose`] is the only source of nondeterminism,
//!   [`Sim::crash_point`] and [`Sim::fate`] are thin wrappers over it, and the logical
//!   clock ticks once per choice.
//! * [`explore`], [`explore_all`], [`random`], [`replay`], [`shrink`] and
//!   [`check_determinism`]: the drivers.
//!
//! Rules for simulated code: no wall clock, no threads, no iteration over `HashMap`; every
//! decision goes through the `Sim`; a scenario builds its whole world inside the closure.

mod explore;
mod matrix;
mod rng;
mod sim;
mod timers;

pub use explore::{
    Exploration, Failure, RandomReport, Replay, Run, Scope, Token, Verdict, Violation,
    check_determinism, explore, explore_all, random, render_timeline, replay, shrink,
};
pub use matrix::{CrashMatrix, MatrixRow};
pub use rng::{Rng, parse_seed, seed_hex};
pub use sim::{Choice, Crash, Event, Fate, Glyph, Sim};
pub use timers::Timers;

#[cfg(test)]
mod tests;
