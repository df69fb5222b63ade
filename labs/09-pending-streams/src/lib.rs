//! Lab 09 — pending-stream commits.
//!
//! * `observe`: what the simulated Storage Write API does with pending streams: invisible
//!   rows, finalize, an atomic batch commit, stream errors, unanswered commits, the time
//!   limits. Complete; run it with `cargo labs run 09`.
//! * `world`: what the coordinator talks to (the batch, the service, `coordinator.db`).
//! * `coordinator`: **your part** — drive the workers' pending streams to one atomic
//!   commit, exactly once. Grade it with `cargo labs check 09`.
//! * `scenarios`, `invariants`: the graded runs of your coordinator and what must hold
//!   after each; `figures`: the chapter's figures. Complete.

pub mod coordinator;
pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;
