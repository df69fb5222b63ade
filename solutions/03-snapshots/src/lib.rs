//! Lab 03 reference solution: the learner's crate with `reserve.rs` solved. The observe
//! phase and the harness are the lab's own files, compiled here unchanged.

#[path = "../../../labs/03-snapshots/src/harness.rs"]
pub mod harness;
#[path = "../../../labs/03-snapshots/src/observe.rs"]
pub mod observe;
pub mod reserve;
