//! The invariants the graded suite checks once the faults stopped and the backlog was
//! drained, each with the explanation a failing schedule prints.

use crate::world::{Effect, SUBSCRIPTION, TOPIC};
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;
use sim_pubsub::{AckState, Broker};
use std::collections::BTreeMap;

/// The invariants the graded suite checks, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Each account's effects were applied in their sequence.
    InSequence,
    /// Every published effect was applied (and committed).
    NoMessageLost,
    /// No effect was applied twice.
    NoEffectTwice,
    /// The balances equal the fault-free run's.
    BalancesMatch,
    /// Every message on the topic ends acknowledged: the backlog drains.
    Drained,
}

pub const ALL_INVARIANTS: [Invariant; 5] = [
    Invariant::InSequence,
    Invariant::NoMessageLost,
    Invariant::NoEffectTwice,
    Invariant::BalancesMatch,
    Invariant::Drained,
];

/// The balances of the fault-free run: each account's effects applied once, in order.
pub fn expected_balances(effects: &[Effect]) -> BTreeMap<String, i64> {
    let mut balances = BTreeMap::new();
    for effect in effects {
        let balance = balances.entry(effect.account.clone()).or_insert(0);
        *balance = effect.apply_to(*balance);
    }
    balances
}

/// What the ledger holds at the end of a schedule.
struct Ledger {
    /// The audit trail: (account, seq) of every committed application, in order.
    log: Vec<(String, i64)>,
    balances: BTreeMap<String, i64>,
}

fn read(ledger: &Connection) -> Ledger {
    let log = ledger
        .prepare("SELECT account, seq FROM effect_log ORDER BY n")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("audit trail");
    let balances = ledger
        .prepare("SELECT account, balance FROM balances")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("balances");
    Ledger { log, balances }
}

/// Checks `invariants`, in order, against the ledger and the broker at the end of a
/// schedule (after the faults stopped and the drain rounds ran).
pub fn check(
    ledger: &Connection,
    broker: &Broker,
    effects: &[Effect],
    invariants: &[Invariant],
) -> Verdict {
    let ledger = read(ledger);
    for invariant in invariants {
        match invariant {
            Invariant::NoMessageLost => no_message_lost(&ledger, effects)?,
            Invariant::NoEffectTwice => no_effect_twice(&ledger, broker, effects)?,
            Invariant::InSequence => in_sequence(&ledger)?,
            Invariant::BalancesMatch => balances_match(&ledger, effects)?,
            Invariant::Drained => drained(broker)?,
        }
    }
    Ok(())
}

/// How the broker handed an effect out: the messages that carry it, and their deliveries.
fn deliveries(broker: &Broker, effect: &Effect) -> String {
    let copies: Vec<String> = broker
        .topic_messages(TOPIC)
        .into_iter()
        .filter(|m| m.data == effect.data())
        .map(|m| m.message_id)
        .collect();
    let times: u32 = copies
        .iter()
        .map(|id| broker.deliveries(SUBSCRIPTION, id))
        .sum();
    match copies.len() {
        1 => format!("the broker delivered its message {times} time(s)"),
        n => format!(
            "it was published {n} times (messages {}), delivered {times} time(s) in all",
            copies.join(", ")
        ),
    }
}

fn applications(ledger: &Ledger, effect: &Effect) -> usize {
    let this = |(a, s): &&(String, i64)| *a == effect.account && *s == effect.seq;
    ledger.log.iter().filter(this).count()
}

fn no_message_lost(ledger: &Ledger, effects: &[Effect]) -> Verdict {
    for effect in effects {
        if applications(ledger, effect) == 0 {
            return Err(Violation::new(
                "no message is lost",
                &[
                    format!("Let e be the effect `{}`.", effect.data()),
                    "Then the ledger holds no committed application of it, although the faults stopped and the backlog drained.".into(),
                    "Contradiction: a published effect must take effect. An ack is the promise that the work is durable: once a message is acknowledged, nothing brings it back.".into(),
                ],
            ));
        }
    }
    Ok(())
}

fn no_effect_twice(ledger: &Ledger, broker: &Broker, effects: &[Effect]) -> Verdict {
    for effect in effects {
        let n = applications(ledger, effect);
        if n > 1 {
            return Err(Violation::new(
                "no effect is applied twice",
                &[
                    format!("Let e be the effect `{}`.", effect.data()),
                    format!("Then the ledger committed it {n} times; {}.", deliveries(broker, effect)),
                    "Contradiction: an effect arrives more than once (a lost ack, a deadline that passed while another process worked, a redelivery of an earlier message of the key, a publisher that published it again). Recognise it by the effect's own identity, account and sequence number, read and recorded in the transaction that applies it.".into(),
                ],
            ));
        }
    }
    Ok(())
}

fn in_sequence(ledger: &Ledger) -> Verdict {
    let mut last: BTreeMap<&str, i64> = BTreeMap::new();
    for (account, seq) in &ledger.log {
        let previous = last.insert(account.as_str(), *seq).unwrap_or(0);
        if *seq != previous + 1 && *seq > previous {
            return Err(Violation::new(
                "each account's effects are applied in sequence",
                &[
                    format!("Let {account}#{seq} be an effect of account {account}."),
                    format!("Then it was applied while {account}#{} was not applied yet.", previous + 1),
                    "Contradiction: the business needs per-account sequence. Ordering keys deliver in order, but a nack or a busy ledger can leave a gap in the batch you are working through: apply an account's next effect only.".into(),
                ],
            ));
        }
    }
    Ok(())
}

fn balances_match(ledger: &Ledger, effects: &[Effect]) -> Verdict {
    let expected = expected_balances(effects);
    if ledger.balances != expected {
        return Err(Violation::new(
            "the balances equal the fault-free run's",
            &[
                format!("Let {expected:?} be the balances of the fault-free run."),
                format!("Then this schedule ends with {:?}.", ledger.balances),
                "Contradiction: faults may delay an effect, never change the business result."
                    .into(),
            ],
        ));
    }
    Ok(())
}

fn drained(broker: &Broker) -> Verdict {
    for message in broker.topic_messages(TOPIC) {
        let id = &message.message_id;
        if broker.ack_state(SUBSCRIPTION, id) != Some(AckState::Acknowledged) {
            let times = broker.deliveries(SUBSCRIPTION, id);
            return Err(Violation::new(
                "every message is acknowledged in the end",
                &[
                    format!("Let m be message {id}, `{}`.", message.data),
                    format!("Then it was still not acknowledged after {times} deliveries, although the faults stopped and the drain rounds ran."),
                    "Contradiction: a message that is never acknowledged comes back for ever and keeps the backlog up. Acknowledge a delivery once its effect is durable, including an effect you recognise as applied already; nack only what you want delivered again.".into(),
                ],
            ));
        }
    }
    Ok(())
}
