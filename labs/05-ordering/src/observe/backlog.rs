//! The backlog one key for the bank leaves, against one key per account.

use super::{SUB, Summary, TOPIC, account_key, bank_key, broker, effect};
use crate::world::Effect;
use labkit::Observation;
use labkit::fault::Sim;
use labkit::figure::BarChart;
use sim_pubsub::{PubsubMessage, ReceivedMessage};
use std::collections::{BTreeMap, VecDeque};

/// Four effects on each of accounts A, B and C: the backlog experiment's twelve.
pub const EVEN: &[i64] = &[4, 4, 4];

/// The accounts of the backlog, in order: `effects[i]` effects go to `ACCOUNTS[i]`.
const ACCOUNTS: [&str; 6] = ["A", "B", "C", "D", "E", "F"];

// ANCHOR: backlog
/// The backlog, second by second, of `effects[i]` effects on account A, B, C, … (`i` =
/// 0, 1, 2, …) consumed by `workers` workers that take one second per message and never
/// work on two messages of one ordering key at once (the key's order is the business's
/// sequence).
pub fn backlog_over_time(
    key: fn(&Effect) -> String,
    workers: usize,
    effects: &[i64],
) -> Vec<usize> {
    let mut sim = Sim::fault_free();
    let mut broker = broker(true, 600);
    for seq in 1..=effects.iter().copied().max().unwrap_or(0) {
        for (account, &count) in ACCOUNTS.into_iter().zip(effects) {
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
    let account_secs = account_backlog.len() - 1;
    // Variations: twice the workers; one account with half the effects; six accounts.
    let six_workers = backlog_over_time(account_key, 6, EVEN).len() - 1;
    let skewed = backlog_over_time(account_key, 3, &[6, 3, 3]).len() - 1;
    let six_accounts = backlog_over_time(account_key, 3, &[2; 6]).len() - 1;
    let answer = match (six_accounts * 2).checked_div(account_secs) {
        Some(1) => "a",
        Some(2) => "b",
        Some(4) => "c",
        _ => "?",
    };
    obs.choose("Variation: the backlog experiment with its twelve effects spread over six accounts, two on each. How long does one key per account take to empty the backlog, compared with the experiment's own four effects on each of three accounts?",
        answer,
        format!("one key per account: empty after {six_accounts} s with two effects on each of six accounts, after {account_secs} s with four on each of three"),
    );
    vec![
        ("backlog_one_bank_key", bank_backlog.into()),
        ("backlog_per_account_keys", account_backlog.into()),
        ("seconds_per_account_keys_six_workers", six_workers.into()),
        ("seconds_per_account_keys_six_on_a", skewed.into()),
        ("seconds_per_account_keys_six_accounts", six_accounts.into()),
    ]
}
