//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! Two SQLite databases on disk: `outbox.db` (orders and their publication intents, the
//! relay's side) and `receiver.db` (the effects the receiver applied, the outside world).
//! Between them a network whose every call goes through the fault core: the response can
//! arrive, the request can be refused before the receiver applied it (RESOURCE_EXHAUSTED,
//! definitely not applied), the response can be lost after the receiver applied the
//! request, be lost with the request (not applied), or the request can land later, after
//! the relay gave up waiting. The relay process can crash after each of its steps; at a
//! crash its connection to `outbox.db` is closed and everything in its memory is lost,
//! then a new relay process opens the file again and runs `relay_outbox` from the start.

use crate::relay::{apply_effect, relay_outbox};
use labkit::fault::{
    self, Crash, Exploration, Fate, Glyph, Replay, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::Sequence;
use rusqlite::{Connection, Transaction};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The intents every graded schedule starts with.
pub const INTENTS: [(&str, i64); 2] = [("S1", 120), ("S2", 80)];

/// One row of the outbox: the intent to publish an order's effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    pub order_id: String,
    pub amount: i64,
}

/// What the receiver answers when it accepts a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The effect was applied now.
    Applied,
    /// The receiver already held this effect under this identity, with the same amount.
    Existing,
}

/// Why the receiver refused a delivery.
#[derive(Debug)]
pub enum ReceiverError {
    /// The identity is known with a different amount: not a retry, a collision.
    IdentityCollision {
        order_id: String,
        held: i64,
        offered: i64,
    },
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for ReceiverError {
    fn from(e: rusqlite::Error) -> Self {
        ReceiverError::Sql(e)
    }
}

/// What the relay sees when it calls the receiver over the network.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The response arrived.
    Delivered(Delivery),
    /// RESOURCE_EXHAUSTED: the receiver refused the request before applying it (it was
    /// throttled). Definitely not applied: the YDB SDKs retry this code even for a call
    /// that is not idempotent. (Not UNAVAILABLE: a broken connection's UNAVAILABLE says
    /// nothing about whether the server applied the call.)
    ResourceExhausted,
    /// DEADLINE_EXCEEDED: no response. The effect may or may not have been applied.
    DeadlineExceeded,
    /// The receiver refused the request (an identity collision).
    Rejected(String),
}

/// The receiver's durable table. `seq` numbers every applied effect, so a receiver that
/// does not recognise identities shows up as two rows for one order.
pub const RECEIVER_SCHEMA: &str = "CREATE TABLE effects (seq INTEGER PRIMARY KEY, order_id TEXT NOT NULL, amount INTEGER NOT NULL);";

/// The receiver service: its own database, outside the relay's process.
struct Receiver {
    db: Connection,
}

impl Receiver {
    fn handle(&mut self, order_id: &str, amount: i64) -> Result<Delivery, ReceiverError> {
        let tx: Transaction = self.db.transaction()?;
        let answer = apply_effect(&tx, order_id, amount)?;
        tx.commit()?;
        Ok(answer)
    }
}

/// The network and the receiver behind it. Requests still in flight survive a crash of
/// the relay: they are not in its memory.
struct Network {
    receiver: Receiver,
    in_flight: Vec<Intent>,
}

impl Network {
    /// Requests that were "applied later" land now, before anything else reaches the
    /// receiver.
    fn land_late_requests(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let answer = self.receiver.handle(&late.order_id, late.amount);
            sim.event("network", Glyph::Fault, || {
                (
                    String::new(),
                    format!("late request {} lands: {answer:?}", late.order_id),
                )
            });
        }
    }

    fn call(&mut self, sim: &mut Sim, intent: &Intent) -> Outcome {
        self.land_late_requests(sim);
        let fate = sim.fate("network:deliver", &Fate::ALL);
        let answer = match fate {
            Fate::Ok | Fate::AppliedResponseLost => {
                Some(self.receiver.handle(&intent.order_id, intent.amount))
            }
            Fate::AppliedLater => {
                self.in_flight.push(intent.clone());
                None
            }
            Fate::Rejected | Fate::NotApplied => None,
        };
        let outcome = match (fate, &answer) {
            (Fate::Ok, Some(Ok(delivery))) => Outcome::Delivered(*delivery),
            (Fate::Ok, Some(Err(e))) => Outcome::Rejected(format!("{e:?}")),
            (Fate::Rejected, _) => Outcome::ResourceExhausted,
            _ => Outcome::DeadlineExceeded,
        };
        let glyph = if fate.is_indefinite() {
            Glyph::Indefinite
        } else if fate == Fate::Rejected {
            Glyph::Error
        } else {
            Glyph::Normal
        };
        sim.event("relay", glyph, || {
            let truth = match &answer {
                Some(a) => format!("{}: receiver answered {a:?}", fate.label()),
                None => fate.label().to_string(),
            };
            (
                format!(
                    "deliver {} ({}) -> {outcome:?}",
                    intent.order_id, intent.amount
                ),
                truth,
            )
        });
        outcome
    }
}

/// The relay process's view of the world: its own connection to `outbox.db` (closed at a
/// crash) and the network. Each step ends at a crash point.
pub struct Relay<'a> {
    sim: &'a mut Sim,
    outbox: Connection,
    network: &'a mut Network,
}

impl Relay<'_> {
    // ANCHOR: relay_steps
    /// Reads every intent not yet marked sent, in order.
    pub fn unsent_intents(&mut self) -> Result<Vec<Intent>, Crash> {
        let mut statement = self
            .outbox
            .prepare("SELECT id, amount FROM outbox WHERE sent = 0 ORDER BY id")
            .expect("outbox query");
        let intents: Vec<Intent> = statement
            .query_map([], |r| {
                Ok(Intent {
                    order_id: r.get(0)?,
                    amount: r.get(1)?,
                })
            })
            .and_then(|rows| rows.collect())
            .expect("outbox rows");
        self.sim.note("relay", || {
            let ids: Vec<&str> = intents.iter().map(|i| i.order_id.as_str()).collect();
            format!("read {} unsent intent(s): {}", ids.len(), ids.join(", "))
        });
        self.sim.crash_point("relay:after-read")?;
        Ok(intents)
    }

    /// Sends one intent to the receiver and waits for the answer.
    pub fn deliver(&mut self, intent: &Intent) -> Result<Outcome, Crash> {
        let outcome = self.network.call(self.sim, intent);
        self.sim.crash_point("relay:after-deliver")?;
        Ok(outcome)
    }

    /// Marks one intent sent, in its own transaction.
    pub fn mark_sent(&mut self, order_id: &str) -> Result<(), Crash> {
        self.outbox
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])
            .expect("mark sent");
        self.sim
            .note("relay", || format!("mark {order_id} sent (committed)"));
        self.sim.crash_point("relay:after-mark")
    }
    // ANCHOR_END: relay_steps
}

static WORLDS: AtomicU64 = AtomicU64::new(0);

/// A fresh folder with the two databases, removed when dropped.
struct World {
    dir: PathBuf,
}

impl World {
    fn create() -> World {
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("boundary-lab01-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("world folder");
        let outbox = open(&dir.join("outbox.db"));
        outbox
            .execute_batch(
                "CREATE TABLE orders (id TEXT PRIMARY KEY, amount INTEGER NOT NULL);
                 CREATE TABLE outbox (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, sent INTEGER NOT NULL);",
            )
            .expect("outbox schema");
        for (id, amount) in INTENTS {
            outbox
                .execute_batch(&format!(
                    "BEGIN; INSERT INTO orders VALUES ('{id}', {amount});
                     INSERT INTO outbox VALUES ('{id}', {amount}, 0); COMMIT;"
                ))
                .expect("enqueue");
        }
        open(&dir.join("receiver.db"))
            .execute_batch(RECEIVER_SCHEMA)
            .expect("receiver schema");
        World { dir }
    }

    fn outbox_path(&self) -> PathBuf {
        self.dir.join("outbox.db")
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn open(path: &Path) -> Connection {
    let db = Connection::open(path).expect("open database");
    // A crash here is a process crash: what a commit wrote is in the OS page cache and
    // survives, so `synchronous` makes no difference and OFF keeps the runs fast.
    db.execute_batch("PRAGMA synchronous = OFF;")
        .expect("pragma");
    db
}

/// The invariants the graded suite checks, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Every intent has an effect at the receiver.
    NoEffectLost,
    /// No intent has more than one effect at the receiver.
    NoEffectTwice,
    /// Every intent is marked sent in the end.
    EveryIntentMarkedSent,
}

pub const ALL_INVARIANTS: [Invariant; 3] = [
    Invariant::NoEffectLost,
    Invariant::NoEffectTwice,
    Invariant::EveryIntentMarkedSent,
];

fn check(world: &World, network: &Network, invariants: &[Invariant]) -> Verdict {
    let outbox = open(&world.outbox_path());
    for (id, amount) in INTENTS {
        let effects: Vec<(i64, i64)> = network
            .receiver
            .db
            .prepare("SELECT seq, amount FROM effects WHERE order_id = ?1 ORDER BY seq")
            .and_then(|mut s| s.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .expect("effects");
        let sent: bool = outbox
            .query_row("SELECT sent FROM outbox WHERE id = ?1", [id], |r| r.get(0))
            .expect("sent flag");
        for invariant in invariants {
            match invariant {
                Invariant::NoEffectLost if effects.is_empty() => {
                    return Err(Violation::new(
                        "no effect is lost",
                        &[
                            format!("Let {id} be the intent ({id}, {amount}) committed in the outbox."),
                            format!(
                                "Then, after every crash was recovered and the network healed, the receiver holds no effect for {id}{}.",
                                if sent { " although the outbox marks it sent" } else { "" }
                            ),
                            "Contradiction: a committed intent must take effect. Mark an intent sent only when the receiver's answer proves the effect exists.".into(),
                        ],
                    ));
                }
                Invariant::NoEffectTwice if effects.len() > 1 => {
                    let seqs: Vec<String> = effects.iter().map(|(s, _)| s.to_string()).collect();
                    return Err(Violation::new(
                        "no effect is applied twice",
                        &[
                            format!("Let {id} be the intent ({id}, {amount}) in the outbox."),
                            format!(
                                "Then the receiver applied it {} times (effect rows {}).",
                                effects.len(),
                                seqs.join(" and ")
                            ),
                            "Contradiction: one intent, one effect. The relay may send an intent again after a crash or a lost response; the receiver must recognise the identity it already applied.".into(),
                        ],
                    ));
                }
                Invariant::EveryIntentMarkedSent if !sent => {
                    return Err(Violation::new(
                        "every intent is marked sent in the end",
                        &[
                            format!("Let {id} be the intent ({id}, {amount}) in the outbox."),
                            format!(
                                "Then, after the faults stopped and the relay ran twice more, {id} is still unsent ({} effect(s) at the receiver).",
                                effects.len()
                            ),
                            "Contradiction: a healed relay must finish its work. Mark the intent sent once the receiver confirms it (Applied or Existing).".into(),
                        ],
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// One graded schedule: three relay processes that may crash or lose responses, then a
/// healed network and two more fault-free relay runs; then the invariants.
pub fn relay_scenario(sim: &mut Sim, invariants: &[Invariant]) -> Verdict {
    let world = World::create();
    let mut network = Network {
        receiver: Receiver {
            db: open(&world.dir.join("receiver.db")),
        },
        in_flight: Vec::new(),
    };
    for process in 1..=5 {
        if process == 4 {
            // The faulty phase is over: requests still in flight land, nothing else fails.
            sim.heal();
            network.land_late_requests(sim);
        }
        let mut relay = Relay {
            sim,
            outbox: open(&world.outbox_path()),
            network: &mut network,
        };
        let result = relay_outbox(&mut relay);
        drop(relay);
        if let Err(crash) = result {
            sim.event("relay", Glyph::Recover, || {
                (
                    format!("relay process {} starts; reopens outbox.db", process + 1),
                    format!("{crash}; its memory is gone, the files remain"),
                )
            });
        }
    }
    check(&world, &network, invariants)
}

/// Explores every schedule with up to `max_faults` faults against `invariants`.
pub fn explore_relay(max_faults: usize, invariants: &'static [Invariant]) -> Exploration {
    let scope = Scope {
        lab: "01",
        scenario: "relay",
        max_faults,
    };
    fault::explore(scope, |sim| relay_scenario(sim, invariants))
}

fn replay_relay(token: &Token) -> Replay {
    fault::replay(token, |sim| relay_scenario(sim, &ALL_INVARIANTS))
}

/// The scenarios `cargo labs replay 01 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("relay", replay_relay)];

/// The figures of chapter 1.
pub fn figures() -> Vec<(&'static str, String)> {
    let relay = Sequence::new(
        "The outbox relay: a lost response, a crash, a recognised retry",
        &["application", "outbox.db", "relay", "receiver"],
    )
    .call(
        "application",
        "outbox.db",
        "BEGIN; INSERT order S1; INSERT intent S1; COMMIT",
    )
    .divider("relay process 1")
    .call("relay", "outbox.db", "SELECT unsent intents")
    .reply("outbox.db", "relay", "S1 (120)")
    .call("relay", "receiver", "deliver S1, 120")
    .note("receiver", "applies S1 (new identity)")
    .lost("receiver", "relay", "Applied")
    .note("relay", "DEADLINE_EXCEEDED: outcome unknown")
    .crash("relay", "relay crashes; S1 stays unsent")
    .divider("relay process 2 (recovery)")
    .call("relay", "outbox.db", "SELECT unsent intents")
    .reply("outbox.db", "relay", "S1 (120)")
    .call("relay", "receiver", "deliver S1, 120 (same identity)")
    .note("receiver", "recognises S1: no new effect")
    .reply("receiver", "relay", "Existing")
    .call(
        "relay",
        "outbox.db",
        "UPDATE outbox SET sent = 1 WHERE id = 'S1'",
    );
    vec![("01-outbox-relay.svg", relay.to_svg())]
}
