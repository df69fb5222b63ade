//! The processor on its own: a resend under the same key at once and a day later, a new
//! key, and one key shared by two intents.

use super::naive::S1;
use crate::world::DAY;
use labkit::fault::Sim;
use sim_spanner::{ChargeRequest, PaymentProcessor, ProcessorError};

/// What the key experiments showed.
pub struct Keys {
    /// Receipts for S1: the first response for `settle-S1` was lost; the same request
    /// went out again at once.
    pub receipts_after_a_resend_at_once: usize,
    /// The same, with the resend a day and an hour later.
    pub receipts_after_a_resend_a_day_later: usize,
    /// Receipts for S1 after a retry under a new key.
    pub receipts_after_a_new_key: usize,
    /// S2's charge under the key S1's charge used first.
    pub shared_key: Result<String, ProcessorError>,
    /// Receipts the processor holds after the shared-key experiment.
    pub receipts_after_shared_key: usize,
}

fn keyed(reference: &str, amount: i64, key: &str) -> ChargeRequest {
    ChargeRequest {
        reference: reference.to_string(),
        amount,
        idempotency_key: Some(key.to_string()),
    }
}

// ANCHOR: observe_key
/// A charge whose response is lost (the schedule's first choice is "applied, response
/// lost"), then the same request under the same key after `wait` seconds: how many
/// receipts S1 has once the resend got its answer.
fn resend_after(wait: u64) -> usize {
    let mut sim = Sim::replaying(&[1]);
    let mut processor = PaymentProcessor::new();
    let first = processor.charge(&mut sim, keyed("S1", S1.amount, "settle-S1"));
    assert!(first.is_err(), "the first response is lost");
    sim.advance(wait);
    processor
        .charge(&mut sim, keyed("S1", S1.amount, "settle-S1"))
        .expect("the resend is answered");
    processor.search("S1").len()
}
// ANCHOR_END: observe_key

pub fn keys() -> Keys {
    let mut sim = Sim::fault_free();
    let mut processor = PaymentProcessor::new();
    processor
        .charge(&mut sim, keyed("S1", S1.amount, "settle-S1"))
        .expect("fault-free charge");
    processor
        .charge(&mut sim, keyed("S1", S1.amount, "settle-S1-again"))
        .expect("fault-free charge");
    let receipts_after_a_new_key = processor.search("S1").len();

    let mut shared = PaymentProcessor::new();
    shared
        .charge(&mut sim, keyed("S1", 120, "settle"))
        .expect("fault-free charge");
    let shared_key = shared
        .charge(&mut sim, keyed("S2", 80, "settle"))
        .map(|r| r.reference);
    Keys {
        receipts_after_a_resend_at_once: resend_after(0),
        receipts_after_a_resend_a_day_later: resend_after(DAY + 3600),
        receipts_after_a_new_key,
        shared_key,
        receipts_after_shared_key: shared.receipts().len(),
    }
}
