//! The graded world: the effects it publishes, the schedule it runs your consumer in, and
//! the explorations the graded suite makes. Complete code: read it, do not change it.

use crate::consumer::handle;
use crate::invariants::{ALL_INVARIANTS, Invariant, check};
use crate::world::{Consumer, Effect, LEDGER_SCHEMA, Op, SUBSCRIPTION, TOPIC};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use rusqlite::Connection;
use sim_pubsub::{Broker, PubsubMessage, SubscriptionConfig};

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

/// The broker of the graded world, with `effects` published.
fn publish(sim: &mut Sim, effects: &[Effect]) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUBSCRIPTION, TOPIC);
    config.enable_message_ordering = true;
    broker.create_subscription(config).expect("subscription");
    for effect in effects {
        let message = PubsubMessage::with_key(effect.data(), effect.account.clone());
        broker.publish(sim, TOPIC, message).expect("publish");
    }
    broker
}

/// One graded schedule: publish the effects, run consumer processes round after round
/// (each pulls, handles its batch in order, and the clock then moves past the ack
/// deadline); after the faulty rounds heal and drain; then check the invariants.
pub fn ledger_scenario(sim: &mut Sim, invariants: &[Invariant]) -> Verdict {
    let effects = graded_effects();
    let mut broker = publish(sim, &effects);
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        if broker.backlog(SUBSCRIPTION) == 0 {
            break;
        }
        let batch = broker.pull(sim, SUBSCRIPTION, 10).expect("pull");
        let mut consumer = Consumer::start(sim, &mut broker, &ledger);
        for received in &batch {
            if let Err(crash) = handle(&mut consumer, received) {
                sim.event("consumer", Glyph::Recover, || {
                    (
                        "a new consumer process starts".into(),
                        format!("{crash}; the open transaction rolled back, memory lost"),
                    )
                });
                break;
            }
        }
        broker.advance(sim, 10);
    }
    check(&ledger, &effects, invariants)
}

/// Explores every schedule with up to `max_faults` faults against `invariants`.
pub fn explore_ledger(max_faults: usize, invariants: &'static [Invariant]) -> Exploration {
    let scope = Scope {
        lab: "05",
        scenario: "ledger",
        max_faults,
    };
    fault::explore(scope, |sim| ledger_scenario(sim, invariants))
}

fn replay_ledger(token: &Token) -> Replay {
    fault::replay(token, |sim| ledger_scenario(sim, &ALL_INVARIANTS))
}

/// The scenarios `cargo labs replay 05 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("ledger", replay_ledger)];
