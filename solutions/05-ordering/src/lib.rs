//! Lab 05 reference solution: the learner's crate with `consumer.rs` solved. Every other
//! module is the lab's own file, compiled here unchanged.

pub mod consumer;
#[path = "../../../labs/05-ordering/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/05-ordering/src/invariants.rs"]
pub mod invariants;
#[path = "../../../labs/05-ordering/src/observe/mod.rs"]
pub mod observe;
#[path = "../../../labs/05-ordering/src/scenarios.rs"]
pub mod scenarios;
#[path = "../../../labs/05-ordering/src/world.rs"]
pub mod world;
