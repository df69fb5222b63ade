//! The build phase, part 1: the replay procedure.
//!
//! The incident: consumer v1 acknowledged payments on receipt and crashed part-way, so in
//! the interval `PLAN` some payments are complete, some are debited without a receipt,
//! one is not debited at all. v2 is deployed; your procedure replays the interval with it,
//! while new payments keep arriving on the same subscription.
//!
//! * `start_replay` runs once, by the operator, before any delivery.
//! * `on_payment` runs for every delivery on `billing` from then on (replayed
//!   messages, redeliveries, new payments), in one billing process or two at once; a
//!   process can crash before or after a commit.
//! * `replay_complete` is asked after every round; the first `true` ends the replay.
//!
//! Goal, under every schedule the graded suite explores:
//!
//! * every payment ends with exactly one debit and one receipt;
//! * the run is on record with its interval and consumer version (`replay_runs`), and its
//!   `replay_log` says `recovered` for each payment of the interval whose work was partly
//!   or not done before the replay, `duplicate` for each one that was complete, and
//!   nothing for the others;
//! * the replay is declared complete, and not before every payment of the interval has
//!   its effects.
//!
//! Grade it with `cargo labs check 06`; `cargo labs hint 06` gives one hint at a time.

use dead_letters::world::{Billing, Crash, Delivery, Payment, ReplayPlan};

// ANCHOR: start_replay
/// Prepares the replay of `plan` and returns the run's id.
pub fn start_replay(billing: &mut Billing, plan: &ReplayPlan) -> i64 {
    // TODO: a replay that nobody can audit: what did it cover, which code ran it?
    billing.seek_to(plan.from);
    1
}
// ANCHOR_END: start_replay

// ANCHOR: on_payment
/// Handles one delivery of a payment during and after the replay.
pub fn on_payment(billing: &mut Billing, received: &Delivery) -> Result<(), Crash> {
    let payment = Payment::parse(&received.message);
    // Replay means: run the consumer again over the interval.
    // TODO: some of this work exists already, and the log must say which.
    let tx = billing.begin();
    billing.debit(&tx, &payment);
    billing.commit(tx)?;
    let _ = billing.send_receipt(&payment);
    billing.ack(received);
    Ok(())
}
// ANCHOR_END: on_payment

// ANCHOR: replay_complete
/// The completion criterion: is the run done?
pub fn replay_complete(billing: &Billing, run: i64) -> bool {
    let _ = run;
    // TODO: is an empty backlog evidence that the interval's work exists?
    billing.backlog() == 0
}
// ANCHOR_END: replay_complete
