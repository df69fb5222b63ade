//! The invariants the graded suite checks once the faults stopped and the backlog was
//! drained, each with the explanation a failing schedule prints.

use crate::world::Effect;
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;
use std::collections::BTreeMap;

/// The invariants the graded suite checks, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Every published effect was applied (and committed).
    NoMessageLost,
    /// No effect was applied twice.
    NoEffectTwice,
    /// Each account's effects were applied in their sequence.
    InSequence,
    /// The balances equal the fault-free run's.
    BalancesMatch,
}

pub const ALL_INVARIANTS: [Invariant; 4] = [
    Invariant::NoMessageLost,
    Invariant::NoEffectTwice,
    Invariant::InSequence,
    Invariant::BalancesMatch,
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

/// Checks `invariants`, in order, against the ledger at the end of a schedule.
pub fn check(ledger: &Connection, effects: &[Effect], invariants: &[Invariant]) -> Verdict {
    let ledger = read(ledger);
    for invariant in invariants {
        match invariant {
            Invariant::NoMessageLost => no_message_lost(&ledger, effects)?,
            Invariant::NoEffectTwice => no_effect_twice(&ledger, effects)?,
            Invariant::InSequence => in_sequence(&ledger)?,
            Invariant::BalancesMatch => balances_match(&ledger, effects)?,
        }
    }
    Ok(())
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
                    format!("Let m be the message `{}`, published once.", effect.data()),
                    "Then, after the faults stopped and the backlog was drained, the ledger holds no committed application of it.".into(),
                    "Contradiction: a published effect must take effect. Acknowledge a message only after the transaction that applied it committed: an ack is the promise that the work is durable.".into(),
                ],
            ));
        }
    }
    Ok(())
}

fn no_effect_twice(ledger: &Ledger, effects: &[Effect]) -> Verdict {
    for effect in effects {
        let n = applications(ledger, effect);
        if n > 1 {
            return Err(Violation::new(
                "no effect is applied twice",
                &[
                    format!("Let m be the message `{}`.", effect.data()),
                    format!("Then the ledger committed its effect {n} times."),
                    "Contradiction: Pub/Sub delivers at least once (a lost ack, an expired deadline, or a redelivery of an earlier message of the key brings it back). Recognise an effect already applied, in the same transaction that applies it.".into(),
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
