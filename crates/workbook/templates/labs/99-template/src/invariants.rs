//! The invariant the graded suite checks, and how it explains a violation: Let (the
//! message) … Then (what the schedule left in the ledger) … Contradiction (the rule it
//! broke).

use crate::world::{Delivery, Ledger};
use labkit::fault::{Verdict, Violation};

/// The invariant's name, as a failing run reports it.
pub const EXACTLY_ONCE: &str = "every message takes effect exactly once";

/// Checks that every message the sender sent has exactly one effect in the ledger; the
/// first message that has none, or more than one, explains the violation.
pub fn every_message_takes_effect_once(sent: &[Delivery], ledger: &Ledger) -> Verdict {
    for delivery in sent {
        let id = &delivery.message_id;
        let times = ledger.times_applied(id);
        let (then, contradiction) = match times {
            1 => continue,
            0 => (
                "Then the ledger holds no effect for it: the receiver never applied it."
                    .to_string(),
                "Contradiction: a message the sender sent must take effect, even when another message asks for the same amount.",
            ),
            _ => (
                format!("Then the receiver applied it {times} times."),
                "Contradiction: a retry carries the message id of the attempt before it, so it is the same effect, not a new one.",
            ),
        };
        return Err(Violation::new(
            EXACTLY_ONCE,
            &[
                format!(
                    "Let {id} ({}) be a message the sender sent.",
                    delivery.amount
                ),
                then,
                contradiction.to_string(),
            ],
        ));
    }
    Ok(())
}
