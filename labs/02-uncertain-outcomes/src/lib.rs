//! Lab 02 — uncertain outcomes and retried callbacks.
//!
//! * `observe`: a naive settlement inside a Spanner read-write transaction callback,
//!   run on every schedule with one fault; the checks, the crash matrix and the questions
//!   are computed from those runs. Complete; run it with `cargo labs run 02`.
//! * `harness`: the world the build phase is graded in (a simulated Spanner database, a
//!   payment processor outside it, crash points). Complete.
//! * `settlement`: **your part** — settle each intent exactly once, and reconcile every
//!   receipt. Grade it with `cargo labs check 02`.

pub mod harness;
pub mod observe;
pub mod settlement;
