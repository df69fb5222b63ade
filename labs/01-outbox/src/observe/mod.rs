//! The observe phase: the seed's SQLite lab, ported check for check in four sections,
//! each followed by variations of it that the chapter does not walk through.
//!
//! An in-memory SQLite database holds orders and an outbox; a `BTreeMap` plays a
//! fictional external receiver. Nothing here talks to a network, a payment processor or a
//! vendor service: it demonstrates local atomicity and identity recognition, one step at
//! a time, with no concurrency. Every verdict and answer is computed from what the code
//! just did; nothing here holds an answer: `cargo labs run` compares what the run
//! observed with your sealed predictions.

mod enqueue;
mod lab;
mod lost_response;
mod new_identity;
mod relay_variations;
mod unsafe_attempt;
mod variants;

pub use lab::{FictionalReceiver, LabError, OutboxLab};

use labkit::{Observation, Report};

/// Runs the scenario and reports every answer it observed.
pub fn run() -> Report {
    scenario().unwrap_or_else(|e| panic!("the observe scenario itself failed: {e:?}"))
}

fn scenario() -> lab::Result<Report> {
    let mut lab = OutboxLab::new()?;
    let mut obs = Observation::new("outbox");
    unsafe_attempt::observe(&mut lab, &mut obs)?;
    enqueue::observe(&mut lab, &mut obs)?;
    lost_response::observe(&mut lab, &mut obs)?;
    new_identity::observe(&mut lab, &mut obs)?;
    // The seed's closing summary, in its form: what ran, and the scope.
    let sqlite = rusqlite::version().to_string();
    let summary = serde_json::json!({
        "rust": "rusqlite",
        "sqlite": sqlite,
        "database": ":memory:",
        "network": false,
        "vendorExecution": false,
        "scope": "Sequential SQLite atomic writes and synthetic receiver identity checks; \
                  no concurrency, actual transport, Spanner isolation or durable external \
                  idempotency tested.",
    });
    Ok(obs.finish(Some(sqlite), summary))
}
