//! The build phase, part 1: the replay procedure.
//!
//! The incident: consumer v1 acknowledged payments on receipt and crashed part-way, so in
//! the interval `PLAN` some payments are complete, some are debited without a receipt,
//! one is not debited at all. v2 is deployed; your procedure replays the interval with it.
//!
//! * `start_replay` runs once, by the operator, before any delivery.
//! * `handle_payment` runs for every delivery on `billing` from then on (replayed
//!   messages, redeliveries, and new payments published after the interval); the process
//!   can crash before or after a commit.
//! * `replay_complete` is asked after every round; the first `true` ends the replay.
//!
//! Goal: every payment ends with exactly one debit and one receipt; the run records its
//! interval and consumer version; its `replay_log` says `recovered` for the payments whose
//! work was partly or not done and `duplicate` for those already complete; completion is
//! declared only when it is true. Grade it with `cargo labs check 06`.

use crate::world::{Billing, Payment, ReplayPlan};
use labkit::fault::Crash;
use sim_pubsub::ReceivedMessage;

// ANCHOR: start_replay
/// Prepares the replay of `plan` and returns the run's id.
pub fn start_replay(billing: &mut Billing, plan: &ReplayPlan) -> i64 {
    // TODO: a replay is an operation, not a button. Record the run (interval, consumer
    // version) in `replay_runs`, and the payments it must cover in `replay_expected`
    // (`billing.published_between`), before the seek.
    billing.seek_to(plan.from);
    1
}
// ANCHOR_END: start_replay

// ANCHOR: handle_payment
/// Handles one delivery of a payment during and after the replay.
pub fn handle_payment(
    billing: &mut Billing,
    run: i64,
    received: &ReceivedMessage,
) -> Result<(), Crash> {
    let payment = Payment::parse(&received.message);
    let _ = run;
    // Replay means: run the consumer again over the interval.
    // TODO: some of this work exists already. Look each effect up by the payment's
    // identity (the ledger for the debit, the provider's sent log for the receipt), apply
    // only what is missing, and record in `replay_log` whether the payment was recovered
    // or a duplicate, in the transaction that applies the debit.
    let tx = billing.begin();
    billing.debit(&tx, &payment);
    billing.commit(tx)?;
    let _ = billing.send_receipt(&payment);
    billing.ack(received);
    Ok(())
}
// ANCHOR_END: handle_payment

// ANCHOR: replay_complete
/// The completion criterion: is the run done?
pub fn replay_complete(billing: &Billing, run: i64) -> bool {
    let _ = run;
    // TODO: an empty backlog says the broker has nothing unacknowledged, not that the
    // interval's work exists. Check the run's expected payments instead.
    billing.backlog() == 0
}
// ANCHOR_END: replay_complete
