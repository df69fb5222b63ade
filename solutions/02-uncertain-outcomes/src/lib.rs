//! Lab 02 reference solution: the learner's crate with `settlement.rs` solved. The observe
//! phase and the harness are the lab's own files, compiled here unchanged.

#[path = "../../../labs/02-uncertain-outcomes/src/harness.rs"]
pub mod harness;
#[path = "../../../labs/02-uncertain-outcomes/src/observe.rs"]
pub mod observe;
pub mod settlement;
