//! The lab kit: what every lab uses to report what it observed, and the deterministic
//! fault core its build phase is graded with.
//!
//! * [`Observation`] collects a lab run's observed answers: yes or no to each question
//!   about the run (its *checks*), a letter to each multiple-choice *question*, each
//!   recorded under the question's own text; [`Report`] is the JSON the `cargo labs` CLI
//!   reads.
//! * [`fault`] is the fault core: one seeded generator, one choice primitive, crash points,
//!   uncertain calls and the exploration drivers.
//! * [`figure`] draws the book's sequence diagrams and charts as SVG, each sized to its
//!   text as [`font`] measures it.
//! * [`lab_main`] is the command line every lab binary shares.
//! * [`prelude`] re-exports what labs, solutions, graded suites and simulators use most.

#![warn(missing_docs)]

mod cli;
pub mod fault;
pub mod figure;
pub mod font;
pub mod hash;
pub mod prelude;
mod report;

pub use cli::{LabBinary, ReplayFn, STALE_TOKEN_EXIT, lab_main};
pub use report::{Observation, ObservedAnswer, ObservedCheck, Report};
