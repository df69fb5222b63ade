//! The world the receiver lives in: the deliveries it gets, the ledger it keeps, and the
//! sender at the other end of a network that can lose a request or its response. The
//! sender retries every delivery whose response it did not see, with the same message
//! id. Complete; your `receive` (in receiver.rs) imports only this module.

use labkit::fault::{Crash, Fate, Glyph, Sim};

/// One delivery: the message's identity and the effect it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub message_id: String,
    pub amount: i64,
}

/// The receiver's durable state: every effect it applied, in order.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    applied: Vec<Delivery>,
}

impl Ledger {
    /// Applies one effect.
    pub fn apply(&mut self, delivery: &Delivery) {
        self.applied.push(delivery.clone());
    }

    /// Has an effect with this message id been applied?
    pub fn is_applied(&self, message_id: &str) -> bool {
        self.times_applied(message_id) > 0
    }

    /// Has an effect of this amount been applied, whatever its message id?
    pub fn holds_amount(&self, amount: i64) -> bool {
        self.applied.iter().any(|d| d.amount == amount)
    }

    /// How many effects this message id has in the ledger.
    pub fn times_applied(&self, message_id: &str) -> usize {
        self.applied
            .iter()
            .filter(|d| d.message_id == message_id)
            .count()
    }
}

/// The messages the sender sends: two messages that ask for the same amount.
pub fn messages() -> Vec<Delivery> {
    ["m1", "m2"]
        .into_iter()
        .map(|id| Delivery {
            message_id: id.to_string(),
            amount: 100,
        })
        .collect()
}

/// The receiving end of the network. The scenarios connect it to your `receive`; the
/// observe phase, to a receiver of its own.
pub trait Receiver {
    fn receive(&mut self, delivery: &Delivery);
}

/// What the sender sees after one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    Acknowledged,
    DeadlineExceeded,
}

/// The fates the graded network picks from for each attempt.
const GRADED_FATES: [Fate; 2] = [Fate::Ok, Fate::AppliedResponseLost];

/// The sender, and the receiver at the other end of its network.
pub struct Sender<R> {
    pub receiver: R,
}

impl<R: Receiver> Sender<R> {
    pub fn new(receiver: R) -> Self {
        Sender { receiver }
    }

    // ANCHOR: attempt
    /// One attempt to deliver: `fate` is what the network does with it, and the sender
    /// sees only the response, or its absence.
    pub fn attempt(&mut self, delivery: &Delivery, fate: Fate) -> Seen {
        if fate != Fate::NotApplied {
            self.receiver.receive(delivery);
        }
        if fate == Fate::Ok {
            Seen::Acknowledged
        } else {
            Seen::DeadlineExceeded
        }
    }
    // ANCHOR_END: attempt

    // ANCHOR: send
    /// Sends one message until it sees it acknowledged. A response can be lost after the
    /// receiver applied the effect; the sender then retries with the same message id,
    /// or crashes first.
    pub fn send(&mut self, sim: &mut Sim, delivery: &Delivery) -> Result<(), Crash> {
        loop {
            let fate = sim.fate("network:deliver", &GRADED_FATES);
            let seen = self.attempt(delivery, fate);
            let glyph = match seen {
                Seen::Acknowledged => Glyph::Normal,
                Seen::DeadlineExceeded => Glyph::Indefinite,
            };
            sim.event("sender", glyph, || {
                let id = &delivery.message_id;
                (
                    format!("deliver {id} -> {seen:?}"),
                    fate.label().to_string(),
                )
            });
            if seen == Seen::Acknowledged {
                return Ok(());
            }
            sim.crash_point("sender:before-retry")?;
        }
    }
    // ANCHOR_END: send
}
