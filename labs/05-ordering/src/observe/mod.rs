//! The observe phase: a bank's per-account ledger on the simulated Pub/Sub broker.
//!
//! Seven small experiments, each run against the broker (and, where a choice is involved,
//! over every schedule the fault core offers with one fault), one file each:
//!
//! 1. `orders`: the order a pull hands out with one ordering key for the whole bank,
//!    with one key per account, and with ordering disabled;
//! 2. `backlog`: the backlog a single key leaves against per-account keys;
//! 3. `redelivery`: what a redelivery brings back when ordering is enabled, and whether
//!    an acknowledged message can come back at all;
//! 4. `background`: a callback that starts asynchronous work, acknowledges and returns;
//! 5. `exactly_once`: exactly-once delivery, with a consumer slower than its deadline;
//! 6. `publishing`: a publisher whose publish of one message of a key fails;
//! 7. `duplicates`: an effect published twice, and a consumer process that stalls.
//!
//! Every verdict is computed from what the code just observed; nothing here holds an
//! answer: `cargo labs run` compares what the run observed with your sealed predictions.

mod background;
mod backlog;
mod duplicates;
mod exactly_once;
mod orders;
mod publishing;
mod redelivery;

pub use backlog::backlog_chart;

use crate::world::{Effect, Op};
use labkit::fault::Scope;
use labkit::{Observation, Report};
use sim_pubsub::{Broker, ReceivedMessage, SubscriptionConfig};

const TOPIC: &str = "ledger-events";
const SUB: &str = "ledger";

/// What one section adds to the run's summary.
type Summary = Vec<(&'static str, serde_json::Value)>;

fn scope() -> Scope {
    Scope {
        lab: "05",
        scenario: "observe",
        max_faults: 1,
    }
}

fn broker(ordering: bool, ack_deadline_seconds: u64) -> Broker {
    broker_with(ordering, false, ack_deadline_seconds)
}

fn broker_with(ordering: bool, exactly_once: bool, ack_deadline_seconds: u64) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUB, TOPIC);
    config.enable_message_ordering = ordering;
    config.enable_exactly_once_delivery = exactly_once;
    config.ack_deadline_seconds = ack_deadline_seconds;
    broker.create_subscription(config).expect("subscription");
    broker
}

fn effect(account: &str, seq: i64) -> Effect {
    Effect {
        account: account.into(),
        seq,
        op: Op::Deposit(10 * seq),
    }
}

fn label(effect: &Effect) -> String {
    format!("{}#{}", effect.account, effect.seq)
}

fn labels(batch: &[ReceivedMessage]) -> Vec<String> {
    batch
        .iter()
        .map(|r| label(&Effect::parse(&r.message)))
        .collect()
}

fn bank_key(_: &Effect) -> String {
    "bank".into()
}

fn account_key(e: &Effect) -> String {
    e.account.clone()
}

// ANCHOR: scenario
pub fn run() -> Report {
    let mut obs = Observation::new("ordering");
    let mut summary = serde_json::Map::new();
    let sections: [fn(&mut Observation) -> Summary; 7] = [
        orders::observe,
        backlog::observe,
        redelivery::observe,
        background::observe,
        exactly_once::observe,
        publishing::observe,
        duplicates::observe,
    ];
    for section in sections {
        for (key, value) in section(&mut obs) {
            summary.insert(key.into(), value);
        }
    }
    obs.finish(None, serde_json::Value::Object(summary))
}
// ANCHOR_END: scenario
