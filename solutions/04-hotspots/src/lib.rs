//! Lab 04 reference solution: the learner's crate with `keys.rs` solved. The lab's other
//! modules are its own files, compiled here unchanged.

#[path = "../../../labs/04-hotspots/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/04-hotspots/src/invariants.rs"]
pub mod invariants;
pub mod keys;
#[path = "../../../labs/04-hotspots/src/observe/mod.rs"]
pub mod observe;
#[path = "../../../labs/04-hotspots/src/scenarios.rs"]
pub mod scenarios;
#[path = "../../../labs/04-hotspots/src/world.rs"]
pub mod world;
