//! The processor on its own: a retry under the same key at once and a day later, a new
//! key, and one key shared by two intents.

use super::naive::S1;
use crate::world::DAY;
use labkit::fault::Sim;
use sim_spanner::{ChargeRequest, PaymentProcessor, ProcessorError};

/// What the key experiments showed.
pub struct Keys {
    /// The first response for `settle-S1` was lost; the retry went out at once.
    pub retry_at_once_returned_the_first: bool,
    /// The same, with the retry a day and an hour later.
    pub retry_a_day_later_returned_the_first: bool,
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
/// lost"), then a retry under the same key after `wait` seconds: does the retry get the
/// first receipt back, and is there still one receipt?
fn retry_after(wait: u64) -> bool {
    let mut sim = Sim::replaying(&[1]);
    let mut processor = PaymentProcessor::new();
    let first = processor.charge(&mut sim, keyed("S1", S1.amount, "settle-S1"));
    sim.advance(wait);
    let retry = processor.charge(&mut sim, keyed("S1", S1.amount, "settle-S1"));
    first.is_err() && retry.is_ok() && processor.search("S1").len() == 1
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
        retry_at_once_returned_the_first: retry_after(0),
        retry_a_day_later_returned_the_first: retry_after(DAY + 3600),
        receipts_after_a_new_key,
        shared_key,
        receipts_after_shared_key: shared.receipts().len(),
    }
}
