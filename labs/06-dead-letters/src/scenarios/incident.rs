//! The billing world: the incident's history, then your replay procedure under faults.

use super::Protocol;
use super::history::{Systems, history};
use crate::invariants::{
    ALL_REPLAY_INVARIANTS, INTERVAL_PAYMENTS, ReplayEnd, check_replay, debits,
};
use crate::world::{BILLING, Billing, Faults, MailProvider, PAYMENTS, PLAN, Peer};
use labkit::fault::{Crash, Glyph, Sim, Verdict};
use rusqlite::Connection;
use sim_pubsub::{Broker, PubsubMessage, ReceivedMessage};
use std::cell::Cell;

/// One graded replay world: its name (`cargo labs replay 06 NAME TOKEN`) and its faults.
#[derive(Clone, Copy, Debug)]
pub struct ReplayWorld {
    pub name: &'static str,
    /// Crashes before and after a commit; receipt sends that time out.
    pub faults: Faults,
    /// Acknowledgements lost on the way (the client sees success).
    pub lost_acks: bool,
    /// Pulls that still see the state before the seek.
    pub stale_pulls: bool,
    /// A billing process that stalls past its ack deadlines while another works.
    pub stalls: bool,
    /// A billing process that pulls what the seek redelivers before the operator's
    /// process goes on.
    pub early_pull: bool,
}

const QUIET: ReplayWorld = ReplayWorld {
    name: "",
    faults: Faults {
        crashes: false,
        mail_timeouts: false,
    },
    lost_acks: false,
    stale_pulls: false,
    stalls: false,
    early_pull: false,
};

/// Every fault at once, but the stall (its own world below): crashes, replies that never
/// come, pulls that still see the state before the seek.
pub const REPLAY: ReplayWorld = ReplayWorld {
    name: "replay",
    faults: Faults {
        crashes: true,
        mail_timeouts: true,
    },
    lost_acks: true,
    stale_pulls: true,
    stalls: false,
    early_pull: false,
};

/// Crashes just before and just after a commit.
pub const REPLAY_CRASHES: ReplayWorld = ReplayWorld {
    name: "replay-crashes",
    faults: Faults {
        crashes: true,
        mail_timeouts: false,
    },
    ..QUIET
};

/// Replies that never come: receipt sends that time out, acknowledgements lost.
pub const REPLAY_LOST_REPLIES: ReplayWorld = ReplayWorld {
    name: "replay-lost-replies",
    faults: Faults {
        crashes: false,
        mail_timeouts: true,
    },
    lost_acks: true,
    ..QUIET
};

/// Pulls that still see the state before the seek.
pub const REPLAY_STALE_PULLS: ReplayWorld = ReplayWorld {
    name: "replay-stale-pulls",
    stale_pulls: true,
    ..QUIET
};

/// A billing process that stalls while another takes its messages over.
pub const REPLAY_STALLS: ReplayWorld = ReplayWorld {
    name: "replay-stalls",
    stalls: true,
    ..QUIET
};

/// A billing process of the live subscription that pulls what the seek redelivers
/// before the operator's process goes on.
pub const REPLAY_EARLY_PULL: ReplayWorld = ReplayWorld {
    name: "replay-early-pull",
    early_pull: true,
    ..QUIET
};

/// The replay worlds, for `cargo labs replay`.
pub const REPLAY_WORLDS: [&ReplayWorld; 6] = [
    &REPLAY,
    &REPLAY_CRASHES,
    &REPLAY_LOST_REPLIES,
    &REPLAY_STALE_PULLS,
    &REPLAY_STALLS,
    &REPLAY_EARLY_PULL,
];

/// Rounds before the faults stop, and fault-free rounds after them.
const FAULTY_ROUNDS: usize = 2;
const DRAIN_ROUNDS: usize = 8;

/// Handles a batch in order, until it ends or the process crashes.
fn handle_batch(
    yours: Protocol,
    billing: &mut Billing,
    batch: &[ReceivedMessage],
) -> Result<(), Crash> {
    for received in batch {
        (yours.on_payment)(billing, received)?;
    }
    Ok(())
}

fn record_crash(sim: &mut Sim, crash: Crash) {
    sim.event("billing", Glyph::Recover, || {
        let truth = format!("{crash}; the open transaction rolled back, memory lost");
        ("a new billing process starts".into(), truth)
    });
}

/// A peer billing process, started while the first one stalls.
fn peer(
    yours: Protocol,
    sim: &mut Sim,
    broker: &mut Broker,
    ledger: &Connection,
    mail: &mut MailProvider,
    faults: Faults,
    run: i64,
) {
    sim.event("billing", Glyph::Recover, || {
        let truth = "a second billing process of the subscription".into();
        ("another billing process pulls".into(), truth)
    });
    let batch = broker.pull(sim, BILLING, 10).expect("pull");
    let mut billing = Billing::start(sim, broker, ledger, mail, faults, run, None);
    if let Err(crash) = handle_batch(yours, &mut billing, &batch) {
        record_crash(sim, crash);
    }
}

/// One billing process: pulls a batch and handles it, until the batch ends or the
/// process crashes. The first may stall.
fn consumer_round(
    yours: Protocol,
    sim: &mut Sim,
    systems: &mut Systems,
    faults: Faults,
    stall: Option<Peer>,
    run: i64,
) {
    let batch = systems.broker.pull(sim, BILLING, 10).expect("pull");
    let mut billing = systems.billing(sim, faults, run, stall);
    if let Err(crash) = handle_batch(yours, &mut billing, &batch) {
        record_crash(sim, crash);
    }
}

/// A payment that arrives while the replay runs: the subscription is live.
fn new_payment(sim: &mut Sim, systems: &mut Systems, n: usize) {
    let message = PubsubMessage::new(format!("P{} {}", 7 + n, 10 * (7 + n)));
    systems
        .broker
        .publish(sim, PAYMENTS, message)
        .expect("publish");
}

/// The interval's payments that lack an effect, or have two.
fn missing_work(systems: &Systems) -> Vec<String> {
    INTERVAL_PAYMENTS
        .iter()
        .filter(|id| debits(&systems.ledger, id) != 1 || systems.mail.count("receipt", id) != 1)
        .map(|id| id.to_string())
        .collect()
}

/// The operator's process (no replay run yet) starts the replay. In the early-pull world
/// a billing process may pull what the seek redelivers before it goes on, for the run
/// then on record. Returns the run, and whether that process found none on record.
fn operator_starts(
    yours: Protocol,
    sim: &mut Sim,
    systems: &mut Systems,
    world: &ReplayWorld,
) -> (i64, bool) {
    let unrecorded = Cell::new(false);
    let early_peer = |sim: &mut Sim,
                      broker: &mut Broker,
                      ledger: &Connection,
                      mail: &mut MailProvider,
                      faults,
                      run| {
        unrecorded.set(run == 0);
        peer(yours, sim, broker, ledger, mail, faults, run)
    };
    let mut operator = systems.billing(sim, world.faults, 0, None);
    if world.early_pull {
        operator = operator.with_early_pull(&early_peer);
    }
    let run = (yours.start_replay)(&mut operator, &PLAN);
    (run, unrecorded.get())
}

// ANCHOR: replay_scenario
/// One graded replay schedule: the operator starts the replay; then, round after round,
/// a billing process handles a batch, a new payment arrives, and the operator asks
/// whether the replay is complete. After the faults stop and the replay is declared
/// complete (or the rounds run out), billing drains the rest; then the invariants.
pub fn replay_scenario(yours: Protocol, sim: &mut Sim, world: &ReplayWorld) -> Verdict {
    let mut systems = history(sim, world);
    let (run, pulled_before_the_record) = operator_starts(yours, sim, &mut systems, world);
    let stalled_peer =
        move |sim: &mut Sim,
              broker: &mut Broker,
              ledger: &Connection,
              mail: &mut MailProvider,
              faults,
              run| { peer(yours, sim, broker, ledger, mail, faults, run) };
    let mut completed_with_missing: Option<Vec<String>> = None;
    let mut declared = false;
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        let stall: Option<Peer> = (world.stalls && round == 0).then_some(&stalled_peer);
        consumer_round(yours, sim, &mut systems, world.faults, stall, run);
        systems.broker.advance(sim, 10);
        new_payment(sim, &mut systems, round + 1);
        if (yours.replay_complete)(&systems.billing(sim, world.faults, run, None), run) {
            let missing = missing_work(&systems);
            sim.note("operator", || format!("replay run {run} declared complete"));
            completed_with_missing = (!missing.is_empty()).then_some(missing);
            declared = true;
            break;
        }
    }
    // Whatever is left (new payments, redeliveries) is drained by the normal billing
    // processes, with the faults over.
    sim.heal();
    for _ in 0..DRAIN_ROUNDS {
        if systems.broker.backlog(BILLING) == 0 {
            break;
        }
        consumer_round(yours, sim, &mut systems, world.faults, None, run);
        systems.broker.advance(sim, 10);
    }
    let end = ReplayEnd {
        ledger: &systems.ledger,
        mail: &systems.mail,
        broker: &systems.broker,
        run,
        declared,
        completed_with_missing,
        pulled_before_the_record,
    };
    check_replay(&end, &ALL_REPLAY_INVARIANTS)
}
// ANCHOR_END: replay_scenario
