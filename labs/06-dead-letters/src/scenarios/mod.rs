//! The graded worlds and the explorations the graded suite makes. Complete code: read
//! it, do not change it.
//!
//! * `incident` (with `history`): billing and a replay. Payments P1…P6 were published to
//!   `payments`, one every ten seconds, and consumed through the subscription `billing`
//!   (acknowledged messages retained). Each payment has two effects: a debit in the
//!   ledger (SQLite table `debits`) and a receipt e-mail sent by the mail provider.
//!   Consumer version v1 acknowledged on receipt and crashed part-way between t = 20 s and
//!   t = 60 s (`HISTORY`); P7 arrived after v2 was deployed, and a new payment arrives in
//!   every round of the replay. The history is built fault-free; then your replay
//!   procedure runs with consumer v2 in one world per kind of fault.
//! * `overdue`: overdue invoices, each published once to `invoices-overdue`. The
//!   subscription `reminders` has a dead-letter policy (`reminders-dead`, 5 attempts)
//!   with the service agent's permissions granted, and `reminders-dead` has its own
//!   subscription; your handler receives deliveries from both. Each customer must
//!   receive exactly five reminder e-mails.

mod history;
mod incident;

pub use history::HISTORY;
mod overdue;

pub use incident::{
    REPLAY, REPLAY_CRASHES, REPLAY_EARLY_PULL, REPLAY_LOST_REPLIES, REPLAY_STALE_PULLS,
    REPLAY_STALLS, REPLAY_WORLDS, ReplayWorld, replay_scenario,
};
pub use overdue::{
    REMINDER_WORLDS, REMINDERS_ALL, REMINDERS_CRASHES, REMINDERS_FORWARDING,
    REMINDERS_LOST_REPLIES, REMINDERS_QUIET, ReminderWorld, reminder_broker, reminder_scenario,
};

use crate::world::{Billing, Crash, Delivery, Reminders, ReplayPlan};
use labkit::fault::{self, Exploration, Replay, Scope, Token};

/// Your functions from `replay.rs` and `reminders.rs`, as the graded worlds call them
/// (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub start_replay: fn(&mut Billing, &ReplayPlan) -> i64,
    pub on_payment: fn(&mut Billing, &Delivery) -> Result<(), Crash>,
    pub replay_complete: fn(&Billing, i64) -> bool,
    pub on_reminder: fn(&mut Reminders, &Delivery) -> Result<(), Crash>,
}

/// Explores every schedule of a replay world with up to `max_faults` faults.
pub fn explore_replay(
    yours: Protocol,
    world: &'static ReplayWorld,
    max_faults: usize,
) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: world.name,
        max_faults,
    };
    fault::explore(scope, |sim| replay_scenario(yours, sim, world))
}

/// Explores every schedule of a reminder world with up to `max_faults` faults.
pub fn explore_reminders(
    yours: Protocol,
    world: &'static ReminderWorld,
    max_faults: usize,
) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: world.name,
        max_faults,
    };
    fault::explore(scope, |sim| reminder_scenario(yours, sim, world))
}

/// The token of every schedule of a replay world with up to `max_faults` faults.
pub fn replay_schedules(
    yours: Protocol,
    world: &'static ReplayWorld,
    max_faults: usize,
) -> Vec<Token> {
    let scope = Scope {
        lab: "06",
        scenario: world.name,
        max_faults,
    };
    let all = fault::explore_all(scope, |sim| replay_scenario(yours, sim, world));
    all.runs.into_iter().map(|run| run.token).collect()
}

/// The token of every schedule of a reminder world with up to `max_faults` faults.
pub fn reminder_schedules(
    yours: Protocol,
    world: &'static ReminderWorld,
    max_faults: usize,
) -> Vec<Token> {
    let scope = Scope {
        lab: "06",
        scenario: world.name,
        max_faults,
    };
    let all = fault::explore_all(scope, |sim| reminder_scenario(yours, sim, world));
    all.runs.into_iter().map(|run| run.token).collect()
}

fn replay_world(yours: Protocol, name: &str, token: &Token) -> Replay {
    if let Some(world) = REPLAY_WORLDS.iter().find(|w| w.name == name) {
        return fault::replay(token, |sim| replay_scenario(yours, sim, world));
    }
    let world = REMINDER_WORLDS
        .iter()
        .find(|w| w.name == name)
        .expect("a world");
    fault::replay(token, |sim| reminder_scenario(yours, sim, world))
}

/// The scenarios `cargo labs replay 06 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("replay", |yours, t| replay_world(yours, "replay", t)),
    ("replay-crashes", |yours, t| {
        replay_world(yours, "replay-crashes", t)
    }),
    ("replay-lost-replies", |yours, t| {
        replay_world(yours, "replay-lost-replies", t)
    }),
    ("replay-stale-pulls", |yours, t| {
        replay_world(yours, "replay-stale-pulls", t)
    }),
    ("replay-stalls", |yours, t| {
        replay_world(yours, "replay-stalls", t)
    }),
    ("reminders", |yours, t| replay_world(yours, "reminders", t)),
    ("reminders-quiet", |yours, t| {
        replay_world(yours, "reminders-quiet", t)
    }),
    ("reminders-forwarding", |yours, t| {
        replay_world(yours, "reminders-forwarding", t)
    }),
    ("reminders-crashes", |yours, t| {
        replay_world(yours, "reminders-crashes", t)
    }),
    ("reminders-lost-replies", |yours, t| {
        replay_world(yours, "reminders-lost-replies", t)
    }),
];
