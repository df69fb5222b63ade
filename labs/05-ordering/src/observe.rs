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
//! 4. a callback that starts asynchronous work, acknowledges and returns;
//! 5. exactly-once delivery, with a consumer slower than its ack deadline;
//! 6. a publisher whose publish of one message of a key fails.
//!
//! Every verdict is computed from what the code just observed; the answer keys live in
//! `lab.toml`.

use crate::harness::{Effect, Op};
use labkit::fault::{self, Scope, Sim, Timers};
use labkit::figure::BarChart;
use labkit::{Observation, Report};
use sim_pubsub::{
    AckResponse, Broker, PublishError, Publisher, PubsubMessage, ReceivedMessage,
    SubscriptionConfig,
};
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
/// A callback that hands each message to a background task, acknowledges the message and
/// returns at once. Each task takes 1 s or 3 s, a choice of the fault core. Returns the
/// completion order of every schedule with one fault.
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
            // The callback acknowledges and returns here; the work is still running.
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

/// What one schedule of the exactly-once experiment saw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ExactlyOnceRun {
    /// How many times the consumer applied A#1.
    applied: usize,
    /// What each ack was told, and whether it was sent after the deadline had passed.
    acks: Vec<(AckResponse, bool)>,
}

// ANCHOR: exactly_once
/// A subscription with exactly-once delivery (and a 10 s ack deadline). The consumer
/// applies each delivered effect, then acknowledges with `acknowledge_with_response`; its
/// work takes 5 s or 15 s, a choice of the fault core. Over every schedule with one fault:
/// how often was A#1 applied, and what was each ack told?
fn exactly_once_runs() -> BTreeSet<ExactlyOnceRun> {
    let mut runs = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = Broker::new();
        broker.create_topic(TOPIC).expect("topic");
        let mut config = SubscriptionConfig::new(SUB, TOPIC);
        config.enable_exactly_once_delivery = true;
        broker.create_subscription(config).expect("subscription");
        let e = effect("A", 1);
        let message = PubsubMessage::with_key(e.data(), e.account.clone());
        broker.publish(sim, TOPIC, message).expect("publish");
        let mut run = ExactlyOnceRun {
            applied: 0,
            acks: Vec::new(),
        };
        for _ in 0..4 {
            for received in broker.pull(sim, SUB, 10).expect("pull") {
                run.applied += 1; // the effect, applied before the ack
                let seconds = [5, 15][sim.choose("worker:duration", &["5 s", "15 s"])];
                broker.advance(sim, seconds);
                let answer = broker
                    .acknowledge_with_response(sim, SUB, &[received.ack_id])
                    .expect("ack");
                run.acks.push((answer[0], seconds > 10));
            }
            broker.advance(sim, 10);
        }
        runs.insert(run);
        Ok(())
    });
    runs
}
// ANCHOR_END: exactly_once

/// What one schedule of the publisher experiment saw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct PublishRun {
    /// The effect whose publish failed, if one did.
    failed: Option<String>,
    /// The effects the publisher refused because their key was paused.
    refused: Vec<String>,
    /// What reached the topic, in order.
    on_topic: Vec<String>,
}

// ANCHOR: publisher_pause
/// The bank publishes A#1, A#2, A#3 with ordering key A through a publisher with message
/// ordering enabled. Any one publish may fail (a choice of the fault core); the publisher
/// does not call `resume_publish`. Over every schedule with one fault: what reached the
/// topic?
fn publish_runs() -> BTreeSet<PublishRun> {
    let mut runs = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(true, 10);
        let mut publisher = Publisher::with_message_ordering(TOPIC);
        let mut run = PublishRun {
            failed: None,
            refused: Vec::new(),
            on_topic: Vec::new(),
        };
        for seq in 1..=3 {
            let e = effect("A", seq);
            let label = format!("A#{seq}");
            let message = PubsubMessage::with_key(e.data(), e.account.clone());
            match publisher.publish(sim, &mut broker, message) {
                Ok(_) => {}
                Err(PublishError::Failed(_)) => run.failed = Some(label),
                Err(PublishError::OrderingKeyPaused { .. }) => run.refused.push(label),
            }
        }
        run.on_topic = broker
            .topic_messages(TOPIC)
            .iter()
            .map(|m| {
                let e = Effect::parse(m);
                format!("{}#{}", e.account, e.seq)
            })
            .collect();
        runs.insert(run);
        Ok(())
    });
    runs
}
// ANCHOR_END: publisher_pause

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

    let exactly_once = exactly_once_runs();
    obs.check(
        "with exactly-once delivery each effect is applied once",
        exactly_once.iter().all(|r| r.applied == 1),
    );
    let late_acks: Vec<AckResponse> = exactly_once
        .iter()
        .flat_map(|r| r.acks.iter().filter(|(_, late)| *late).map(|(a, _)| *a))
        .collect();
    obs.check(
        "with exactly-once delivery a late ack is reported as failed",
        !late_acks.is_empty() && late_acks.iter().all(|a| *a != AckResponse::Success),
    );

    let publishing = publish_runs();
    let after_failure = |run: &PublishRun| -> Vec<String> {
        let failed: i64 = run
            .failed
            .as_deref()
            .and_then(|l| l.strip_prefix("A#"))
            .and_then(|n| n.parse().ok())
            .unwrap_or(i64::MAX);
        (failed + 1..=3).map(|seq| format!("A#{seq}")).collect()
    };
    let failures: Vec<&PublishRun> = publishing.iter().filter(|r| r.failed.is_some()).collect();
    obs.check(
        "after a failed publish the key's later messages still reach the topic",
        !failures.is_empty()
            && failures
                .iter()
                .all(|r| after_failure(r).iter().all(|l| r.on_topic.contains(l))),
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

    let a2_failed = publishing
        .iter()
        .find(|r| r.failed.as_deref() == Some("A#2"));
    let publish_answer = match a2_failed.map(|r| r.on_topic.join(",")) {
        Some(topic) if topic == "A#1,A#3" => "a",
        Some(topic) if topic == "A#1" => "b",
        Some(topic) if topic == "A#1,A#2,A#3" => "c",
        _ => "?",
    };
    obs.answer(
        "publish-failure",
        publish_answer,
        match a2_failed {
            Some(r) => format!(
                "the topic holds [{}]; refused by the publisher: [{}]",
                r.on_topic.join(", "),
                r.refused.join(", ")
            ),
            None => "no schedule failed the publish of A#2".into(),
        },
    );

    // What each schedule's acks were told, `(late)` after the deadline had passed.
    let acks_told: Vec<Vec<String>> = exactly_once
        .iter()
        .map(|r| {
            r.acks
                .iter()
                .map(|(answer, late)| match late {
                    true => format!("{answer:?} (late)"),
                    false => format!("{answer:?}"),
                })
                .collect()
        })
        .collect();
    let applications: Vec<usize> = exactly_once.iter().map(|r| r.applied).collect();
    let summary = serde_json::json!({
        "orders_one_bank_key": bank.len(),
        "orders_per_account_keys": accounts.len(),
        "orders_without_ordering": unordered.len(),
        "backlog_one_bank_key": bank_backlog,
        "backlog_per_account_keys": account_backlog,
        "redelivered_after_missed_ack": again,
        "async_completion_orders": completions.len(),
        "acked_message_delivered_again_after_a_lost_ack": acked_came_back,
        "exactly_once_applications": applications,
        "exactly_once_acks": acks_told,
        "published_with_one_failure": publishing
            .iter()
            .map(|r| format!("failed {:?}: topic [{}]", r.failed, r.on_topic.join(", ")))
            .collect::<Vec<_>>(),
    });
    obs.finish(None, summary)
}
// ANCHOR_END: scenario
