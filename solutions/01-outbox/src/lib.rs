//! Lab 01 reference solution: the learner's crate with `relay.rs` solved. The lab's other
//! modules are its own files, compiled here unchanged.

#[path = "../../../labs/01-outbox/src/figures.rs"]
pub mod figures;
#[path = "../../../labs/01-outbox/src/invariants.rs"]
pub mod invariants;
#[path = "../../../labs/01-outbox/src/observe/mod.rs"]
pub mod observe;
pub mod relay;
#[path = "../../../labs/01-outbox/src/scenarios.rs"]
pub mod scenarios;
#[path = "../../../labs/01-outbox/src/world/mod.rs"]
pub mod world;
