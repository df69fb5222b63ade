//! The graded world: a sender that delivers every message to your receiver, losing
//! responses and crashing as the schedule says, and the exploration of every schedule.
//! `cargo labs replay 99 delivery TOKEN` replays one.

use crate::invariants::every_message_takes_effect_once;
use crate::world::{Delivery, Ledger, Receiver, Sender, messages};
use labkit::fault::{self, Crash, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict};

/// Your `receive` from `receiver.rs`, as the graded world calls it (`learner!`).
#[derive(Clone, Copy)]
pub struct Protocol {
    pub receive: fn(&mut Ledger, &Delivery),
}

/// Your receiver, at the end of the sender's network.
struct YourReceiver {
    yours: Protocol,
    ledger: Ledger,
}

impl Receiver for YourReceiver {
    fn receive(&mut self, delivery: &Delivery) {
        (self.yours.receive)(&mut self.ledger, delivery);
    }
}

/// Delivers the outbox from the sender's durable position `next` onwards.
fn send_all(
    sim: &mut Sim,
    sender: &mut Sender<YourReceiver>,
    outbox: &[Delivery],
    next: &mut usize,
) -> Result<(), Crash> {
    while let Some(delivery) = outbox.get(*next) {
        sender.send(sim, delivery)?;
        *next += 1;
    }
    Ok(())
}

/// One graded schedule: the sender delivers every message, crashing and restarting from
/// its durable position as the schedule says; once the faults are over, it finishes, and
/// every message must have taken effect exactly once.
pub fn delivery_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    let outbox = messages();
    let receiver = YourReceiver {
        yours,
        ledger: Ledger::default(),
    };
    let mut sender = Sender::new(receiver);
    let mut next = 0;
    for _process in 0..3 {
        match send_all(sim, &mut sender, &outbox, &mut next) {
            Ok(()) => break,
            Err(crash) => sim.event("sender", Glyph::Recover, || {
                ("restart from the outbox".into(), format!("after {crash}"))
            }),
        }
    }
    sim.heal();
    send_all(sim, &mut sender, &outbox, &mut next).expect("a healed sender does not crash");
    every_message_takes_effect_once(&outbox, &sender.receiver.ledger)
}

/// Every schedule of `delivery_scenario` with up to `max_faults` faults.
pub fn explore_delivery(yours: Protocol, max_faults: usize) -> Exploration {
    fault::explore(delivery_scope(max_faults), |sim| {
        delivery_scenario(yours, sim)
    })
}

/// Where `delivery_scenario` lives, so a failure prints the command that replays it.
pub fn delivery_scope(max_faults: usize) -> Scope {
    Scope {
        lab: "99",
        scenario: "delivery",
        max_faults,
    }
}

fn replay_delivery(yours: Protocol, token: &Token) -> Replay {
    fault::replay(token, |sim| delivery_scenario(yours, sim))
}

/// The scenarios `cargo labs replay 99` knows.
pub const SCENARIOS: &[(&str, labkit::ReplayFn<Protocol>)] = &[("delivery", replay_delivery)];
