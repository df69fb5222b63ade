//! The CLI's own tests, one test binary (one link instead of six; a test that waits on a
//! sleeping lab leaves the cores to one that builds). Each module is one concern:
//!
//! * `commands`: bad input gets a clear message, a non-zero exit, and nothing lost;
//! * `edition`: the gate that holds in both editions, before and after a learner solves
//!   labs (metadata, keys, published files, includes, generated pages);
//! * `grading`: grading as a learner's `cargo labs grade` does it, in tiny labs;
//! * `progress_kill`: the progress store under a real kill;
//! * `signals`: interrupting or killing the CLI ends everything it started (Linux);
//! * `watch`: `cargo labs watch` driven through a pipe (Unix).
//!
//! One module alone: `cargo test -p workbook --test cli watch::`.

#[path = "../common/mod.rs"]
mod common;

mod commands;
mod edition;
mod grading;
mod progress_kill;
mod signals;
mod watch;
