//! The graded worlds: the effects they publish, the schedule they run your consumer in,
//! and the faults each lets the fault core choose. Complete code: read it, do not change
//! it.

use crate::invariants::{ALL_INVARIANTS, check};
use crate::world::{
    Consumer, Delivery, Effect, Faults, LEDGER_SCHEMA, Op, Peer, SUBSCRIPTION, TOPIC,
};
use labkit::fault::{self, Crash, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use rusqlite::Connection;
use sim_pubsub::{Broker, PubsubMessage, ReceivedMessage, SubscriptionConfig};

/// Your `handle` from `consumer.rs`, as the graded worlds call it (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub handle: fn(&mut Consumer, &Delivery) -> Result<(), Crash>,
}

/// One graded world: its name (`cargo labs replay 05 NAME TOKEN`) and its faults.
#[derive(Clone, Copy, Debug)]
pub struct World {
    pub name: &'static str,
    /// Crashes before and after a commit; `Busy` answers from the ledger.
    pub consumer: Faults,
    /// Acknowledgements lost on the way (the client sees success).
    pub lost_acks: bool,
    /// Pulls that serve the keys in reverse order.
    pub key_order: bool,
    /// A consumer process that stalls past its ack deadlines while another works.
    pub stalls: bool,
    /// A publish whose response was lost, published again after the others.
    pub republished: bool,
}

const NONE: Faults = Faults {
    crashes: false,
    busy_ledger: false,
};

/// Crashes just before and just after a commit.
pub const CRASHES: World = World {
    name: "crashes",
    consumer: Faults {
        crashes: true,
        ..NONE
    },
    lost_acks: false,
    key_order: false,
    stalls: false,
    republished: false,
};

/// Lost acknowledgements.
pub const LOST_ACKS: World = World {
    name: "lost-acks",
    lost_acks: true,
    consumer: NONE,
    ..CRASHES
};

/// A busy ledger, and pulls that serve the keys in either order.
pub const BUSY_LEDGER: World = World {
    name: "busy-ledger",
    consumer: Faults {
        busy_ledger: true,
        ..NONE
    },
    key_order: true,
    ..CRASHES
};

/// A consumer process that stalls while another takes its messages over.
pub const STALLS: World = World {
    name: "stalls",
    consumer: NONE,
    stalls: true,
    ..CRASHES
};

/// A publisher that publishes an effect a second time.
pub const REPUBLISHED: World = World {
    name: "republished",
    consumer: NONE,
    republished: true,
    ..CRASHES
};

/// Every fault at once.
pub const EVERYTHING: World = World {
    name: "ledger",
    consumer: Faults {
        crashes: true,
        busy_ledger: true,
    },
    lost_acks: true,
    key_order: true,
    stalls: true,
    republished: true,
};

/// The effects every graded schedule publishes, in publish order.
pub fn graded_effects() -> Vec<Effect> {
    let e = |account: &str, seq, op| Effect {
        account: account.into(),
        seq,
        op,
    };
    vec![
        e("A", 1, Op::Deposit(100)),
        e("B", 1, Op::Deposit(40)),
        e("A", 2, Op::Interest(10)),
        e("B", 2, Op::Interest(50)),
    ]
}

/// Pulls before the faults stop; then drain rounds, fault-free.
const FAULTY_ROUNDS: usize = 3;
const DRAIN_ROUNDS: usize = 6;

// ANCHOR: publish
/// The broker of `world`, with `effects` published. A publish whose response was lost
/// is published again by the application after the others: the same effect, a second
/// message with its own message_id.
fn publish(sim: &mut Sim, world: &World, effects: &[Effect]) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUBSCRIPTION, TOPIC);
    config.enable_message_ordering = true;
    broker.create_subscription(config).expect("subscription");
    let mut again = Vec::new();
    for effect in effects {
        let message = PubsubMessage::with_key(effect.data(), effect.account.clone());
        let id = broker
            .publish(sim, TOPIC, message.clone())
            .expect("publish");
        let options = ["ok", "response lost"];
        if world.republished && sim.choose("publisher:response", &options) == 1 {
            sim.event("publisher", Glyph::Indefinite, || {
                let truth = format!("message {id} was stored; its response was lost");
                (
                    format!("publish {} -> DEADLINE_EXCEEDED", message.data),
                    truth,
                )
            });
            again.push(message);
        }
    }
    for message in again {
        sim.note("publisher", || format!("publish {} again", message.data));
        broker.publish(sim, TOPIC, message).expect("publish");
    }
    if !world.lost_acks {
        broker.without_fault("pubsub:ack");
    }
    if !world.key_order {
        broker.without_fault("pubsub:pull-order");
    }
    broker
}
// ANCHOR_END: publish

/// Handles a batch in order, until it ends or the process crashes (the rest of its
/// batch then waits for its ack deadlines).
fn handle_batch(
    yours: Protocol,
    consumer: &mut Consumer,
    batch: &[ReceivedMessage],
) -> Result<(), Crash> {
    for received in batch {
        (yours.handle)(consumer, received)?;
    }
    Ok(())
}

fn record_crash(sim: &mut Sim, crash: Crash) {
    sim.event("consumer", Glyph::Recover, || {
        let truth = format!("{crash}; the open transaction rolled back, memory lost");
        ("a new consumer process starts".into(), truth)
    });
}

/// A peer process, started while the first one stalls: it pulls and handles its batch.
fn peer(yours: Protocol, sim: &mut Sim, broker: &mut Broker, ledger: &Connection, faults: Faults) {
    sim.event("consumer", Glyph::Recover, || {
        let truth = "a second consumer process of the subscription".into();
        ("another consumer process pulls".into(), truth)
    });
    let batch = broker.pull(sim, SUBSCRIPTION, 10).expect("pull");
    let mut consumer = Consumer::start(sim, broker, ledger, faults, None);
    if let Err(crash) = handle_batch(yours, &mut consumer, &batch) {
        record_crash(sim, crash);
    }
}

/// One graded schedule: publish the effects, run consumer processes round after round
/// (each pulls, handles its batch in order, and the clock then moves past the ack
/// deadline); after the faulty rounds heal and drain; then check the invariants.
pub fn ledger_scenario(yours: Protocol, sim: &mut Sim, world: &World) -> Verdict {
    let effects = graded_effects();
    let mut broker = publish(sim, world, &effects);
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    let stalled_peer = move |sim: &mut Sim, broker: &mut Broker, ledger: &Connection, faults| {
        peer(yours, sim, broker, ledger, faults)
    };
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        if broker.backlog(SUBSCRIPTION) == 0 {
            break;
        }
        let batch = broker.pull(sim, SUBSCRIPTION, 10).expect("pull");
        let stall: Option<Peer> = (world.stalls && round == 0).then_some(&stalled_peer);
        let mut consumer = Consumer::start(sim, &mut broker, &ledger, world.consumer, stall);
        if let Err(crash) = handle_batch(yours, &mut consumer, &batch) {
            record_crash(sim, crash);
        }
        broker.advance(sim, 10);
    }
    check(&ledger, &broker, &effects, &ALL_INVARIANTS)
}

/// Explores every schedule of `world` with up to `max_faults` faults.
pub fn explore(yours: Protocol, world: &'static World, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "05",
        scenario: world.name,
        max_faults,
    };
    fault::explore(scope, |sim| ledger_scenario(yours, sim, world))
}

/// The token of every schedule of `world` with up to `max_faults` faults.
pub fn schedules(yours: Protocol, world: &'static World, max_faults: usize) -> Vec<Token> {
    let scope = Scope {
        lab: "05",
        scenario: world.name,
        max_faults,
    };
    let all = fault::explore_all(scope, |sim| ledger_scenario(yours, sim, world));
    all.runs.into_iter().map(|run| run.token).collect()
}

/// The worlds `cargo labs replay 05 NAME TOKEN` can replay.
pub const WORLDS: [&World; 6] = [
    &EVERYTHING,
    &CRASHES,
    &LOST_ACKS,
    &BUSY_LEDGER,
    &STALLS,
    &REPUBLISHED,
];

fn replay_world(yours: Protocol, name: &str, token: &Token) -> Replay {
    let world = WORLDS.iter().find(|w| w.name == name).expect("a world");
    fault::replay(token, |sim| ledger_scenario(yours, sim, world))
}

/// The scenarios `cargo labs replay 05 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[
    ("ledger", |yours, t| replay_world(yours, "ledger", t)),
    ("crashes", |yours, t| replay_world(yours, "crashes", t)),
    ("lost-acks", |yours, t| replay_world(yours, "lost-acks", t)),
    ("busy-ledger", |yours, t| {
        replay_world(yours, "busy-ledger", t)
    }),
    ("stalls", |yours, t| replay_world(yours, "stalls", t)),
    ("republished", |yours, t| {
        replay_world(yours, "republished", t)
    }),
];
