//! The observe phase: a bank's per-account ledger on the simulated Pub/Sub broker.
//!
//! Four small experiments, each run against the broker (and, where a choice is involved,
//! over every schedule the fault core offers with one fault):
//!
//! 1. the order a pull hands out with one ordering key for the whole bank, with one key
//!    per account, and with ordering disabled;
//! 2. the backlog a single key leaves against per-account keys, with three workers;
//! 3. what a redelivery brings back when ordering is enabled, and whether an
//!    acknowledged message can come back at all;
//! 4. a callback that starts asynchronous work and returns.
//!
//! Every verdict is computed from what the code just observed; the answer keys live in
//! `lab.toml`.

use crate::harness::{Effect, Op};
use labkit::fault::{self, Scope, Sim, Timers};
use labkit::figure::BarChart;
use labkit::{Observation, Report};
use sim_pubsub::{Broker, PubsubMessage, ReceivedMessage, SubscriptionConfig};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const TOPIC: &str = "ledger-events";
const SUB: &str = "ledger";

fn scope() -> Scope {
    Scope {
        lab: "05",
        scenario: "observe",
        max_faults: 1,
    }
}

fn broker(ordering: bool, ack_deadline_seconds: u64) -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUB, TOPIC);
    config.enable_message_ordering = ordering;
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

fn labels(batch: &[ReceivedMessage]) -> Vec<String> {
    batch
        .iter()
        .map(|r| {
            let e = Effect::parse(&r.message);
            format!("{}#{}", e.account, e.seq)
        })
        .collect()
}

// ANCHOR: delivery_orders
/// Every order in which one pull can hand out A#1, B#1, A#2, B#2, over every schedule
/// with one fault. `key` chooses the ordering key of an effect.
fn delivery_orders(ordering: bool, key: fn(&Effect) -> String) -> BTreeSet<Vec<String>> {
    let mut orders = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(ordering, 10);
        for e in [
            effect("A", 1),
            effect("B", 1),
            effect("A", 2),
            effect("B", 2),
        ] {
            let message = PubsubMessage::with_key(e.data(), key(&e));
            broker.publish(sim, TOPIC, message).expect("publish");
        }
        orders.insert(labels(&broker.pull(sim, SUB, 10).expect("pull")));
        Ok(())
    });
    orders
}
// ANCHOR_END: delivery_orders

fn in_publish_order(order: &[String]) -> bool {
    order == ["A#1", "B#1", "A#2", "B#2"]
}

fn each_account_in_order(order: &[String]) -> bool {
    let position = |label: &str| order.iter().position(|l| l == label);
    position("A#1") < position("A#2") && position("B#1") < position("B#2")
}

// ANCHOR: backlog
/// The backlog, second by second, of 12 effects (accounts A, B, C, four each) consumed by
/// `workers` workers that take one second per message and never work on two messages of
/// one ordering key at once (the key's order is the business's sequence).
pub fn backlog_over_time(key: fn(&Effect) -> String, workers: usize) -> Vec<usize> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 600);
    for seq in 1..=4 {
        for account in ["A", "B", "C"] {
            let e = effect(account, seq);
            let message = PubsubMessage::with_key(e.data(), key(&e));
            broker.publish(&mut sim, TOPIC, message).expect("publish");
        }
    }
    let mut queues: BTreeMap<String, VecDeque<ReceivedMessage>> = BTreeMap::new();
    let mut series = vec![broker.backlog(SUB)];
    while broker.backlog(SUB) > 0 && series.len() < 40 {
        for received in broker.pull(&mut sim, SUB, 100).expect("pull") {
            let key = received.message.ordering_key.clone();
            queues.entry(key).or_default().push_back(received);
        }
        // One message per key at a time, at most `workers` at once.
        let mut done = Vec::new();
        for queue in queues.values_mut() {
            if done.len() == workers {
                break;
            }
            if let Some(received) = queue.pop_front() {
                done.push(received.ack_id);
            }
        }
        broker.advance(&mut sim, 1);
        broker.acknowledge(&mut sim, SUB, &done).expect("ack");
        series.push(broker.backlog(SUB));
    }
    series
}
// ANCHOR_END: backlog

fn bank_key(_: &Effect) -> String {
    "bank".into()
}

fn account_key(e: &Effect) -> String {
    e.account.clone()
}

/// The backlog chart of chapter 5, from the same measurement the lab reports.
pub fn backlog_chart() -> BarChart {
    let bank = backlog_over_time(bank_key, 3);
    let accounts = backlog_over_time(account_key, 3);
    let len = bank.len().max(accounts.len());
    let pad = |mut v: Vec<usize>| {
        v.resize(len, 0);
        v.into_iter().map(|n| n as f64).collect::<Vec<f64>>()
    };
    BarChart {
        title: "Backlog, 12 effects, 3 workers, 1 s per message".into(),
        y_label: "unacknowledged messages".into(),
        categories: (0..len).map(|t| format!("{t}s")).collect(),
        series: vec![
            ("one key for the bank".into(), pad(bank)),
            ("one key per account".into(), pad(accounts)),
        ],
    }
}

// ANCHOR: redelivery
/// A#1, A#2, A#3 and B#1 are delivered; A#1, A#3 and B#1 are acknowledged, A#2 is not.
/// Returns what the next pull hands out once A#2's deadline has passed.
fn after_one_missed_ack() -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 10);
    for e in [
        effect("A", 1),
        effect("A", 2),
        effect("A", 3),
        effect("B", 1),
    ] {
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(&mut sim, TOPIC, message).expect("publish");
    }
    let batch = broker.pull(&mut sim, SUB, 10).expect("pull");
    let acked: Vec<String> = batch
        .iter()
        .filter(|r| !r.message.data.starts_with("A#2"))
        .map(|r| r.ack_id.clone())
        .collect();
    broker.acknowledge(&mut sim, SUB, &acked).expect("ack");
    broker.advance(&mut sim, 10);
    labels(&broker.pull(&mut sim, SUB, 10).expect("pull"))
}
// ANCHOR_END: redelivery

/// One message, pulled and acknowledged once, over every schedule with one fault.
/// Returns whether any schedule delivered it again after its ack deadline passed.
fn acked_message_delivered_again() -> bool {
    let mut delivered_again = false;
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let e = effect("A", 1);
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(sim, TOPIC, message).expect("publish");
        let acks: Vec<String> = (broker.pull(sim, SUB, 10).expect("pull"))
            .into_iter()
            .map(|r| r.ack_id)
            .collect();
        broker.acknowledge(sim, SUB, &acks).expect("ack");
        broker.advance(sim, 10);
        delivered_again |= !broker.pull(sim, SUB, 10).expect("pull").is_empty();
        Ok(())
    });
    delivered_again
}

// ANCHOR: async_callback
/// A callback that hands each message to a background task and returns at once (the
/// client acknowledges on return). Each task takes 1 s or 3 s, a choice of the fault core.
/// Returns the completion order of every schedule with one fault.
fn async_completion_orders() -> BTreeSet<Vec<String>> {
    let mut orders = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        for e in [effect("A", 1), effect("A", 2)] {
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            broker.publish(sim, TOPIC, message).expect("publish");
        }
        let mut running: Timers<String> = Timers::new();
        for received in broker.pull(sim, SUB, 10).expect("pull") {
            let label = labels(std::slice::from_ref(&received)).remove(0);
            let seconds = [1, 3][sim.choose("worker:duration", &["1 s", "3 s"])];
            running.set(broker.now() + seconds, label);
            // The callback returns here; the work is still running.
            broker
                .acknowledge(sim, SUB, &[received.ack_id])
                .expect("ack");
        }
        let mut completed = Vec::new();
        while let Some((_, label)) = running.pop_due(u64::MAX) {
            completed.push(label);
        }
        orders.insert(completed);
        Ok(())
    });
    orders
}
// ANCHOR_END: async_callback

// ANCHOR: scenario
pub fn run() -> Report {
    let mut obs = Observation::new("ordering");

    let bank = delivery_orders(true, bank_key);
    let accounts = delivery_orders(true, account_key);
    let unordered = delivery_orders(false, account_key);
    obs.check(
        "one key for the bank delivers everything in publish order",
        bank.iter().all(|o| in_publish_order(o)),
    );
    obs.check(
        "per-account keys deliver everything in publish order",
        accounts.iter().all(|o| in_publish_order(o)),
    );
    obs.check(
        "per-account keys deliver each account's messages in order",
        accounts.iter().all(|o| each_account_in_order(o)),
    );
    obs.check(
        "without ordering an account's messages still arrive in order",
        unordered.iter().all(|o| each_account_in_order(o)),
    );

    let bank_backlog = backlog_over_time(bank_key, 3);
    let account_backlog = backlog_over_time(account_key, 3);
    let (bank_secs, account_secs) = (bank_backlog.len() - 1, account_backlog.len() - 1);
    obs.check(
        "one key for the bank drains the backlog as fast as per-account",
        bank_secs <= account_secs,
    );

    let again = after_one_missed_ack();
    obs.check(
        "a redelivery brings back later acked messages of its key",
        again.iter().any(|l| l == "A#3"),
    );
    obs.check(
        "a redelivery brings back other accounts' messages too",
        again.iter().any(|l| l.starts_with("B#")),
    );
    // Two ways back for an acknowledged message: its ack was lost (the client saw ok),
    // or an earlier message of its key was redelivered (A#3 above).
    let acked_came_back = acked_message_delivered_again();
    obs.check(
        "an acknowledged message is never delivered again",
        !acked_came_back && !again.iter().any(|l| l == "A#3"),
    );

    let completions = async_completion_orders();
    obs.check(
        "async work started by a callback completes in receipt order",
        completions.iter().all(|o| o == &["A#1", "A#2"]),
    );

    let ratio = bank_secs as f64 / account_secs.max(1) as f64;
    let backlog_answer = if (2.5..=3.5).contains(&ratio) {
        "b"
    } else if ratio < 1.2 {
        "a"
    } else {
        "c"
    };
    obs.answer(
        "backlog",
        backlog_answer,
        format!("one key for the bank: empty after {bank_secs} s; one key per account: after {account_secs} s"),
    );
    let redelivery_answer = match again.join(",").as_str() {
        "A#2" => "a",
        "A#2,A#3" => "b",
        "A#2,A#3,B#1" | "B#1,A#2,A#3" => "c",
        _ => "d",
    };
    obs.answer(
        "redelivery",
        redelivery_answer,
        format!("the next pull handed out [{}]", again.join(", ")),
    );
    let out_of_order = completions.iter().filter(|o| *o != &["A#1", "A#2"]).count();
    let async_answer = match (out_of_order, completions.len()) {
        (0, _) => "a",
        (n, total) if n < total => "b",
        _ => "c",
    };
    obs.answer(
        "async-completion",
        async_answer,
        format!(
            "completion orders seen: {}",
            completions
                .iter()
                .map(|o| o.join(" then "))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    );

    let summary = serde_json::json!({
        "orders_one_bank_key": bank.len(),
        "orders_per_account_keys": accounts.len(),
        "orders_without_ordering": unordered.len(),
        "backlog_one_bank_key": bank_backlog,
        "backlog_per_account_keys": account_backlog,
        "redelivered_after_missed_ack": again,
        "async_completion_orders": completions.len(),
        "acked_message_delivered_again_after_a_lost_ack": acked_came_back,
    });
    obs.finish(None, summary)
}
// ANCHOR_END: scenario
