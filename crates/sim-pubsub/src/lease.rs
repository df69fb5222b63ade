//! The high-level subscriber client's **lease management**: while the application holds a
//! message (its callback has not acked or nacked it yet), the client extends the message's
//! ack deadline with `ModifyAckDeadline` before it passes, until the message has been held
//! for the maximum extension period. The Pub/Sub page: "The Pub/Sub high-level client
//! libraries provide lease management as a feature that automatically extends the deadline
//! of a message that has not yet been acknowledged. By default, the client libraries can
//! extend the deadline to an hour by issuing periodic modifyAckDeadline requests."
//!
//! So a slow callback behind a high-level client is not redelivered when the subscription's
//! deadline passes; it is when the client stops extending: the maximum extension passed,
//! the process stalled or died, or the application pulls with the raw `Pull` call.

use crate::{Broker, PubSubError};
use labkit::fault::Sim;

/// The default maximum extension period of the high-level clients: one hour (Java
/// `setMaxAckExtensionPeriod`, Python `FlowControl.max_lease_duration`).
pub const DEFAULT_MAX_EXTENSION_SECONDS: u64 = 3600;

/// The leases a subscriber client keeps for the messages its callbacks hold.
#[derive(Clone, Debug)]
pub struct LeaseManager {
    subscription: String,
    /// How far each `ModifyAckDeadline` extends a deadline (the clients derive it from the
    /// 99th percentile of ack delays, 10 s to 10 min; here it is fixed).
    pub extension_seconds: u64,
    /// How long a message is extended in all before the client lets its deadline pass.
    pub max_extension_seconds: u64,
    /// (ack id, when the client received it), in receipt order.
    held: Vec<(String, u64)>,
}

impl LeaseManager {
    /// Leases for `subscription`, extended by `extension_seconds` at a time, up to the
    /// default maximum of one hour.
    pub fn new(subscription: &str, extension_seconds: u64) -> Self {
        assert!(
            (10..=600).contains(&extension_seconds),
            "an extension is 10–600 s"
        );
        LeaseManager {
            subscription: subscription.to_string(),
            extension_seconds,
            max_extension_seconds: DEFAULT_MAX_EXTENSION_SECONDS,
            held: Vec::new(),
        }
    }

    /// The callback holds the message received with `ack_id` from now on.
    pub fn hold(&mut self, broker: &Broker, ack_id: &str) {
        self.held.push((ack_id.to_string(), broker.now()));
    }

    /// The callback acked or nacked the message: the client stops extending it.
    pub fn release(&mut self, ack_id: &str) {
        self.held.retain(|(id, _)| id != ack_id);
    }

    /// Moves the broker's clock on by `seconds` while the client keeps the held messages'
    /// leases: before each deadline could pass, it extends every message held for less than
    /// the maximum extension period, never beyond that period.
    pub fn advance(
        &mut self,
        broker: &mut Broker,
        sim: &mut Sim,
        seconds: u64,
    ) -> Result<(), PubSubError> {
        let until = broker.now() + seconds;
        while broker.now() < until {
            let now = broker.now();
            for (ack_id, received) in &self.held {
                let left = (received + self.max_extension_seconds).saturating_sub(now);
                if left > 0 {
                    let extension = self.extension_seconds.min(left);
                    let ids = [ack_id.clone()];
                    broker.modify_ack_deadline(sim, &self.subscription, &ids, extension)?;
                }
            }
            // Extend again halfway through an extension, as the clients do well before
            // the deadline.
            let step = (self.extension_seconds / 2).max(1).min(until - now);
            broker.advance(sim, step);
        }
        Ok(())
    }
}
