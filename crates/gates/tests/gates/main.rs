//! The teacher's gates, one test binary: each module below is one gate (its own doc says
//! what it proves). One binary rather than one per gate, so that the gates share one
//! compile and one link of the helpers, and so that the test harness runs them side by
//! side: a gate waiting on a browser, a sandbox or a server leaves the cores to a gate
//! that builds. One gate alone: `cargo test -p gates --test gates consistency::`.

#[path = "../../../workbook/tests/common/mod.rs"]
mod common;
#[path = "../support/mod.rs"]
mod support;

mod book;
mod book_web;
mod browser;
mod class;
mod class_report;
mod classroom_workflow;
mod consistency;
mod export;
mod figures_fit;
mod mutants;
mod poll;
mod quality;
mod quoted_replays;
mod readability;
mod scaffold;
mod shipped_answers;
mod similarity;
mod steps;
