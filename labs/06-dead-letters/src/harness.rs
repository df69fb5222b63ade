//! The worlds the build phase is graded in. Complete code: read it, do not change it.
//!
//! **Billing and a replay.** Payments P1…P7 are published to `payments`, one every ten
//! seconds, and consumed through the subscription `billing` (acknowledged messages
//! retained). Each payment has two effects: a debit in the ledger (SQLite table
//! `debits`) and a receipt e-mail sent by the mail provider. Consumer version v1 had a bug
//! between t = 20 s and t = 60 s: it acknowledged on receipt and crashed part-way, so P3
//! and P5 were debited without a receipt and P4 was not debited at all; P6 went through
//! whole. P1 and P2 (before the incident) are complete; P7 arrives after v2 is deployed
//! and has not been processed. The history is built once, fault-free, before the graded
//! part starts; then your replay procedure runs with consumer v2 under faults: crashes
//! before and after a commit, lost acknowledgements, a receipt send whose response is
//! lost, and pulls that still see the state before the seek.
//!
//! **Reminders.** An overdue invoice, INV-7, is published once to `invoices-overdue`.
//! The subscription `reminders` has a dead-letter policy (`reminders-dead`, 5 attempts)
//! with the service agent's permissions granted, and `reminders-dead` has its own
//! subscription; your handler receives deliveries from both. The customer must receive
//! exactly five reminder e-mails.
//!
//! At a crash the open SQLite transaction is rolled back and the process's memory is
//! gone; committed rows stay (the connection stands for the file on disk), the broker
//! and the mail provider are other systems and keep everything.

use crate::reminders::on_reminder;
use crate::replay::{handle_payment, replay_complete, start_replay};
use labkit::fault::{
    self, Crash, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::Sequence;
use rusqlite::{Connection, Transaction};
use sim_pubsub::{
    Broker, DeadLetterPolicy, Message, PubsubMessage, ROLE_PUBLISHER, ROLE_SUBSCRIBER,
    ReceivedMessage, Resource, SERVICE_AGENT, SeekTarget, SubscriptionConfig,
};
use std::collections::BTreeMap;

pub const PAYMENTS: &str = "payments";
pub const BILLING: &str = "billing";
pub const INVOICES: &str = "invoices-overdue";
pub const REMINDERS: &str = "reminders";
pub const REMINDERS_DEAD: &str = "reminders-dead";
/// The reminders the business wants per overdue invoice.
pub const REMINDERS_PER_INVOICE: i64 = 5;

/// One payment: its identity and amount (`"P3 30"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payment {
    pub id: String,
    pub amount: i64,
}

impl Payment {
    pub fn parse(message: &Message) -> Payment {
        let (id, amount) = message.data.split_once(' ').expect("id amount");
        Payment {
            id: id.to_string(),
            amount: amount.parse().expect("amount"),
        }
    }
}

/// The interval to replay and the consumer version that replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayPlan {
    /// Messages published at or after this time (seconds)…
    pub from: u64,
    /// …and before this one belong to the replay.
    pub to: u64,
    pub consumer_version: &'static str,
}

/// The replay the graded world asks for: the incident's interval, with v2.
pub const PLAN: ReplayPlan = ReplayPlan {
    from: 20,
    to: 60,
    consumer_version: "v2",
};

/// The ledger's tables. `debits` and `reminder_counter` are the business's; the
/// `replay_*` tables are yours to use.
pub const LEDGER_SCHEMA: &str = "
    CREATE TABLE debits (n INTEGER PRIMARY KEY, payment_id TEXT NOT NULL, amount INTEGER NOT NULL);
    CREATE TABLE replay_runs (run_id INTEGER PRIMARY KEY, from_time INTEGER NOT NULL,
                              to_time INTEGER NOT NULL, consumer_version TEXT NOT NULL);
    CREATE TABLE replay_expected (run_id INTEGER NOT NULL, payment_id TEXT NOT NULL,
                                  PRIMARY KEY (run_id, payment_id));
    CREATE TABLE replay_log (run_id INTEGER NOT NULL, payment_id TEXT NOT NULL,
                             outcome TEXT NOT NULL, PRIMARY KEY (run_id, payment_id));
    CREATE TABLE reminder_counter (invoice TEXT PRIMARY KEY, sent INTEGER NOT NULL);";

/// The mail provider: another system. Receipts are plain sends (no idempotency key), but
/// the provider's sent log can be searched by payment. Reminders accept an idempotency
/// key: a second send with the same key sends nothing.
#[derive(Debug, Default)]
pub struct MailProvider {
    /// Every e-mail really sent: (kind, subject), in order.
    pub sent: Vec<(&'static str, String)>,
    keys: Vec<String>,
}

/// The provider's response was lost: the e-mail may or may not have gone out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MailTimeout;

impl MailProvider {
    fn send(
        &mut self,
        sim: &mut Sim,
        kind: &'static str,
        subject: &str,
        key: Option<&str>,
    ) -> Result<(), MailTimeout> {
        let fate = sim.fate("mail:send", &[Fate::Ok, Fate::AppliedResponseLost]);
        let duplicate_key = key.is_some_and(|k| self.keys.iter().any(|seen| seen == k));
        if !duplicate_key {
            self.sent.push((kind, subject.to_string()));
            if let Some(k) = key {
                self.keys.push(k.to_string());
            }
        }
        let glyph = if fate == Fate::Ok {
            Glyph::Normal
        } else {
            Glyph::Indefinite
        };
        sim.event("mail", glyph, || {
            let seen = if fate == Fate::Ok {
                "sent"
            } else {
                "DEADLINE_EXCEEDED"
            };
            let truth = if duplicate_key {
                "idempotency key seen before: nothing sent".to_string()
            } else {
                format!("e-mail sent; {}", fate.label())
            };
            (format!("send {kind} for {subject} -> {seen}"), truth)
        });
        if fate == Fate::Ok {
            Ok(())
        } else {
            Err(MailTimeout)
        }
    }

    fn count(&self, kind: &str, subject: &str) -> usize {
        self.sent
            .iter()
            .filter(|(k, s)| *k == kind && s == subject)
            .count()
    }
}

/// The operator's and the billing consumer's view of the world: the broker, the ledger,
/// the mail provider, the fault core. Each step that touches durable state ends at a
/// crash point.
pub struct Billing<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    mail: &'a mut MailProvider,
}

impl<'a> Billing<'a> {
    // ANCHOR: billing_steps
    /// The ledger, for reads and for your own `replay_*` tables outside a transaction.
    pub fn ledger(&self) -> &'a Connection {
        self.ledger
    }

    /// The payments the publisher published in `[from, to)`, in publish order (the
    /// topic's own record, the source of truth for "what belongs to the interval").
    pub fn published_between(&self, from: u64, to: u64) -> Vec<Message> {
        self.broker
            .topic_messages(PAYMENTS)
            .into_iter()
            .filter(|m| (from..to).contains(&m.publish_time))
            .collect()
    }

    /// Seeks `billing` to a time: messages published since then are delivered again.
    pub fn seek_to(&mut self, time: u64) {
        self.broker
            .seek(self.sim, BILLING, SeekTarget::Time(time))
            .expect("seek");
    }

    /// Opens a ledger transaction. Dropping it without `commit` rolls it back.
    pub fn begin(&self) -> Transaction<'a> {
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// True when the ledger holds a debit for this payment (read inside `tx`).
    pub fn debit_exists(&self, tx: &Transaction, payment_id: &str) -> bool {
        tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM debits WHERE payment_id = ?1)",
            [payment_id],
            |r| r.get(0),
        )
        .expect("read debits")
    }

    /// Debits the payment inside `tx`.
    pub fn debit(&mut self, tx: &Transaction, payment: &Payment) {
        tx.execute(
            "INSERT INTO debits (payment_id, amount) VALUES (?1, ?2)",
            (&payment.id, payment.amount),
        )
        .expect("debit");
        self.sim.note("billing", || {
            format!("debit {} {} (uncommitted)", payment.id, payment.amount)
        });
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.sim.crash_point("billing:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("billing", || "COMMIT".into());
        self.sim.crash_point("billing:after-commit")
    }

    /// Searches the mail provider's sent log: was a receipt for this payment sent?
    pub fn receipt_sent(&self, payment_id: &str) -> bool {
        self.mail.count("receipt", payment_id) > 0
    }

    /// Sends the receipt e-mail (no idempotency key: every call that gets through sends
    /// one). `MailTimeout` means it may or may not have been sent.
    pub fn send_receipt(&mut self, payment: &Payment) -> Result<(), MailTimeout> {
        self.mail.send(self.sim, "receipt", &payment.id, None)
    }

    /// Acknowledges one delivery (best effort: it may be lost).
    pub fn ack(&mut self, received: &ReceivedMessage) {
        self.broker
            .acknowledge(self.sim, BILLING, std::slice::from_ref(&received.ack_id))
            .expect("ack");
    }

    /// Nacks one delivery: it will be delivered again.
    pub fn nack(&mut self, received: &ReceivedMessage) {
        self.broker
            .modify_ack_deadline(self.sim, BILLING, std::slice::from_ref(&received.ack_id), 0)
            .expect("nack");
    }

    /// Unacknowledged messages in `billing`, as the broker counts them.
    pub fn backlog(&self) -> usize {
        self.broker.backlog(BILLING)
    }
    // ANCHOR_END: billing_steps
}

/// The history of the incident, built fault-free (it is the past, not under test).
fn incident(broker: &mut Broker, ledger: &Connection, mail: &mut MailProvider) {
    let mut past = Sim::fault_free();
    let payments = [
        ("P1", 10, "complete"),
        ("P2", 20, "complete"),
        ("P3", 30, "debit only"),
        ("P4", 40, "nothing"),
        ("P5", 50, "debit only"),
        ("P6", 60, "complete"),
    ];
    for (id, amount, done) in payments {
        broker
            .publish(
                &mut past,
                PAYMENTS,
                PubsubMessage::new(format!("{id} {amount}")),
            )
            .expect("publish");
        let batch = broker.pull(&mut past, BILLING, 1).expect("pull");
        let ack_ids: Vec<String> = batch.iter().map(|r| r.ack_id.clone()).collect();
        // v1 acknowledged on receipt, whatever happened next.
        broker
            .acknowledge(&mut past, BILLING, &ack_ids)
            .expect("ack");
        if done != "nothing" {
            ledger
                .execute(
                    "INSERT INTO debits (payment_id, amount) VALUES (?1, ?2)",
                    (id, amount),
                )
                .expect("v1 debit");
        }
        if done == "complete" {
            mail.sent.push(("receipt", id.to_string()));
        }
        broker.advance(&mut past, 10);
    }
    // v2 is deployed at t = 60; P7 arrives afterwards and waits.
    broker
        .publish(&mut past, PAYMENTS, PubsubMessage::new("P7 70"))
        .expect("publish");
    broker.advance(&mut past, 5);
}

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

const PAYMENT_IDS: [&str; 7] = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"];
/// The payments published inside `PLAN`'s interval: the ones the replay must complete.
const INTERVAL_PAYMENTS: [&str; 4] = ["P3", "P4", "P5", "P6"];
const FAULTY_ROUNDS: usize = 3;
const DRAIN_ROUNDS: usize = 8;

/// One graded replay schedule.
pub fn replay_scenario(sim: &mut Sim, invariants: &[ReplayInvariant]) -> Verdict {
    let mut broker = Broker::new();
    broker.create_topic(PAYMENTS).expect("topic");
    let mut config = SubscriptionConfig::new(BILLING, PAYMENTS);
    config.retain_acked_messages = true;
    broker.create_subscription(config).expect("subscription");
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    let mut mail = MailProvider::default();
    incident(&mut broker, &ledger, &mut mail);
    sim.note("history", || {
        "v1 (t = 0..60 s): P1, P2, P6 debited and receipted; P3, P5 debited, no receipt; \
         P4 neither; all acknowledged. P7 published at 60 s, waiting."
            .into()
    });

    let run = {
        let mut billing = Billing {
            sim,
            broker: &mut broker,
            ledger: &ledger,
            mail: &mut mail,
        };
        start_replay(&mut billing, &PLAN)
    };
    let mut completed_with_missing: Option<Vec<String>> = None;
    let mut declared = false;
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        let batch = broker.pull(sim, BILLING, 10).expect("pull");
        let mut billing = Billing {
            sim,
            broker: &mut broker,
            ledger: &ledger,
            mail: &mut mail,
        };
        for received in &batch {
            if let Err(crash) = handle_payment(&mut billing, run, received) {
                sim.event("billing", Glyph::Recover, || {
                    (
                        "a new billing process starts".into(),
                        format!("{crash}; the open transaction rolled back, memory lost"),
                    )
                });
                break;
            }
        }
        broker.advance(sim, 10);
        let billing = Billing {
            sim,
            broker: &mut broker,
            ledger: &ledger,
            mail: &mut mail,
        };
        if replay_complete(&billing, run) {
            let missing: Vec<String> = INTERVAL_PAYMENTS
                .iter()
                .filter(|id| debits(&ledger, id) != 1 || mail.count("receipt", id) != 1)
                .map(|id| id.to_string())
                .collect();
            sim.note("operator", || format!("replay run {run} declared complete"));
            if !missing.is_empty() {
                completed_with_missing = Some(missing);
            }
            declared = true;
            break;
        }
    }
    // Whatever is left (P7, redeliveries) is drained by the normal consumer v2 runs,
    // with the faults over.
    sim.heal();
    for _ in 0..DRAIN_ROUNDS {
        if broker.backlog(BILLING) == 0 {
            break;
        }
        let batch = broker.pull(sim, BILLING, 10).expect("pull");
        let mut billing = Billing {
            sim,
            broker: &mut broker,
            ledger: &ledger,
            mail: &mut mail,
        };
        for received in &batch {
            handle_payment(&mut billing, run, received).expect("healed runs do not crash");
        }
        broker.advance(sim, 10);
    }
    check_replay(
        &ledger,
        &mail,
        run,
        declared,
        completed_with_missing,
        invariants,
    )
}

fn debits(ledger: &Connection, payment_id: &str) -> i64 {
    ledger
        .query_row(
            "SELECT COUNT(*) FROM debits WHERE payment_id = ?1",
            [payment_id],
            |r| r.get(0),
        )
        .expect("count debits")
}

fn check_replay(
    ledger: &Connection,
    mail: &MailProvider,
    run: i64,
    declared: bool,
    completed_with_missing: Option<Vec<String>>,
    invariants: &[ReplayInvariant],
) -> Verdict {
    for invariant in invariants {
        match invariant {
            ReplayInvariant::EveryEffectOnce => {
                for id in PAYMENT_IDS {
                    let (d, r) = (debits(ledger, id), mail.count("receipt", id));
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
            }
            ReplayInvariant::RecoveryToldFromDuplication => {
                let log: BTreeMap<String, String> = ledger
                    .prepare("SELECT payment_id, outcome FROM replay_log WHERE run_id = ?1")
                    .and_then(|mut s| {
                        s.query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?
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
                            format!("Then run {run}'s replay_log says {log:?}."),
                            format!(
                                "Contradiction: it should say {expected:?}. Decide 'recovered' or 'duplicate' from the state before this run touched the payment, and record the decision in the transaction that applies the debit, so a crash and a redelivery cannot turn a recovery into a duplicate."
                            ),
                        ],
                    ));
                }
            }
            ReplayInvariant::CompletionCriteria => {
                let recorded: Option<(i64, i64, String)> = ledger
                    .query_row(
                        "SELECT from_time, to_time, consumer_version FROM replay_runs WHERE run_id = ?1",
                        [run],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .ok();
                if recorded
                    != Some((
                        PLAN.from as i64,
                        PLAN.to as i64,
                        PLAN.consumer_version.to_string(),
                    ))
                {
                    return Err(Violation::new(
                        "the replay run records its interval and consumer version",
                        &[
                            format!("Let run {run} be the replay of [{}, {}) by {}.", PLAN.from, PLAN.to, PLAN.consumer_version),
                            format!("Then replay_runs holds {recorded:?} for it."),
                            "Contradiction: a replay that does not say what it covered and which code ran it cannot be audited or resumed.".into(),
                        ],
                    ));
                }
                if let Some(missing) = completed_with_missing {
                    return Err(Violation::new(
                        "completion is declared only when the work is complete",
                        &[
                            format!("Let run {run} be declared complete."),
                            format!("Then {} still lacked a debit or a receipt (or had two).", missing.join(", ")),
                            "Contradiction: an empty pull or an empty backlog is not evidence; delivery after a seek is not instantaneous. Complete means every expected payment of the interval is in the run's log with its effects present.".into(),
                        ],
                    ));
                }
                if !declared {
                    return Err(Violation::new(
                        "the replay declares completion once the work is done",
                        &[
                            format!("Let run {run} replay [{}, {}).", PLAN.from, PLAN.to),
                            "Then, after the faults stopped and every round ran, it was never declared complete.".into(),
                            "Contradiction: a procedure needs a completion criterion it can meet.".into(),
                        ],
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Explores every replay schedule with up to `max_faults` faults.
pub fn explore_replay(max_faults: usize, invariants: &'static [ReplayInvariant]) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: "replay",
        max_faults,
    };
    fault::explore(scope, |sim| replay_scenario(sim, invariants))
}

// ---- reminders ------------------------------------------------------------------------

/// The reminder process's view: the broker (through the subscription the delivery came
/// from), the ledger, the mail provider.
pub struct Reminders<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
    mail: &'a mut MailProvider,
    subscription: &'static str,
}

impl<'a> Reminders<'a> {
    // ANCHOR: reminder_steps
    /// The subscription this delivery came from: `reminders`, or `reminders-dead` once the
    /// broker forwarded the message as a dead letter.
    pub fn subscription(&self) -> &'static str {
        self.subscription
    }

    /// Opens a ledger transaction. Dropping it without `commit` rolls it back.
    pub fn begin(&self) -> Transaction<'a> {
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.sim.crash_point("reminders:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("reminders", || "COMMIT".into());
        self.sim.crash_point("reminders:after-commit")
    }

    /// Sends one reminder e-mail for `invoice`. The provider honours `idempotency_key`: a
    /// second send with the same key sends nothing. `MailTimeout` means the e-mail may or
    /// may not have gone out.
    pub fn send_reminder(
        &mut self,
        invoice: &str,
        idempotency_key: &str,
    ) -> Result<(), MailTimeout> {
        self.mail
            .send(self.sim, "reminder", invoice, Some(idempotency_key))
    }

    /// Acknowledges the delivery: the broker stops delivering it (best effort).
    pub fn ack(&mut self, received: &ReceivedMessage) {
        self.broker
            .acknowledge(
                self.sim,
                self.subscription,
                std::slice::from_ref(&received.ack_id),
            )
            .expect("ack");
    }

    /// Nacks the delivery: the broker delivers it again (and counts an attempt).
    pub fn nack(&mut self, received: &ReceivedMessage) {
        self.broker
            .modify_ack_deadline(
                self.sim,
                self.subscription,
                std::slice::from_ref(&received.ack_id),
                0,
            )
            .expect("nack");
    }
    // ANCHOR_END: reminder_steps
}

const REMINDER_FAULTY_ROUNDS: usize = 8;
const REMINDER_DRAIN_ROUNDS: usize = 12;

/// The reminder world: topics, subscriptions, the dead-letter policy and its grants.
pub fn reminder_broker() -> Broker {
    let mut broker = Broker::new();
    broker.create_topic(INVOICES).expect("topic");
    broker
        .create_topic(REMINDERS_DEAD)
        .expect("dead-letter topic");
    let mut config = SubscriptionConfig::new(REMINDERS, INVOICES);
    config.dead_letter_policy = Some(DeadLetterPolicy {
        dead_letter_topic: REMINDERS_DEAD.into(),
        max_delivery_attempts: 5,
    });
    broker.create_subscription(config).expect("subscription");
    broker
        .create_subscription(SubscriptionConfig::new(REMINDERS_DEAD, REMINDERS_DEAD))
        .expect("dead-letter subscription");
    broker.add_iam_binding(
        Resource::Topic(REMINDERS_DEAD.into()),
        ROLE_PUBLISHER,
        SERVICE_AGENT,
    );
    broker.add_iam_binding(
        Resource::Subscription(REMINDERS.into()),
        ROLE_SUBSCRIBER,
        SERVICE_AGENT,
    );
    broker
}

/// One graded reminder schedule; returns the number of reminder e-mails really sent.
pub fn reminder_run(sim: &mut Sim) -> usize {
    let mut broker = reminder_broker();
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    let mut mail = MailProvider::default();
    broker
        .publish(sim, INVOICES, PubsubMessage::new("INV-7"))
        .expect("publish");
    for round in 0..REMINDER_FAULTY_ROUNDS + REMINDER_DRAIN_ROUNDS {
        if round == REMINDER_FAULTY_ROUNDS {
            sim.heal();
        }
        if broker.backlog(REMINDERS) + broker.backlog(REMINDERS_DEAD) == 0 {
            break;
        }
        for subscription in [REMINDERS, REMINDERS_DEAD] {
            let batch = broker.pull(sim, subscription, 1).expect("pull");
            let mut reminders = Reminders {
                sim,
                broker: &mut broker,
                ledger: &ledger,
                mail: &mut mail,
                subscription,
            };
            for received in &batch {
                if let Err(crash) = on_reminder(&mut reminders, received) {
                    sim.event("reminders", Glyph::Recover, || {
                        (
                            "a new reminder process starts".into(),
                            format!("{crash}; the open transaction rolled back, memory lost"),
                        )
                    });
                    break;
                }
            }
        }
        broker.advance(sim, 10);
    }
    mail.count("reminder", "INV-7")
}

pub fn reminder_scenario(sim: &mut Sim) -> Verdict {
    let sent = reminder_run(sim);
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

/// Explores every reminder schedule with up to `max_faults` faults.
pub fn explore_reminders(max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "06",
        scenario: "reminders",
        max_faults,
    };
    fault::explore(scope, reminder_scenario)
}

fn replay_replay(token: &Token) -> Replay {
    fault::replay(token, |sim| replay_scenario(sim, &ALL_REPLAY_INVARIANTS))
}

fn replay_reminders(token: &Token) -> Replay {
    fault::replay(token, reminder_scenario)
}

/// The scenarios `cargo labs replay 06 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] =
    &[("replay", replay_replay), ("reminders", replay_reminders)];

/// The figures of chapter 6.
pub fn figures() -> Vec<(&'static str, String)> {
    let replay = Sequence::new(
        "Replaying an interval where work partly exists",
        &[
            "operator",
            "Pub/Sub",
            "billing v2",
            "ledger (SQLite)",
            "mail provider",
        ],
    )
    .call(
        "operator",
        "ledger (SQLite)",
        "record run: [20 s, 60 s), v2, expect P3…P6",
    )
    .call("operator", "Pub/Sub", "seek billing to 20 s")
    .note("Pub/Sub", "not instantaneous")
    .reply("Pub/Sub", "billing v2", "pull: nothing yet")
    .call("Pub/Sub", "billing v2", "P3, P4, P5, P6")
    .call("billing v2", "ledger (SQLite)", "P3 debited? yes")
    .call("billing v2", "mail provider", "P3 receipt sent? no")
    .call("billing v2", "ledger (SQLite)", "log P3 recovered; COMMIT")
    .call("billing v2", "mail provider", "send receipt P3")
    .call(
        "billing v2",
        "ledger (SQLite)",
        "P4 debited? no: debit; log recovered; COMMIT",
    )
    .call(
        "billing v2",
        "ledger (SQLite)",
        "P6 debited, receipt sent: log duplicate",
    )
    .call("billing v2", "Pub/Sub", "ack each, after its effects exist")
    .call(
        "operator",
        "ledger (SQLite)",
        "every expected payment logged, effects present?",
    )
    .note("operator", "P3–P5 recovered, P6 duplicate");
    let reminders = Sequence::new(
        "Five reminders: a counter of its own, not delivery attempts",
        &["Pub/Sub", "reminders", "ledger (SQLite)", "mail provider"],
    )
    .call("Pub/Sub", "reminders", "INV-7 (attempt 4)")
    .call("reminders", "ledger (SQLite)", "sent = 3")
    .call("reminders", "mail provider", "send reminder, key INV-7/4")
    .call("reminders", "ledger (SQLite)", "sent = 4; COMMIT")
    .call("reminders", "Pub/Sub", "nack")
    .note("Pub/Sub", "forwards early (best effort)")
    .call("Pub/Sub", "reminders", "INV-7 from reminders-dead")
    .call("reminders", "ledger (SQLite)", "sent = 4")
    .call("reminders", "mail provider", "send reminder, key INV-7/5")
    .call("reminders", "ledger (SQLite)", "sent = 5; COMMIT")
    .call("reminders", "Pub/Sub", "ack: five sent");
    vec![
        ("06-dead-letters-replay.svg", replay.to_svg()),
        ("06-dead-letters-reminders.svg", reminders.to_svg()),
    ]
}
