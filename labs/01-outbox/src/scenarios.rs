//! The graded worlds: a folder with the two databases, five relay processes that run
//! your `relay_outbox` against a network that runs your `apply_effect`, and the
//! explorations of every schedule. `cargo labs replay 01 relay TOKEN` replays one.

use crate::invariants::{self, ALL_INVARIANTS, Invariant, Refused, Settled};
use crate::world::{ApplyEffect, Crash, Faults, Network, RECEIVER_SCHEMA, Relay};
use labkit::fault::{self, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Your functions from `relay.rs`, as the graded worlds call them (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub relay_outbox: fn(&mut Relay) -> Result<(), Crash>,
    pub apply_effect: ApplyEffect,
}

/// The intents every graded schedule starts with: two identities, one amount.
pub const INTENTS: [(&str, i64); 2] = [("S1", 120), ("S2", 120)];

/// An intent whose name the receiver already holds for another amount: `(id, the
/// outbox's amount, the amount an earlier intent left under the same name)`.
pub const REFUSED: (&str, i64, i64) = ("S3", 80, 50);

static WORLDS: AtomicU64 = AtomicU64::new(0);

/// The two database files every schedule starts from, made once per process: writing
/// them is cheaper than building them again for each of the thousands of schedules.
static STARTING_FILES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();

/// A fresh folder with the two databases, removed when dropped.
struct World {
    dir: PathBuf,
}

impl World {
    fn folder() -> PathBuf {
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("boundary-lab01-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("world folder");
        dir
    }

    /// The outbox with its committed intents, and the receiver's empty table.
    fn build(dir: &Path) {
        let outbox = open(&dir.join("outbox.db"));
        outbox
            .execute_batch(
                "CREATE TABLE orders (id TEXT PRIMARY KEY, amount INTEGER NOT NULL);
                 CREATE TABLE outbox (id TEXT PRIMARY KEY, amount INTEGER NOT NULL,
                                      sent INTEGER NOT NULL);",
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
    }

    fn create() -> World {
        let (outbox, receiver) = STARTING_FILES.get_or_init(|| {
            let built = World {
                dir: World::folder(),
            };
            World::build(&built.dir);
            let read = |name: &str| std::fs::read(built.dir.join(name)).expect("database file");
            (read("outbox.db"), read("receiver.db"))
        });
        let dir = World::folder();
        std::fs::write(dir.join("outbox.db"), outbox).expect("outbox.db");
        std::fs::write(dir.join("receiver.db"), receiver).expect("receiver.db");
        World { dir }
    }

    fn outbox(&self) -> Connection {
        open(&self.dir.join("outbox.db"))
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

/// What the schedule left behind, per intent: its effects (attributed by the delivery
/// that wrote them) and its sent flag.
fn settle(world: &World, network: &Network) -> Vec<Settled> {
    let outbox = world.outbox();
    let effects = network.effects();
    INTENTS
        .iter()
        .map(|&(id, amount)| Settled {
            id: id.to_string(),
            amount,
            effects: effects
                .iter()
                .filter(|e| e.sent_for == id)
                .cloned()
                .collect(),
            sent: outbox
                .query_row("SELECT sent FROM outbox WHERE id = ?1", [id], |r| r.get(0))
                .expect("sent flag"),
        })
        .collect()
}

/// One graded schedule: three relay processes that may crash or lose responses, then a
/// healed network and two more fault-free relay runs; then the invariants.
pub fn relay_scenario(
    yours: Protocol,
    sim: &mut Sim,
    faults: Faults,
    invariants: &[Invariant],
) -> Verdict {
    let world = World::create();
    let receiver = open(&world.dir.join("receiver.db"));
    let mut network = Network::new(receiver, yours.apply_effect, faults);
    run_relay_processes(yours, sim, &world, &mut network);
    invariants::check(&settle(&world, &network), invariants)
}

/// The same schedule, with the outbox also holding [`REFUSED`]'s intent, whose name the
/// receiver already holds for another amount. The other intents must end as always.
pub fn refused_scenario(yours: Protocol, sim: &mut Sim, faults: Faults) -> Verdict {
    let world = World::create();
    let (id, amount, held) = REFUSED;
    world
        .outbox()
        .execute_batch(&format!(
            "BEGIN; INSERT INTO orders VALUES ('{id}', {amount});
             INSERT INTO outbox VALUES ('{id}', {amount}, 0); COMMIT;"
        ))
        .expect("enqueue");
    let receiver = open(&world.dir.join("receiver.db"));
    receiver
        .execute(
            "INSERT INTO effects (order_id, amount) VALUES (?1, ?2)",
            (id, held),
        )
        .expect("the earlier effect");
    let mut network = Network::new(receiver, yours.apply_effect, faults);
    run_relay_processes(yours, sim, &world, &mut network);
    invariants::check(&settle(&world, &network), &ALL_INVARIANTS)?;
    let rows = network.effects().into_iter().filter(|e| e.order_id == id);
    invariants::check_refused(&Refused {
        id: id.to_string(),
        amount,
        held,
        rows: rows.map(|e| e.amount).collect(),
        sent: world
            .outbox()
            .query_row("SELECT sent FROM outbox WHERE id = ?1", [id], |r| r.get(0))
            .expect("sent flag"),
    })
}

/// Three relay processes that may crash or meet a faulty network, then two fault-free
/// ones after the network heals and the requests in flight land.
fn run_relay_processes(yours: Protocol, sim: &mut Sim, world: &World, network: &mut Network) {
    for process in 1..=5 {
        if process == 4 {
            // The faulty phase is over: requests still in flight land, nothing else fails.
            sim.heal();
            network.land_late_requests(sim);
        }
        let result = (yours.relay_outbox)(&mut Relay::start(sim, world.outbox(), network));
        if let Err(crash) = result {
            sim.event("relay", Glyph::Recover, || {
                (
                    format!("relay process {} starts; reopens outbox.db", process + 1),
                    format!("{crash}; its memory is gone, the files remain"),
                )
            });
        }
    }
}

/// Explores every schedule with up to `max_faults` faults of the kinds `faults` allows.
/// Every kind keeps its choice sites, so each failure replays in the full `relay` scope.
pub fn explore_relay(
    yours: Protocol,
    max_faults: usize,
    faults: Faults,
    invariants: &'static [Invariant],
) -> Exploration {
    let scope = Scope {
        lab: "01",
        scenario: "relay",
        max_faults,
    };
    fault::explore(scope, |sim| relay_scenario(yours, sim, faults, invariants))
}

/// Explores the refused intent's schedules with up to `max_faults` faults of any kind.
pub fn explore_refused(yours: Protocol, max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "01",
        scenario: "refused",
        max_faults,
    };
    fault::explore(scope, |sim| refused_scenario(yours, sim, Faults::All))
}

fn replay_refused(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| refused_scenario(yours, sim, Faults::All))
}

fn replay_relay(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| {
        relay_scenario(yours, sim, Faults::All, &ALL_INVARIANTS)
    })
}

/// The scenarios `cargo labs replay 01 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] =
    &[("relay", replay_relay), ("refused", replay_refused)];
