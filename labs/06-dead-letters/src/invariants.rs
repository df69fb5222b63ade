//! The invariants of the two graded worlds, each with the explanation a failing schedule
//! prints.

use crate::world::{MailProvider, PAYMENTS, PLAN, Payment, REMINDERS_PER_INVOICE};
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;
use sim_pubsub::Broker;
use std::collections::BTreeMap;

/// The invariants of the replay world, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayInvariant {
    /// No payment has two debits or two receipts.
    NoEffectTwice,
    /// Every payment published (P1…P7, and those that arrived during the replay) has its
    /// debit and its receipt.
    NoEffectMissing,
    /// The run's log says `recovered` for P3, P4, P5 and `duplicate` for P6, nothing else.
    RecoveryToldFromDuplication,
    /// Completion was declared, and only once every effect of the interval existed; the
    /// run records its interval and consumer version.
    CompletionCriteria,
}

pub const ALL_REPLAY_INVARIANTS: [ReplayInvariant; 4] = [
    ReplayInvariant::NoEffectTwice,
    ReplayInvariant::NoEffectMissing,
    ReplayInvariant::RecoveryToldFromDuplication,
    ReplayInvariant::CompletionCriteria,
];

/// The payments published inside `PLAN`'s interval: the ones the replay must complete.
pub const INTERVAL_PAYMENTS: [&str; 4] = ["P3", "P4", "P5", "P6"];

/// How many debits the ledger holds for a payment.
pub fn debits(ledger: &Connection, payment_id: &str) -> i64 {
    ledger
        .prepare_cached("SELECT COUNT(*) FROM debits WHERE payment_id = ?1")
        .and_then(|mut count| count.query_row([payment_id], |r| r.get(0)))
        .expect("count debits")
}

/// What the replay world ended with, as the invariants need it.
pub struct ReplayEnd<'a> {
    pub ledger: &'a Connection,
    pub mail: &'a MailProvider,
    pub broker: &'a Broker,
    pub run: i64,
    /// Whether `replay_complete` ever answered true.
    pub declared: bool,
    /// The interval's payments that lacked an effect (or had two) when it did.
    pub completed_with_missing: Option<Vec<String>>,
    /// Whether a billing process pulled what the seek redelivered while no replay run
    /// was on record.
    pub pulled_before_the_record: bool,
}

/// Checks `invariants`, in order, against the end of a replay schedule.
pub fn check_replay(end: &ReplayEnd, invariants: &[ReplayInvariant]) -> Verdict {
    for invariant in invariants {
        match invariant {
            ReplayInvariant::NoEffectTwice => effects(end, |n| n > 1, "twice")?,
            ReplayInvariant::NoEffectMissing => effects(end, |n| n == 0, "missing")?,
            ReplayInvariant::RecoveryToldFromDuplication => recovery_told(end)?,
            ReplayInvariant::CompletionCriteria => completion_criteria(end)?,
        }
    }
    Ok(())
}

/// Finds a payment with a debit count or a receipt count that `wrong` flags.
fn effects(end: &ReplayEnd, wrong: fn(usize) -> bool, how: &str) -> Verdict {
    for message in end.broker.topic_messages(PAYMENTS) {
        let id = &Payment::parse(&message).id;
        let (d, r) = (
            debits(end.ledger, id) as usize,
            end.mail.count("receipt", id),
        );
        if wrong(d) || wrong(r) {
            let (invariant, contradiction) = match how {
                "twice" => (
                    "no payment is debited or receipted twice",
                    "Contradiction: a replay re-delivers messages, and a redelivery says nothing about which effects exist. Look each effect up by the payment's identity (the ledger for the debit, the provider's sent log for the receipt) and apply only what is missing.",
                ),
                _ => (
                    "every payment ends with its debit and its receipt",
                    "Contradiction: a replay exists to finish the work the incident left undone. Look each effect up where it lives (a debit in the ledger says nothing about the receipt) and acknowledge a payment only once both exist.",
                ),
            };
            return Err(Violation::new(
                invariant,
                &[
                    format!("Let {id} be a payment published once."),
                    format!(
                        "Then the ledger holds {d} debit(s) and the provider sent {r} receipt(s) for it, after the replay and the drain."
                    ),
                    contradiction.into(),
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
    let said = |log: &BTreeMap<String, String>| -> String {
        let items: Vec<String> = log.iter().map(|(p, o)| format!("{p} {o}")).collect();
        match items.is_empty() {
            true => "nothing".into(),
            false => items.join(", "),
        }
    };
    if log != expected && end.pulled_before_the_record {
        return Err(Violation::new(
            "the replay tells recovery from duplication",
            &[
                format!(
                    "Let the seek redeliver [{}, {}) to the live subscription, and a billing process pull it at once.",
                    PLAN.from, PLAN.to
                ),
                format!(
                    "Then no replay run was on record when it handled P3…P6, and run {}'s replay_log says: {}.",
                    end.run,
                    said(&log)
                ),
                "Contradiction: a seek redelivers at once to whoever pulls; the evidence of what a redelivery recovered can be written only for a run already on record. Record the run, its interval, consumer version and expected payments before the seek.".into(),
            ],
        ));
    }
    if log != expected {
        return Err(Violation::new(
            "the replay tells recovery from duplication",
            &[
                format!(
                    "Let the interval [{}, {}) hold P3…P6: P3 and P5 were debited without a receipt, P4 not at all, P6 completely.",
                    PLAN.from, PLAN.to
                ),
                format!("Then run {}'s replay_log says: {}.", end.run, said(&log)),
                format!(
                    "Contradiction: it should say {}. Decide 'recovered' or 'duplicate' from the state before this run touched the payment, and record the decision in the transaction that applies the debit, so a crash and a redelivery cannot turn a recovery into a duplicate.",
                    said(&expected)
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
                "Contradiction: complete means every expected payment of the interval is in the run's log with both of its effects present, the debit and the receipt. An empty pull or an empty backlog is not that evidence (delivery after a seek is not instantaneous), nor is a log entry, which commits with the debit, before the receipt.".into(),
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

/// Exactly five reminder e-mails per overdue invoice, counted by what the provider
/// really sent: none gets more (checked first), every one gets its five.
pub fn check_reminders(invoices: &[&str], mail: &MailProvider) -> Verdict {
    let counts: Vec<String> = invoices
        .iter()
        .map(|i| format!("{i}: {}", mail.count("reminder", i)))
        .collect();
    let five = REMINDERS_PER_INVOICE as usize;
    for (too_many, invariant) in [
        (true, "no invoice gets more than five reminders"),
        (false, "every invoice gets its five reminders"),
    ] {
        for invoice in invoices {
            let sent = mail.count("reminder", invoice);
            if (too_many && sent > five) || (!too_many && sent < five) {
                return Err(Violation::new(
                    invariant,
                    &[
                        format!("Let {invoice} be an overdue invoice, published once."),
                        format!("Then its customer received {sent} reminder e-mail(s) (per invoice: {}).", counts.join(", ")),
                        "Contradiction: the business wants five per invoice. max_delivery_attempts is approximate and delivery_attempt is best effort, a send can time out whether or not it went out; count each invoice's reminders in a durable counter of your own, and give each reminder an idempotency key that names the invoice and the count.".into(),
                    ],
                ));
            }
        }
    }
    Ok(())
}
