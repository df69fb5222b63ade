//! The graded worlds and the explorations the graded suite makes. Complete code: read
//! it, do not change it.
//!
//! * `incident`: billing and a replay. Payments P1…P7 are published to `payments`, one
//!   every ten seconds, and consumed through the subscription `billing` (acknowledged
//!   messages retained). Each payment has two effects: a debit in the ledger (SQLite
//!   table `debits`) and a receipt e-mail sent by the mail provider. Consumer version v1
//!   had a bug between t = 20 s and t = 60 s: it acknowledged on receipt and crashed
//!   part-way, so P3 and P5 were debited without a receipt and P4 was not debited at all;
//!   P6 went through whole. P1 and P2 (before the incident) are complete; P7 arrives
//!   after v2 is deployed and has not been processed. The history is built once,
//!   fault-free; then your replay procedure runs with consumer v2 under faults: crashes
//!   before and after a commit, lost acknowledgements, a receipt send whose response is
//!   lost, and pulls that still see the state before the seek.
//! * `overdue`: an overdue invoice, INV-7, is published once to `invoices-overdue`. The
//!   subscription `reminders` has a dead-letter policy (`reminders-dead`, 5 attempts)
//!   with the service agent's permissions granted, and `reminders-dead` has its own
//!   subscription; your handler receives deliveries from both. The customer must
//!   receive exactly five reminder e-mails.

mod incident;
mod overdue;

pub use incident::replay_scenario;
pub use overdue::{reminder_broker, reminder_run, reminder_scenario};

use crate::invariants::{ALL_REPLAY_INVARIANTS, ReplayInvariant};
use labkit::fault::{self, Exploration, Replay, Scope, Token};

/// Explores every replay schedule with up to `max_faults` faults.
pub fn explore_replay(max_faults: usize, invariants: &'static [ReplayInvariant]) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: "replay",
        max_faults,
    };
    fault::explore(scope, |sim| replay_scenario(sim, invariants))
}

/// Explores every reminder schedule with up to `max_faults` faults.
pub fn explore_reminders(max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: "reminders",
        max_faults,
    };
    fault::explore(scope, reminder_scenario)
}

fn replay_replay(token: &Token) -> Replay {
    fault::replay(token, |sim| replay_scenario(sim, &ALL_REPLAY_INVARIANTS))
}

fn replay_reminders(token: &Token) -> Replay {
    fault::replay(token, reminder_scenario)
}

/// The scenarios `cargo labs replay 06 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] =
    &[("replay", replay_replay), ("reminders", replay_reminders)];
