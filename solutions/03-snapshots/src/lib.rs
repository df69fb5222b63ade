//! Lab 03 reference solution: the learner's crate with `reserve.rs` solved. Every other
//! module is the lab's own file, compiled here unchanged.

#[path = "../../../labs/03-snapshots/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/03-snapshots/src/invariants.rs"]
pub mod invariants;
#[path = "../../../labs/03-snapshots/src/observe/mod.rs"]
pub mod observe;
pub mod reserve;
#[path = "../../../labs/03-snapshots/src/scenarios.rs"]
pub mod scenarios;
#[path = "../../../labs/03-snapshots/src/world.rs"]
pub mod world;
