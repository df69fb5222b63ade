//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! A topic `ledger-events` carries a bank's ledger effects, one ordering key per account,
//! to the subscription `ledger` (message ordering enabled, 10-second ack deadline) on the
//! simulated Pub/Sub broker. The consumer keeps the ledger in SQLite: `balances`, the
//! `applied` table you may use to recognise effects, and `effect_log`, the audit trail
//! `Consumer::apply` writes every time it applies an effect (it is how the graded suite
//! counts). Every fault goes through the fault core: an acknowledgement can be lost, the
//! ledger can answer "busy" (a definite, transient refusal), and the consumer process can
//! crash before or after it commits. At a crash the open transaction is rolled back and
//! the consumer's memory is gone; committed rows stay (the connection stands for the
//! file on disk), and a new consumer process pulls again.

use crate::consumer::handle;
use labkit::fault::{
    self, Crash, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::Sequence;
use rusqlite::{Connection, Transaction};
use sim_pubsub::{Broker, Message, PubsubMessage, ReceivedMessage, SubscriptionConfig};
use std::collections::BTreeMap;

pub const TOPIC: &str = "ledger-events";
pub const SUBSCRIPTION: &str = "ledger";

/// What one ledger message asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Deposit(i64),
    /// Adds `percent`% of the balance (rounded down). Not commutative with a deposit:
    /// the order of an account's effects changes its balance.
    Interest(i64),
}

/// One effect on one account: the account's `seq`-th effect (1, 2, 3, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    pub account: String,
    pub seq: i64,
    pub op: Op,
}

impl Effect {
    /// Reads the effect a message carries (`"A#2 interest 10"`).
    pub fn parse(message: &Message) -> Effect {
        let mut words = message.data.split_whitespace();
        let (account, seq) = words
            .next()
            .and_then(|w| w.split_once('#'))
            .expect("account#seq");
        let kind = words.next().expect("operation");
        let amount: i64 = words.next().and_then(|w| w.parse().ok()).expect("amount");
        Effect {
            account: account.to_string(),
            seq: seq.parse().expect("seq"),
            op: if kind == "interest" {
                Op::Interest(amount)
            } else {
                Op::Deposit(amount)
            },
        }
    }

    pub fn data(&self) -> String {
        match self.op {
            Op::Deposit(n) => format!("{}#{} deposit {n}", self.account, self.seq),
            Op::Interest(p) => format!("{}#{} interest {p}", self.account, self.seq),
        }
    }

    fn apply_to(&self, balance: i64) -> i64 {
        match self.op {
            Op::Deposit(n) => balance + n,
            Op::Interest(p) => balance + balance * p / 100,
        }
    }
}

/// The effects every graded schedule publishes, in publish order.
pub fn graded_effects() -> Vec<Effect> {
    let e = |account: &str, seq, op| Effect {
        account: account.into(),
        seq,
        op,
    };
    vec![
        e("A", 1, Op::Deposit(100)),
        e("B", 1, Op::Deposit(40)),
        e("A", 2, Op::Interest(10)),
        e("B", 2, Op::Interest(50)),
    ]
}

/// The balances of the fault-free run: each account's effects applied once, in order.
pub fn expected_balances(effects: &[Effect]) -> BTreeMap<String, i64> {
    let mut balances = BTreeMap::new();
    for effect in effects {
        let balance = balances.entry(effect.account.clone()).or_insert(0);
        *balance = effect.apply_to(*balance);
    }
    balances
}

/// The ledger's tables. `applied` is yours to use; `effect_log` is the audit trail.
pub const LEDGER_SCHEMA: &str = "
    CREATE TABLE balances (account TEXT PRIMARY KEY, balance INTEGER NOT NULL);
    CREATE TABLE applied (account TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL,
                          PRIMARY KEY (account, seq));
    CREATE TABLE effect_log (n INTEGER PRIMARY KEY, account TEXT NOT NULL, seq INTEGER NOT NULL);";

/// The ledger refused an effect for now (SQLITE_BUSY): nothing was applied, trying again
/// later will work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy;

/// One consumer process: the broker it pulls from, its connection to the ledger, the
/// fault core. Each step that touches durable state ends at a crash point.
pub struct Consumer<'a> {
    sim: &'a mut Sim,
    broker: &'a mut Broker,
    ledger: &'a Connection,
}

impl<'a> Consumer<'a> {
    // ANCHOR: consumer_steps
    /// Opens a ledger transaction. Dropping it without `commit` rolls it back.
    pub fn begin(&self) -> Transaction<'a> {
        let ledger: &'a Connection = self.ledger;
        ledger.unchecked_transaction().expect("BEGIN")
    }

    /// Applies one effect to `balances` inside `tx` (and writes the audit row). The
    /// ledger may answer `Busy`: nothing was applied.
    pub fn apply(&mut self, tx: &Transaction, effect: &Effect) -> Result<(), Busy> {
        if self.sim.choose("ledger:apply", &["ok", "busy"]) == 1 {
            self.sim.event("consumer", Glyph::Error, || {
                (
                    format!("apply {} -> SQLITE_BUSY", effect.data()),
                    "not applied".into(),
                )
            });
            return Err(Busy);
        }
        let balance: i64 = tx
            .query_row(
                "SELECT COALESCE((SELECT balance FROM balances WHERE account = ?1), 0)",
                [&effect.account],
                |r| r.get(0),
            )
            .expect("read balance");
        let after = effect.apply_to(balance);
        tx.execute(
            "INSERT INTO balances VALUES (?1, ?2)
             ON CONFLICT (account) DO UPDATE SET balance = excluded.balance",
            (&effect.account, after),
        )
        .expect("write balance");
        tx.execute(
            "INSERT INTO effect_log (account, seq) VALUES (?1, ?2)",
            (&effect.account, effect.seq),
        )
        .expect("audit");
        self.sim.note("consumer", || {
            format!(
                "apply {}: balance {balance} -> {after} (uncommitted)",
                effect.data()
            )
        });
        Ok(())
    }

    /// Commits `tx`. The process may crash just before or just after the commit.
    pub fn commit(&mut self, tx: Transaction<'a>) -> Result<(), Crash> {
        self.sim.crash_point("consumer:before-commit")?;
        tx.commit().expect("COMMIT");
        self.sim.note("consumer", || "COMMIT".into());
        self.sim.crash_point("consumer:after-commit")
    }

    /// Acknowledges one delivery. The ack is best effort: it may be lost, and you cannot
    /// tell. (No crash point of its own: the crash just after the commit is the crash
    /// before the ack.)
    pub fn ack(&mut self, received: &ReceivedMessage) -> Result<(), Crash> {
        self.broker
            .acknowledge(
                self.sim,
                SUBSCRIPTION,
                std::slice::from_ref(&received.ack_id),
            )
            .expect("acknowledge");
        Ok(())
    }

    /// Nacks one delivery: the broker delivers it again (and, with ordering, the later
    /// messages of its key that were delivered).
    pub fn nack(&mut self, received: &ReceivedMessage) -> Result<(), Crash> {
        self.broker
            .modify_ack_deadline(
                self.sim,
                SUBSCRIPTION,
                std::slice::from_ref(&received.ack_id),
                0,
            )
            .expect("nack");
        Ok(())
    }

    /// Writes a line in the timeline (for your own debugging).
    pub fn note(&mut self, text: impl FnOnce() -> String) {
        self.sim.note("consumer", text);
    }
    // ANCHOR_END: consumer_steps
}

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

fn check(ledger: &Connection, effects: &[Effect], invariants: &[Invariant]) -> Verdict {
    let log: Vec<(String, i64)> = ledger
        .prepare("SELECT account, seq FROM effect_log ORDER BY n")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("audit trail");
    let balances: BTreeMap<String, i64> = ledger
        .prepare("SELECT account, balance FROM balances")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("balances");
    let expected = expected_balances(effects);
    for invariant in invariants {
        match invariant {
            Invariant::NoMessageLost => {
                for effect in effects {
                    if !log
                        .iter()
                        .any(|(a, s)| *a == effect.account && *s == effect.seq)
                    {
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
            }
            Invariant::NoEffectTwice => {
                for effect in effects {
                    let n = log
                        .iter()
                        .filter(|(a, s)| *a == effect.account && *s == effect.seq)
                        .count();
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
            }
            Invariant::InSequence => {
                let mut last: BTreeMap<&str, i64> = BTreeMap::new();
                for (account, seq) in &log {
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
            }
            Invariant::BalancesMatch => {
                if balances != expected {
                    return Err(Violation::new(
                        "the balances equal the fault-free run's",
                        &[
                            format!("Let {expected:?} be the balances of the fault-free run."),
                            format!("Then this schedule ends with {balances:?}."),
                            "Contradiction: faults may delay an effect, never change the business result.".into(),
                        ],
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Pulls before the faults stop; then drain rounds, fault-free.
const FAULTY_ROUNDS: usize = 3;
const DRAIN_ROUNDS: usize = 6;

/// One graded schedule: publish the effects, run consumer processes round after round
/// (each pulls, handles its batch in order, and the clock then moves past the ack
/// deadline); after the faulty rounds heal and drain; then check the invariants.
pub fn ledger_scenario(sim: &mut Sim, invariants: &[Invariant]) -> Verdict {
    let effects = graded_effects();
    let mut broker = Broker::new();
    broker.create_topic(TOPIC).expect("topic");
    let mut config = SubscriptionConfig::new(SUBSCRIPTION, TOPIC);
    config.enable_message_ordering = true;
    broker.create_subscription(config).expect("subscription");
    for effect in &effects {
        broker
            .publish(
                sim,
                TOPIC,
                PubsubMessage::with_key(effect.data(), effect.account.clone()),
            )
            .expect("publish");
    }
    let ledger = Connection::open_in_memory().expect("ledger");
    ledger.execute_batch(LEDGER_SCHEMA).expect("schema");
    for round in 0..FAULTY_ROUNDS + DRAIN_ROUNDS {
        if round == FAULTY_ROUNDS {
            sim.heal();
        }
        if broker.backlog(SUBSCRIPTION) == 0 {
            break;
        }
        let batch = broker.pull(sim, SUBSCRIPTION, 10).expect("pull");
        let mut consumer = Consumer {
            sim,
            broker: &mut broker,
            ledger: &ledger,
        };
        for received in &batch {
            if let Err(crash) = handle(&mut consumer, received) {
                sim.event("consumer", Glyph::Recover, || {
                    (
                        "a new consumer process starts".into(),
                        format!("{crash}; the open transaction rolled back, memory lost"),
                    )
                });
                break;
            }
        }
        broker.advance(sim, 10);
    }
    check(&ledger, &effects, invariants)
}

/// Explores every schedule with up to `max_faults` faults against `invariants`.
pub fn explore_ledger(max_faults: usize, invariants: &'static [Invariant]) -> Exploration {
    let scope = Scope {
        lab: "05",
        scenario: "ledger",
        max_faults,
    };
    fault::explore(scope, |sim| ledger_scenario(sim, invariants))
}

fn replay_ledger(token: &Token) -> Replay {
    fault::replay(token, |sim| ledger_scenario(sim, &ALL_INVARIANTS))
}

/// The scenarios `cargo labs replay 05 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("ledger", replay_ledger)];

/// The figures of chapter 5.
pub fn figures() -> Vec<(&'static str, String)> {
    let redelivery = Sequence::new(
        "Ordering key A: a lost ack brings back a later, acknowledged message",
        &["Pub/Sub", "consumer", "ledger (SQLite)"],
    )
    .call("Pub/Sub", "consumer", "A#1 (ack-1), A#2 (ack-2)")
    .call(
        "consumer",
        "ledger (SQLite)",
        "BEGIN; apply A#1; record (A,1); COMMIT",
    )
    .lost("consumer", "Pub/Sub", "ack ack-1")
    .note("Pub/Sub", "ack not persisted")
    .call(
        "consumer",
        "ledger (SQLite)",
        "BEGIN; apply A#2; record (A,2); COMMIT",
    )
    .call("consumer", "Pub/Sub", "ack ack-2")
    .note("Pub/Sub", "ack deadline of ack-1 passes")
    .divider("redelivery of A#1 brings back A#2, although it was acknowledged")
    .call("Pub/Sub", "consumer", "A#1 (ack-3), A#2 (ack-4)")
    .call(
        "consumer",
        "ledger (SQLite)",
        "(A,1) recorded? yes: no new effect",
    )
    .call("consumer", "Pub/Sub", "ack ack-3")
    .call(
        "consumer",
        "ledger (SQLite)",
        "(A,2) recorded? yes: no new effect",
    )
    .call("consumer", "Pub/Sub", "ack ack-4");
    let backlog = crate::observe::backlog_chart();
    vec![
        ("05-ordering-redelivery.svg", redelivery.to_svg()),
        ("05-ordering-backlog.svg", backlog.to_svg()),
    ]
}
