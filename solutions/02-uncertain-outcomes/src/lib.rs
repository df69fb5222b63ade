//! Lab 02 reference solution: the learner's crate with `settlement.rs` solved. Every other
//! module is the lab's own file, compiled here unchanged.

#[path = "../../../labs/02-uncertain-outcomes/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/02-uncertain-outcomes/src/invariants/mod.rs"]
pub mod invariants;
#[path = "../../../labs/02-uncertain-outcomes/src/observe/mod.rs"]
pub mod observe;
#[path = "../../../labs/02-uncertain-outcomes/src/scenarios/mod.rs"]
pub mod scenarios;
pub mod settlement;
#[path = "../../../labs/02-uncertain-outcomes/src/world.rs"]
pub mod world;
