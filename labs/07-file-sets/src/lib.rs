//! Lab 07 — versioned file sets.
//!
//! * `observe`: generations and preconditions, unpinned ranged reads, a consumer that
//!   mixes two runs, a stale public cache, IAM on replacement. Complete; run it with
//!   `cargo labs run 07`.
//! * `harness`: the world the build phase is graded in (a simulated Cloud Storage
//!   origin, a publisher that crashes after its writes, a consumer and an analyst that
//!   can run between any two requests). Complete.
//! * `publication`: **your part** — the IAM bindings, the publisher, `abandon` and the
//!   consumer. Grade it with `cargo labs check 07`.

pub mod harness;
pub mod observe;
pub mod publication;
