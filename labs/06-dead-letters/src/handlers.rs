//! Lab 06's build phase, your two parts: `replay.rs` (the replay procedure) and
//! `reminders.rs` (exactly five reminders per overdue invoice). This file only names
//! them; each uses the lab's harness, `dead_letters`, for its world.

pub mod reminders;
pub mod replay;
