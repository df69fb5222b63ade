//! Lab 02 — uncertain outcomes and retried callbacks.
//!
//! * `world`: what your code talks to: a simulated Spanner database, a payment
//!   processor outside it, and the application process's handle on both ([`world::App`]).
//! * `settlement`: **your part** — settle each intent exactly once, and reconcile every
//!   receipt. Grade it with `cargo labs check 02`.
//! * `scenarios`, `invariants`: the graded worlds that call your code, and what they check.
//! * `observe`: a naive settlement inside a read-write transaction callback, run on every
//!   schedule with one fault; run it with `cargo labs run 02`.
//! * `figures`: the chapter's figures.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod settlement;
pub mod world;
