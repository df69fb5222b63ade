//! Lab 07 reference solution: the learner's crate with `publication.rs` solved. The
//! observe phase, the world, the scenarios, the invariants and the figures are the lab's
//! own files, compiled here unchanged.

#[path = "../../../labs/07-file-sets/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/07-file-sets/src/invariants/mod.rs"]
pub mod invariants;
#[path = "../../../labs/07-file-sets/src/observe/mod.rs"]
pub mod observe;
pub mod publication;
#[path = "../../../labs/07-file-sets/src/scenarios/mod.rs"]
pub mod scenarios;
#[path = "../../../labs/07-file-sets/src/world/mod.rs"]
pub mod world;
