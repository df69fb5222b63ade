//! A simulated external payment processor: it charges, issues receipts, recognises an
//! optional idempotency key for a day, and can be searched by a charge's reference. It is
//! outside every database transaction: nothing it does is rolled back.

use labkit::fault::{Fate, Glyph, Sim};
use std::fmt;

/// What can happen to a charge (option 0 first), with the fault core's labels.
pub(crate) const CHARGE_FATES: [Fate; 4] = [
    Fate::Ok,
    Fate::AppliedResponseLost,
    Fate::NotApplied,
    Fate::AppliedLater,
];
pub(crate) const CHARGE_LABELS: [&str; 4] = [
    "ok",
    "applied, response lost",
    "not applied",
    "applied later",
];

/// How long the processor keeps the result saved for an idempotency key, in seconds of
/// the fault core's logical clock: it prunes a key once the key is 24 hours old (the
/// earliest moment Stripe's documentation allows; a real processor may keep it longer, and
/// an application must not count on that). A request that reuses a pruned key is a new
/// charge.
pub const KEY_RETENTION_SECONDS: u64 = 24 * 60 * 60;

/// A request to charge `amount` for `reference` (the intent the charge pays for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChargeRequest {
    pub reference: String,
    pub amount: i64,
    /// When set, the processor saves the first result for this key and returns it to
    /// every later request with the same key and the same parameters, for
    /// [`KEY_RETENTION_SECONDS`].
    pub idempotency_key: Option<String>,
}

/// Evidence that the processor took money: one per charge it performed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// `ch_1`, `ch_2`, … in the order the processor performed them.
    pub id: String,
    pub reference: String,
    pub amount: i64,
    pub idempotency_key: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessorError {
    /// No response in time (a connection error or a client timeout): the charge may or
    /// may not have happened.
    Timeout,
    /// The idempotency key was first used with other parameters; nothing was charged.
    IdempotencyKeyReused,
}

impl fmt::Display for ProcessorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessorError::Timeout => f.write_str("timeout"),
            ProcessorError::IdempotencyKeyReused => {
                f.write_str("idempotency key reused with different parameters")
            }
        }
    }
}

impl std::error::Error for ProcessorError {}

/// The result saved for one idempotency key.
#[derive(Clone, Debug)]
struct SavedKey {
    key: String,
    /// The request the key was first used with.
    first: ChargeRequest,
    /// The index of its receipt.
    receipt: usize,
    /// When the result was saved (the logical clock).
    saved_at: u64,
}

/// How the processor answered a request it performed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// A new charge, a new receipt.
    Charged,
    /// The result saved for the key: no new charge.
    Saved,
    /// A new charge: the key's saved result had been pruned, a day after it was saved.
    ChargedAfterPruning,
}

/// The processor's durable state: its receipts and the results saved per key.
#[derive(Clone, Debug, Default)]
pub struct PaymentProcessor {
    receipts: Vec<Receipt>,
    saved: Vec<SavedKey>,
    in_flight: Vec<ChargeRequest>,
    calls: u32,
}

impl PaymentProcessor {
    pub fn new() -> Self {
        PaymentProcessor::default()
    }

    /// Every receipt ever issued, in order. The processor never deletes one.
    pub fn receipts(&self) -> &[Receipt] {
        &self.receipts
    }

    /// How many charge requests reached the processor's API (including timed-out ones).
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// Searches receipts by reference (like a search by a charge's metadata).
    pub fn search(&self, reference: &str) -> Vec<Receipt> {
        self.receipts
            .iter()
            .filter(|r| r.reference == reference)
            .cloned()
            .collect()
    }

    /// Records a receipt directly, as a fixture (history the lab starts from), at time 0.
    pub fn seed(&mut self, request: ChargeRequest) -> Receipt {
        self.perform(&request, 0)
    }

    /// Charges. The fault core decides the fate: ok; or a timeout whose truth is
    /// applied-and-response-lost, not applied, or applied later (the request is still in
    /// flight and is performed before the processor's next request).
    pub fn charge(
        &mut self,
        sim: &mut Sim,
        request: ChargeRequest,
    ) -> Result<Receipt, ProcessorError> {
        self.calls += 1;
        self.land_in_flight(sim);
        let fate = CHARGE_FATES[sim.choose("processor:charge", &CHARGE_LABELS)];
        match fate {
            Fate::NotApplied => {
                sim.event("processor", Glyph::Indefinite, || {
                    (
                        format!("{} -> timeout", describe_charge(&request)),
                        "not charged".into(),
                    )
                });
                Err(ProcessorError::Timeout)
            }
            Fate::AppliedLater => {
                sim.event("processor", Glyph::Indefinite, || {
                    (
                        format!("{} -> timeout", describe_charge(&request)),
                        "still in flight: charged before the next request".into(),
                    )
                });
                self.in_flight.push(request);
                Err(ProcessorError::Timeout)
            }
            _ => self.charge_now(sim, request, fate == Fate::AppliedResponseLost),
        }
    }

    /// A charge the processor performs now; when the response is `lost`, the caller sees
    /// a timeout whatever happened.
    fn charge_now(
        &mut self,
        sim: &mut Sim,
        request: ChargeRequest,
        lost: bool,
    ) -> Result<Receipt, ProcessorError> {
        let result = self.process(&request, sim.now());
        let glyph = if lost {
            Glyph::Indefinite
        } else {
            Glyph::Normal
        };
        sim.event("processor", glyph, || {
            let seen = match (&result, lost) {
                (_, true) => "timeout".to_string(),
                (Ok((r, _)), false) => format!("receipt {}", r.id),
                (Err(e), false) => e.to_string(),
            };
            let truth = match &result {
                Ok((r, answer)) => describe_answer(r, *answer),
                Err(e) => format!("refused: {e}"),
            };
            (format!("{} -> {seen}", describe_charge(&request)), truth)
        });
        match result {
            _ if lost => Err(ProcessorError::Timeout),
            Ok((receipt, _)) => Ok(receipt),
            Err(e) => Err(e),
        }
    }

    /// Performs every request still in flight. The processor does this before its next
    /// request; a scenario calls it when the faults heal.
    pub fn land_in_flight(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let result = self.process(&late, sim.now());
            sim.event("processor", Glyph::Fault, || {
                let truth = match &result {
                    Ok((r, answer)) => {
                        format!(
                            "the charge in flight lands: {}",
                            describe_answer(r, *answer)
                        )
                    }
                    Err(e) => format!("the charge in flight is refused: {e}"),
                };
                (String::new(), truth)
            });
        }
    }

    /// True while the result saved for `key` is kept (saved less than a day before `now`).
    pub fn remembers(&self, key: &str, now: u64) -> bool {
        self.saved
            .iter()
            .any(|s| s.key == key && now - s.saved_at < KEY_RETENTION_SECONDS)
    }

    /// Performs a request at time `now`: the saved result for its key, or a new charge
    /// (after pruning the key's result once it is a day old).
    fn process(
        &mut self,
        request: &ChargeRequest,
        now: u64,
    ) -> Result<(Receipt, Answer), ProcessorError> {
        let mut answer = Answer::Charged;
        if let Some(key) = &request.idempotency_key
            && let Some(at) = self.saved.iter().position(|s| &s.key == key)
        {
            let saved = &self.saved[at];
            if now - saved.saved_at >= KEY_RETENTION_SECONDS {
                self.saved.remove(at);
                answer = Answer::ChargedAfterPruning;
            } else if &saved.first != request {
                return Err(ProcessorError::IdempotencyKeyReused);
            } else {
                return Ok((self.receipts[saved.receipt].clone(), Answer::Saved));
            }
        }
        Ok((self.perform(request, now), answer))
    }

    fn perform(&mut self, request: &ChargeRequest, now: u64) -> Receipt {
        let receipt = Receipt {
            id: format!("ch_{}", self.receipts.len() + 1),
            reference: request.reference.clone(),
            amount: request.amount,
            idempotency_key: request.idempotency_key.clone(),
        };
        if let Some(key) = &request.idempotency_key {
            self.saved.push(SavedKey {
                key: key.clone(),
                first: request.clone(),
                receipt: self.receipts.len(),
                saved_at: now,
            });
        }
        self.receipts.push(receipt.clone());
        receipt
    }
}

/// The truth column of a performed request.
fn describe_answer(receipt: &Receipt, answer: Answer) -> String {
    match answer {
        Answer::Charged => format!("charged: receipt {}", receipt.id),
        Answer::Saved => format!("saved result for the key: receipt {}", receipt.id),
        Answer::ChargedAfterPruning => format!(
            "the key's saved result was pruned (a day old): charged again, receipt {}",
            receipt.id
        ),
    }
}

/// A charge request in a timeline.
fn describe_charge(request: &ChargeRequest) -> String {
    let key = request.idempotency_key.as_deref().unwrap_or("none");
    format!(
        "charge {} {} (key {key})",
        request.reference, request.amount
    )
}
