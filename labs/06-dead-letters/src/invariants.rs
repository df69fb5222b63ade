//! The invariants of the two graded worlds, each with the explanation a failing schedule
//! prints.

use crate::world::{MailProvider, PLAN, REMINDERS_PER_INVOICE};
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;
use std::collections::BTreeMap;

/// The invariants of the replay world, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayInvariant {
    /// Every payment, P1…P7, has exactly one debit and exactly one receipt.
    EveryEffectOnce,
    /// The run's log says `recovered` for P3, P4, P5 and `duplicate` for P6, nothing else.
    RecoveryToldFromDuplication,
    /// Completion was declared, and only once every effect of the interval existed; the
    /// run records its interval and consumer version.
    CompletionCriteria,
}

pub const ALL_REPLAY_INVARIANTS: [ReplayInvariant; 3] = [
    ReplayInvariant::EveryEffectOnce,
    ReplayInvariant::RecoveryToldFromDuplication,
    ReplayInvariant::CompletionCriteria,
];

pub const PAYMENT_IDS: [&str; 7] = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"];
/// The payments published inside `PLAN`'s interval: the ones the replay must complete.
pub const INTERVAL_PAYMENTS: [&str; 4] = ["P3", "P4", "P5", "P6"];

/// How many debits the ledger holds for a payment.
pub fn debits(ledger: &Connection, payment_id: &str) -> i64 {
    ledger
        .query_row(
            "SELECT COUNT(*) FROM debits WHERE payment_id = ?1",
            [payment_id],
            |r| r.get(0),
        )
        .expect("count debits")
}

/// What the replay world ended with, as the invariants need it.
pub struct ReplayEnd<'a> {
    pub ledger: &'a Connection,
    pub mail: &'a MailProvider,
    pub run: i64,
    /// Whether `replay_complete` ever answered true.
    pub declared: bool,
    /// The interval's payments that lacked an effect (or had two) when it did.
    pub completed_with_missing: Option<Vec<String>>,
}

/// Checks `invariants`, in order, against the end of a replay schedule.
pub fn check_replay(end: &ReplayEnd, invariants: &[ReplayInvariant]) -> Verdict {
    for invariant in invariants {
        match invariant {
            ReplayInvariant::EveryEffectOnce => every_effect_once(end)?,
            ReplayInvariant::RecoveryToldFromDuplication => recovery_told(end)?,
            ReplayInvariant::CompletionCriteria => completion_criteria(end)?,
        }
    }
    Ok(())
}

fn every_effect_once(end: &ReplayEnd) -> Verdict {
    for id in PAYMENT_IDS {
        let (d, r) = (debits(end.ledger, id), end.mail.count("receipt", id));
        if d != 1 || r != 1 {
            return Err(Violation::new(
                "every payment has exactly one debit and one receipt",
                &[
                    format!("Let {id} be a payment published once."),
                    format!("Then, after the replay and the drain, the ledger holds {d} debit(s) and the provider sent {r} receipt(s) for it."),
                    "Contradiction: a replay re-delivers messages, it does not tell you which effects exist. Look each effect up by the payment's identity (the ledger for debits, the provider's sent log for receipts) and apply only the missing ones.".into(),
                ],
            ));
        }
    }
    Ok(())
}

fn recovery_told(end: &ReplayEnd) -> Verdict {
    let log: BTreeMap<String, String> = end
        .ledger
        .prepare("SELECT payment_id, outcome FROM replay_log WHERE run_id = ?1")
        .and_then(|mut s| {
            s.query_map([end.run], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .expect("replay log");
    let expected: BTreeMap<String, String> = [
        ("P3", "recovered"),
        ("P4", "recovered"),
        ("P5", "recovered"),
        ("P6", "duplicate"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    if log != expected {
        return Err(Violation::new(
            "the replay tells recovery from duplication",
            &[
                format!(
                    "Let the interval [{}, {}) hold P3…P6: P3 and P5 were debited without a receipt, P4 not at all, P6 completely.",
                    PLAN.from, PLAN.to
                ),
                format!("Then run {}'s replay_log says {log:?}.", end.run),
                format!(
                    "Contradiction: it should say {expected:?}. Decide 'recovered' or 'duplicate' from the state before this run touched the payment, and record the decision in the transaction that applies the debit, so a crash and a redelivery cannot turn a recovery into a duplicate."
                ),
            ],
        ));
    }
    Ok(())
}

fn completion_criteria(end: &ReplayEnd) -> Verdict {
    let run = end.run;
    let recorded: Option<(i64, i64, String)> = end
        .ledger
        .query_row(
            "SELECT from_time, to_time, consumer_version FROM replay_runs WHERE run_id = ?1",
            [run],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok();
    let plan = (
        PLAN.from as i64,
        PLAN.to as i64,
        PLAN.consumer_version.to_string(),
    );
    if recorded != Some(plan) {
        return Err(Violation::new(
            "the replay run records its interval and consumer version",
            &[
                format!("Let run {run} be the replay of [{}, {}) by {}.", PLAN.from, PLAN.to, PLAN.consumer_version),
                format!("Then replay_runs holds {recorded:?} for it."),
                "Contradiction: a replay that does not say what it covered and which code ran it cannot be audited or resumed.".into(),
            ],
        ));
    }
    if let Some(missing) = &end.completed_with_missing {
        return Err(Violation::new(
            "completion is declared only when the work is complete",
            &[
                format!("Let run {run} be declared complete."),
                format!("Then {} still lacked a debit or a receipt (or had two).", missing.join(", ")),
                "Contradiction: an empty pull or an empty backlog is not evidence; delivery after a seek is not instantaneous. Complete means every expected payment of the interval is in the run's log with its effects present.".into(),
            ],
        ));
    }
    if !end.declared {
        return Err(Violation::new(
            "the replay declares completion once the work is done",
            &[
                format!("Let run {run} replay [{}, {}).", PLAN.from, PLAN.to),
                "Then, after the faults stopped and every round ran, it was never declared complete.".into(),
                "Contradiction: a procedure needs a completion criterion it can meet.".into(),
            ],
        ));
    }
    Ok(())
}

/// Exactly five reminder e-mails, counted by what the provider really sent.
pub fn check_reminders(sent: usize) -> Verdict {
    if sent as i64 != REMINDERS_PER_INVOICE {
        return Err(Violation::new(
            "exactly five reminder e-mails per overdue invoice",
            &[
                "Let INV-7 be an overdue invoice, published once.".into(),
                format!("Then the customer received {sent} reminder e-mail(s)."),
                "Contradiction: the business wants five. max_delivery_attempts is approximate and delivery_attempt is best effort; count the reminders you sent in a durable counter of your own, and give each reminder an idempotency key derived from that count.".into(),
            ],
        ));
    }
    Ok(())
}
