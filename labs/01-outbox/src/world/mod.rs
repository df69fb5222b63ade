//! The world your relay and your receiver talk to. Complete code: read it, do not change it.
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

mod network;

pub use network::{Effect, Faults, Network};

pub use labkit::fault::Crash;
use labkit::fault::Sim;
use rusqlite::{Connection, Transaction};

/// One row of the outbox: the intent to publish an order's effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    pub order_id: String,
    pub amount: i64,
    /// The outbox row this intent was read from. Whatever identity a delivery carries,
    /// the world knows which intent it was sent for, and counts its effects there.
    origin: String,
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

// ANCHOR: outcome
/// What the relay sees when it calls the receiver over the network.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The response arrived.
    Delivered(Delivery),
    /// RESOURCE_EXHAUSTED: the receiver refused the request before applying it (it
    /// was throttled). Definitely not applied.
    ResourceExhausted,
    /// DEADLINE_EXCEEDED: no response. The effect may or may not have been applied.
    DeadlineExceeded,
    /// The receiver refused the request (an identity collision).
    Rejected(String),
}
// ANCHOR_END: outcome

/// The receiver's durable table. `seq` numbers every applied effect, so a receiver that
/// does not recognise identities shows up as two rows for one order.
pub const RECEIVER_SCHEMA: &str = "CREATE TABLE effects (seq INTEGER PRIMARY KEY, \
     order_id TEXT NOT NULL, amount INTEGER NOT NULL);";

/// The code the receiver runs for each delivery, inside its own transaction.
pub type ApplyEffect = fn(&Transaction, &str, i64) -> Result<Delivery, ReceiverError>;

/// The relay process's view of the world: its own connection to `outbox.db` (closed at a
/// crash) and the network. Each step ends at a crash point.
pub struct Relay<'a> {
    sim: &'a mut Sim,
    outbox: Connection,
    network: &'a mut Network,
}

impl<'a> Relay<'a> {
    /// A relay process that has just opened `outbox.db`.
    pub fn start(sim: &'a mut Sim, outbox: Connection, network: &'a mut Network) -> Self {
        Relay {
            sim,
            outbox,
            network,
        }
    }

    /// A crash point. In a scope without crashes it still offers its choice, with the
    /// normal option only, so that the scope's tokens replay in the full one.
    fn crash_point(&mut self, point: &'static str) -> Result<(), Crash> {
        if self.network.faults() == Faults::NetworkOnly {
            self.sim.choose(point, &["continue"]);
            return Ok(());
        }
        self.sim.crash_point(point)
    }

    /// Reads every intent not yet marked sent, in order.
    pub fn unsent_intents(&mut self) -> Result<Vec<Intent>, Crash> {
        let intents: Vec<Intent> = self
            .outbox
            .prepare("SELECT id, amount FROM outbox WHERE sent = 0 ORDER BY id")
            .and_then(|mut statement| {
                let row = |r: &rusqlite::Row| {
                    let (order_id, amount): (String, i64) = (r.get(0)?, r.get(1)?);
                    let origin = order_id.clone();
                    Ok(Intent {
                        order_id,
                        amount,
                        origin,
                    })
                };
                statement.query_map([], row)?.collect()
            })
            .expect("outbox rows");
        self.sim.note("relay", || {
            let ids: Vec<&str> = intents.iter().map(|i| i.order_id.as_str()).collect();
            match ids.len() {
                0 => "read no unsent intent".to_string(),
                n => format!("read {n} unsent intent(s): {}", ids.join(", ")),
            }
        });
        self.crash_point("relay:after-read")?;
        Ok(intents)
    }

    /// Sends one intent to the receiver and waits for the answer.
    pub fn deliver(&mut self, intent: &Intent) -> Result<Outcome, Crash> {
        let outcome = self.network.call(self.sim, intent);
        self.crash_point("relay:after-deliver")?;
        Ok(outcome)
    }

    /// Marks one intent sent, in its own transaction.
    pub fn mark_sent(&mut self, order_id: &str) -> Result<(), Crash> {
        self.outbox
            .execute("UPDATE outbox SET sent = 1 WHERE id = ?1", [order_id])
            .expect("mark sent");
        self.sim
            .note("relay", || format!("mark {order_id} sent (committed)"));
        self.crash_point("relay:after-mark")
    }
}
