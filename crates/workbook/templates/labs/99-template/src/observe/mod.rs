//! The observe phase: the sender delivers m1 to a receiver that applies whatever arrives,
//! over a network that loses a response or a request, and retries with the same message
//! id. One function per section; every answer is computed from what the code just did and
//! recorded under its question, quoted word for word from lab.toml, where the keys live.

use crate::world::{Delivery, Ledger, Receiver, Seen, Sender, messages};
use labkit::fault::Fate;
use labkit::{Observation, Report};

// ANCHOR: naive
/// The observe phase's receiver: it applies whatever arrives.
#[derive(Default)]
struct ApplyEveryDelivery {
    ledger: Ledger,
}

impl Receiver for ApplyEveryDelivery {
    fn receive(&mut self, delivery: &Delivery) {
        self.ledger.apply(delivery);
    }
}
// ANCHOR_END: naive

/// Delivers `delivery` to a fresh receiver once per fate, in order: what the sender saw
/// after each attempt, and how many effects of the message the ledger holds in the end.
fn attempts(delivery: &Delivery, fates: &[Fate]) -> (Vec<Seen>, usize) {
    let mut sender = Sender::new(ApplyEveryDelivery::default());
    let seen = fates
        .iter()
        .map(|fate| sender.attempt(delivery, *fate))
        .collect();
    (
        seen,
        sender.receiver.ledger.times_applied(&delivery.message_id),
    )
}

/// Runs the scenario, section by section, and reports what it observed.
pub fn run() -> Report {
    let mut obs = Observation::new("template");
    let m1 = &messages()[0];
    lost_response(&mut obs, m1);
    retry(&mut obs, m1);
    let effects = three_attempts(&mut obs, m1);
    obs.finish(
        None,
        serde_json::json!({ "message": m1.message_id, "effects after three attempts": effects }),
    )
}

/// The first attempt's response is lost; and, to compare, its request instead.
fn lost_response(obs: &mut Observation, m1: &Delivery) {
    let (seen, effects) = attempts(m1, &[Fate::AppliedResponseLost]);
    obs.ask(
        "After the response to m1's first attempt is lost, does the ledger hold an effect of m1?",
        effects == 1,
    );
    let (seen_when_the_request_is_lost, _) = attempts(m1, &[Fate::NotApplied]);
    obs.ask(
        "Can the sender tell, from what it saw, whether its first attempt took effect?",
        seen != seen_when_the_request_is_lost,
    );
}

/// The sender retries after a lost response; and, a variation, after a lost request.
fn retry(obs: &mut Observation, m1: &Delivery) {
    let (_, effects) = attempts(m1, &[Fate::AppliedResponseLost, Fate::Ok]);
    obs.ask(
        "After the sender retries m1, does the ledger hold a single effect of m1?",
        effects == 1,
    );
    let (_, effects) = attempts(m1, &[Fate::NotApplied, Fate::Ok]);
    obs.ask("Had the first attempt's request been lost instead of its response, would the ledger hold a single effect of m1 after the retry?", effects == 1);
}

/// A variation: two lost responses, then an acknowledged attempt. Returns the effects.
fn three_attempts(obs: &mut Observation, m1: &Delivery) -> usize {
    let fates = [
        Fate::AppliedResponseLost,
        Fate::AppliedResponseLost,
        Fate::Ok,
    ];
    let (_, effects) = attempts(m1, &fates);
    let answer = match effects {
        1 => "a",
        2 => "b",
        3 => "c",
        _ => "none of the options",
    };
    obs.choose("The responses to m1's first two attempts are lost and the third is acknowledged. How many effects of m1 does the ledger hold?",
        answer,
        format!("the ledger holds {effects} effect(s) of m1"),
    );
    effects
}
