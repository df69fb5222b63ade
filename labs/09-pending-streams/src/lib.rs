//! Lab 09 — pending-stream commits.
//!
//! * `observe`: what the simulated Storage Write API does with pending streams: invisible
//!   rows, finalize, an atomic batch commit, stream errors, a lost commit response, the
//!   time limits. Complete; run it with `cargo labs run 09`.
//! * `harness`: the world the build phase is graded in (two workers' source ranges, the
//!   coordinator's journal, the simulated service, crash points). Complete.
//! * `coordinator`: **your part** — drive the workers' pending streams to one atomic
//!   commit, exactly once. Grade it with `cargo labs check 09`.

pub mod coordinator;
pub mod harness;
pub mod observe;
