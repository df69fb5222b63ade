//! The build phase: your receiver.
//!
//! `receive` runs once for every delivery that reaches the receiver. The sender cannot
//! tell a lost response from a lost request, so it sends a message again, with the same
//! message id, whenever it saw no response; and it can crash and start again from its
//! last acknowledged message (`template::world`).
//!
//! Goal, under every schedule the graded suite explores: every message the sender sent
//! takes effect exactly once. Grade it with `cargo labs check 99`; `cargo labs hint 99`
//! gives one hint at a time.

use template::world::{Delivery, Ledger};

// ANCHOR: receive
/// Applies the effect one delivery carries.
pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
    // TODO: a message can arrive more than once. Keep: one message, one effect.
    ledger.apply(delivery);
}
// ANCHOR_END: receive
