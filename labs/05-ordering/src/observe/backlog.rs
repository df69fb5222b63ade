//! The backlog one key for the bank leaves, against one key per account.

use super::{SUB, Summary, TOPIC, account_key, bank_key, broker, effect};
use crate::world::Effect;
use labkit::Observation;
use labkit::fault::Sim;
use labkit::figure::BarChart;
use sim_pubsub::{PubsubMessage, ReceivedMessage};
use std::collections::{BTreeMap, VecDeque};

/// Four effects on each of accounts A, B and C: the backlog experiment's twelve.
pub const EVEN: [i64; 3] = [4, 4, 4];

// ANCHOR: backlog
/// The backlog, second by second, of `effects[i]` effects on account A, B, C (`i` = 0, 1,
/// 2) consumed by `workers` workers that take one second per message and never work on
/// two messages of one ordering key at once (the key's order is the business's sequence).
pub fn backlog_over_time(
    key: fn(&Effect) -> String,
    workers: usize,
    effects: [i64; 3],
) -> Vec<usize> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 600);
    for seq in 1..=effects.iter().copied().max().unwrap_or(0) {
        for (account, count) in ["A", "B", "C"].into_iter().zip(effects) {
            if seq > count {
                continue;
            }
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

/// The backlog chart of chapter 5, from the same measurement the lab reports.
pub fn backlog_chart() -> BarChart {
    let bank = backlog_over_time(bank_key, 3, EVEN);
    let accounts = backlog_over_time(account_key, 3, EVEN);
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

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let bank_backlog = backlog_over_time(bank_key, 3, EVEN);
    let account_backlog = backlog_over_time(account_key, 3, EVEN);
    let (bank_secs, account_secs) = (bank_backlog.len() - 1, account_backlog.len() - 1);
    obs.ask("In the backlog experiment, does one key for the bank take at least three times as long as one key per account to empty the backlog?", bank_secs >= 3 * account_secs);
    // Variations: twice the workers; one account with half the effects.
    let six_workers = backlog_over_time(account_key, 6, EVEN).len() - 1;
    obs.ask("Variation: the backlog experiment with twice as many workers. Does one key per account empty the backlog sooner?", six_workers < account_secs);
    let skewed = backlog_over_time(account_key, 3, [6, 3, 3]).len() - 1;
    let answer = match (skewed * 2).checked_div(account_secs) {
        Some(2) => "a",
        Some(3) => "b",
        Some(4) => "c",
        _ => "?",
    };
    obs.choose("Variation: the backlog experiment with half of its twelve effects on A and the rest split evenly between B and C. How long does one key per account take to empty the backlog, compared with the experiment's own four effects on each account?",
        answer,
        format!("one key per account: empty after {skewed} s with six effects on A, after {account_secs} s with four on each account"),
    );
    vec![
        ("backlog_one_bank_key", bank_backlog.into()),
        ("backlog_per_account_keys", account_backlog.into()),
        ("seconds_per_account_keys_six_workers", six_workers.into()),
        ("seconds_per_account_keys_six_on_a", skewed.into()),
    ]
}
