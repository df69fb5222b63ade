//! What a lab, its solution, its graded suite and a simulator import from the kit, in one
//! line: `use labkit::prelude::*;`.
//!
//! It holds the items the existing labs name most: the observation and its report, the
//! lab binary's command line, the fault core's handle, outcomes and tokens, and the two
//! figures. The drivers stay behind `fault::` (`fault::explore_all`, `fault::replay`), so
//! a scenario reads as the fault core's. Existing labs keep their own imports: their
//! files are hashed in `lab.toml`, and the prelude is for new code.

pub use crate::fault::{
    self, Crash, CrashMatrix, Exploration, Failure, Fate, Glyph, Replay, Rng, Scope, Sim, Timers,
    Token, Verdict, Violation,
};
pub use crate::figure::{BarChart, Sequence};
pub use crate::{LabBinary, Observation, ReplayFn, Report, lab_main};
