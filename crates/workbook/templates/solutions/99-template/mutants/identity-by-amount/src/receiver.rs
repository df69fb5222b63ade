//! A wrong solution: it recognises a retry by the amount it asks for.

use crate::world::{Delivery, Ledger};

/// Applies the effect one delivery carries, unless the ledger holds one of that amount.
pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
    if !ledger.holds_amount(delivery.amount) {
        ledger.apply(delivery);
    }
}
