//! Acknowledgements (best effort, or with exactly-once delivery the truth) and
//! `ModifyAckDeadline` (a nack, or an extension of the deadline).

use super::{Broker, State, choose};
use crate::{AckResponse, Code, PubSubError};
use labkit::fault::{Glyph, Sim};

impl Broker {
    /// `Acknowledge`. Best effort: the fault core may lose the acknowledgement, and the
    /// caller cannot tell. An ack id whose deadline passed, or that a redelivery replaced,
    /// is ignored. On a subscription with exactly-once delivery this is the client's
    /// fire-and-forget `ack()`: [`Broker::acknowledge_with_response`] with the answer
    /// thrown away.
    pub fn acknowledge(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        ack_ids: &[String],
    ) -> Result<(), PubSubError> {
        self.acknowledge_with_response(sim, subscription, ack_ids)
            .map(|_| ())
    }

    /// `Acknowledge`, with the answer for each ack id (the client libraries'
    /// `ack_with_response()` / `AckWithResult`).
    ///
    /// Without exactly-once delivery every id is answered [`AckResponse::Success`] at
    /// once, and the acknowledgement is as best effort as ever. With it, the answer is
    /// the truth: an id that is not the message's latest is
    /// [`AckResponse::InvalidAckId`] and acknowledges nothing, and when the fault core
    /// fails the request the valid ids are answered [`AckResponse::Other`] and nothing
    /// is recorded. A `Success` is final: that message is not delivered again.
    pub fn acknowledge_with_response(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        ack_ids: &[String],
    ) -> Result<Vec<AckResponse>, PubSubError> {
        let exactly_once = self
            .subscription(subscription)?
            .config
            .enable_exactly_once_delivery;
        let (live, mut responses) = self.leases(subscription, ack_ids, exactly_once);
        let client = |responses: &[AckResponse]| ack_line(ack_ids, responses, exactly_once);
        if live.is_empty() {
            sim.event("consumer", Glyph::Normal, || {
                (
                    client(&responses),
                    "ack id no longer valid: nothing acknowledged".into(),
                )
            });
            return Ok(responses);
        }
        let lost = if exactly_once { "failed" } else { "lost" };
        if choose(&self.nominal, sim, "pubsub:ack", &["recorded", lost]) == 1 {
            if exactly_once {
                for response in &mut responses {
                    if *response == AckResponse::Success {
                        *response = AckResponse::Other;
                    }
                }
            }
            sim.event("consumer", Glyph::Fault, || {
                let truth = if exactly_once {
                    "ack failed and said so: not recorded"
                } else {
                    "ack lost: never persisted"
                };
                (client(&responses), truth.into())
            });
            return Ok(responses);
        }
        let sub = self.subscriptions.get_mut(subscription).expect("checked");
        for position in &live {
            sub.entries[*position].state = State::Acked;
        }
        sim.event("consumer", Glyph::Normal, || {
            (client(&responses), "recorded".into())
        });
        Ok(responses)
    }

    /// The positions of the messages whose latest ack id is among `ack_ids`, and the
    /// answer for each id if the acknowledgement is recorded: with exactly-once delivery,
    /// an id that is not a message's latest is `InvalidAckId`.
    fn leases(
        &self,
        subscription: &str,
        ack_ids: &[String],
        exactly_once: bool,
    ) -> (Vec<usize>, Vec<AckResponse>) {
        let leases: Vec<Option<usize>> = ack_ids
            .iter()
            .map(|id| self.find_lease(subscription, id))
            .collect();
        let live: Vec<usize> = leases.iter().flatten().copied().collect();
        let responses: Vec<AckResponse> = leases
            .iter()
            .map(|lease| match (lease, exactly_once) {
                (None, true) => AckResponse::InvalidAckId,
                _ => AckResponse::Success,
            })
            .collect();
        (live, responses)
    }

    /// `ModifyAckDeadline`: 0 seconds is a **nack** (deliver again now, and count an
    /// attempt); 1–600 extends the deadline from now.
    pub fn modify_ack_deadline(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        ack_ids: &[String],
        ack_deadline_seconds: u64,
    ) -> Result<(), PubSubError> {
        self.subscription(subscription)?;
        if ack_deadline_seconds > 600 {
            return Err(PubSubError::new(
                Code::InvalidArgument,
                "ack_deadline_seconds must be between 0 and 600",
            ));
        }
        for id in ack_ids {
            let Some(position) = self.find_lease(subscription, id) else {
                continue;
            };
            if ack_deadline_seconds == 0 {
                sim.event("consumer", Glyph::Normal, || {
                    (format!("nack {id}"), String::new())
                });
                self.attempt_failed(sim, subscription, position);
            } else {
                let deadline = self.now + ack_deadline_seconds;
                let sub = self.subscriptions.get_mut(subscription).expect("checked");
                if let State::Outstanding { ack_id, .. } = sub.entries[position].state {
                    sub.entries[position].state = State::Outstanding { ack_id, deadline };
                    self.deadlines
                        .set(deadline, (subscription.to_string(), ack_id));
                }
            }
        }
        Ok(())
    }
}

/// The client's side of an acknowledgement, as the timeline shows it: the ids, and the
/// answer for each (with exactly-once delivery) or "ok".
fn ack_line(ack_ids: &[String], responses: &[AckResponse], exactly_once: bool) -> String {
    let answered = if exactly_once {
        ack_ids
            .iter()
            .zip(responses)
            .map(|(id, r)| format!("{id}: {r:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        "ok".into()
    };
    format!("ack {} -> {answered}", ack_ids.join(", "))
}
