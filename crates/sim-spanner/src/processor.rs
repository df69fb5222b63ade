//! A simulated external payment processor: it charges, issues receipts, recognises an
//! optional idempotency key, and can be searched by a charge's reference. It is outside
//! every database transaction: nothing it does is rolled back.

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

/// A request to charge `amount` for `reference` (the intent the charge pays for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChargeRequest {
    pub reference: String,
    pub amount: i64,
    /// When set, the processor saves the first result for this key and returns it to
    /// every later request with the same key and the same parameters.
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

/// The processor's durable state: its receipts and the results saved per key.
#[derive(Clone, Debug, Default)]
pub struct PaymentProcessor {
    receipts: Vec<Receipt>,
    /// (idempotency key, the request it was first used with, index of its receipt)
    saved: Vec<(String, ChargeRequest, usize)>,
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

    /// Records a receipt directly, as a fixture (history the lab starts from).
    pub fn seed(&mut self, request: ChargeRequest) -> Receipt {
        self.perform(&request)
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
        let describe = |request: &ChargeRequest| {
            let key = request.idempotency_key.as_deref().unwrap_or("none");
            format!(
                "charge {} {} (key {key})",
                request.reference, request.amount
            )
        };
        match fate {
            Fate::NotApplied => {
                sim.event("processor", Glyph::Indefinite, || {
                    (
                        format!("{} -> timeout", describe(&request)),
                        "not charged".into(),
                    )
                });
                Err(ProcessorError::Timeout)
            }
            Fate::AppliedLater => {
                sim.event("processor", Glyph::Indefinite, || {
                    (
                        format!("{} -> timeout", describe(&request)),
                        "still in flight: charged before the next request".into(),
                    )
                });
                self.in_flight.push(request);
                Err(ProcessorError::Timeout)
            }
            _ => {
                let result = self.process(&request);
                let lost = fate == Fate::AppliedResponseLost;
                sim.event(
                    "processor",
                    if lost {
                        Glyph::Indefinite
                    } else {
                        Glyph::Normal
                    },
                    || {
                        let seen = match (&result, lost) {
                            (_, true) => "timeout".to_string(),
                            (Ok((r, _)), false) => format!("receipt {}", r.id),
                            (Err(e), false) => e.to_string(),
                        };
                        let truth = match &result {
                            Ok((r, true)) => format!("charged: receipt {}", r.id),
                            Ok((r, false)) => format!("saved result for the key: receipt {}", r.id),
                            Err(e) => format!("refused: {e}"),
                        };
                        (format!("{} -> {seen}", describe(&request)), truth)
                    },
                );
                match result {
                    _ if lost => Err(ProcessorError::Timeout),
                    Ok((receipt, _)) => Ok(receipt),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// Performs every request still in flight. The processor does this before its next
    /// request; a scenario calls it when the faults heal.
    pub fn land_in_flight(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let result = self.process(&late);
            sim.event("processor", Glyph::Fault, || {
                let truth = match &result {
                    Ok((r, true)) => format!("the charge in flight lands: receipt {}", r.id),
                    Ok((r, false)) => format!("the charge in flight matches receipt {}", r.id),
                    Err(e) => format!("the charge in flight is refused: {e}"),
                };
                (String::new(), truth)
            });
        }
    }

    /// Returns the receipt and whether it is new (false: the saved result for the key).
    fn process(&mut self, request: &ChargeRequest) -> Result<(Receipt, bool), ProcessorError> {
        if let Some(key) = &request.idempotency_key
            && let Some((_, first, index)) = self.saved.iter().find(|(k, _, _)| k == key)
        {
            if first != request {
                return Err(ProcessorError::IdempotencyKeyReused);
            }
            return Ok((self.receipts[*index].clone(), false));
        }
        Ok((self.perform(request), true))
    }

    fn perform(&mut self, request: &ChargeRequest) -> Receipt {
        let receipt = Receipt {
            id: format!("ch_{}", self.receipts.len() + 1),
            reference: request.reference.clone(),
            amount: request.amount,
            idempotency_key: request.idempotency_key.clone(),
        };
        if let Some(key) = &request.idempotency_key {
            self.saved
                .push((key.clone(), request.clone(), self.receipts.len()));
        }
        self.receipts.push(receipt.clone());
        receipt
    }
}
