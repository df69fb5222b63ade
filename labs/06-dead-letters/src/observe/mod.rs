//! The observe phase: dead letters, retention, seek, and five reminders counted by
//! delivery attempts.
//!
//! Each experiment runs against the simulated broker; where the broker has a choice (how
//! many attempts before forwarding, which state a pull after a seek sees), the lab runs
//! every schedule with one fault and reports what it saw. One file per experiment:
//!
//! 1. `dead_letter`: a poison message under a dead-letter policy, with the roles on the
//!    service agent, on the operator, or only half of them;
//! 2. `seek`: a consumer that debits on every delivery, and a seek back in time, with
//!    and without retained acknowledged messages (`rewind`: a seek to the present and a
//!    seek to a snapshot);
//! 3. `attempts`: five reminders counted by `delivery_attempt` (`counting`: with other
//!    roles, another maximum, the dead-letter subscription served too, and a job that
//!    counts for itself);
//! 4. `forwarded`: what becomes of a forwarded message (a dead-letter topic without a
//!    subscription, a seek of the source, a key of an ordered subscription).
//!
//! Nothing here holds an answer: `cargo labs run` compares what the run observed with
//! your sealed predictions.

mod attempts;
mod counting;
mod dead_letter;
mod forwarded;
mod rewind;
mod seek;

pub use attempts::fewest_reminders_figure;

use labkit::fault::Scope;
use labkit::{Observation, Report};

/// What one section adds to the run's summary.
type Summary = Vec<(&'static str, serde_json::Value)>;

fn scope() -> Scope {
    Scope {
        lab: "06",
        scenario: "observe",
        max_faults: 1,
    }
}

// ANCHOR: scenario
pub fn run() -> Report {
    let mut obs = Observation::new("dead-letters");
    let mut summary = serde_json::Map::new();
    let sections: [fn(&mut Observation) -> Summary; 4] = [
        dead_letter::observe,
        seek::observe,
        attempts::observe,
        forwarded::observe,
    ];
    for section in sections {
        for (key, value) in section(&mut obs) {
            summary.insert(key.into(), value);
        }
    }
    obs.finish(None, serde_json::Value::Object(summary))
}
// ANCHOR_END: scenario
