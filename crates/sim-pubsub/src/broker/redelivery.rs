//! What happens when a delivery attempt ends without an ack: the broker's clock and the
//! ack deadlines that pass, the attempt count, forwarding a dead letter, and with
//! ordering the cascade that delivers the later messages of the key again.

use super::{Broker, State, choose, format_ack_id};
use crate::{ATTR_SOURCE_DELIVERY_COUNT, ATTR_SOURCE_SUBSCRIPTION, PubsubMessage};
use labkit::fault::{Glyph, Sim};

impl Broker {
    /// Moves the broker's clock forward; every ack deadline that passes makes its message
    /// deliverable again (or forwards it as a dead letter).
    pub fn advance(&mut self, sim: &mut Sim, seconds: u64) {
        let until = self.now + seconds;
        while let Some(due) = self.deadlines.next_due() {
            if due > until {
                break;
            }
            let (_, (subscription, ack_id)) = self.deadlines.pop_due(due).expect("due");
            self.now = self.now.max(due);
            let Some(sub) = self.subscriptions.get(&subscription) else {
                continue;
            };
            let position = sub.entries.iter().position(|e| {
                matches!(e.state, State::Outstanding { ack_id: a, deadline } if a == ack_id && deadline == due)
            });
            if let Some(position) = position {
                let id = format_ack_id(ack_id);
                sim.event("pubsub", Glyph::Normal, || {
                    (String::new(), format!("ack deadline of {id} passed"))
                });
                self.attempt_failed(sim, &subscription, position);
            }
        }
        self.now = until;
        sim.advance(seconds);
    }

    /// A delivery attempt ended without an ack (nack or expired deadline): count it,
    /// forward a dead letter or deliver again, and with ordering bring back the later
    /// messages of the key.
    pub(super) fn attempt_failed(&mut self, sim: &mut Sim, subscription: &str, position: usize) {
        let forwarding = self.can_forward_dead_letters(subscription);
        let sub = self.subscriptions.get_mut(subscription).expect("exists");
        let policy = sub.config.dead_letter_policy.clone();
        let dead_lettering = policy.is_some() && forwarding;
        let entry = &mut sub.entries[position];
        entry.state = State::Pending;
        if let (Some(policy), true) = (policy, forwarding) {
            entry.attempts += 1;
            let next = entry.attempts;
            let max = policy.max_delivery_attempts;
            let forward = if next > max {
                let options = ["forward", "deliver once more"];
                choose(&self.nominal, sim, "pubsub:dead-letter", &options) == 0
            } else if next == max {
                let options = ["deliver again", "forward early"];
                choose(&self.nominal, sim, "pubsub:dead-letter", &options) == 1
            } else {
                false
            };
            if forward {
                let topic = &policy.dead_letter_topic;
                self.forward_dead_letter(sim, subscription, position, topic, next - 1);
                return;
            }
        }
        // A forwarded message (above) leaves its key without a cascade: the later
        // messages of the key keep their state, and the key has a gap.
        self.redeliver_later_messages_of_key(sim, subscription, position, dead_lettering);
    }

    /// Forwards the message at `position` to the dead-letter `topic` after `attempts`
    /// delivery attempts: published there as a new message with the source's attributes,
    /// and acknowledged on the source.
    fn forward_dead_letter(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        position: usize,
        topic: &str,
        attempts: u32,
    ) {
        let entry = &mut self
            .subscriptions
            .get_mut(subscription)
            .expect("exists")
            .entries[position];
        entry.state = State::Acked;
        let original = self.messages[entry.msg].clone();
        let mut attributes = original.attributes.clone();
        attributes.insert(ATTR_SOURCE_SUBSCRIPTION.into(), subscription.to_string());
        attributes.insert(ATTR_SOURCE_DELIVERY_COUNT.into(), attempts.to_string());
        let copy = PubsubMessage {
            data: original.data.clone(),
            ordering_key: original.ordering_key.clone(),
            attributes,
        };
        self.store(topic, copy);
        sim.event("pubsub", Glyph::Fault, || {
            (
                String::new(),
                format!(
                    "message {} forwarded to {topic} after {attempts} attempt(s)",
                    original.message_id
                ),
            )
        });
    }

    /// With ordering, delivering a message again brings back every later message of its
    /// key that was already delivered, acknowledged or not. Two documented exceptions:
    /// with exactly-once delivery, a message once acknowledged stays acknowledged and out
    /// of the cascade; and with a working dead-letter policy as well, the cascade
    /// "might not be the case", a choice of the fault core.
    fn redeliver_later_messages_of_key(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        position: usize,
        dead_lettering: bool,
    ) {
        let Some((key, later)) = self.later_delivered_of_key(subscription, position) else {
            return;
        };
        if dead_lettering
            && choose(
                &self.nominal,
                sim,
                "pubsub:ordered-dead-letter",
                &[
                    "later messages of the key delivered again",
                    "only this message delivered again",
                ],
            ) == 1
        {
            sim.event("pubsub", Glyph::Fault, || {
                (
                    String::new(),
                    format!("key {key}: later messages not delivered again (dead-letter policy)"),
                )
            });
            return;
        }
        let sub = self.subscriptions.get_mut(subscription).expect("exists");
        let mut brought_back = Vec::new();
        for p in later {
            let entry = &mut sub.entries[p];
            let id = &self.messages[entry.msg].message_id;
            brought_back.push((id.clone(), entry.state == State::Acked));
            entry.state = State::Pending;
        }
        sim.event("pubsub", Glyph::Normal, || {
            let list: Vec<String> = brought_back
                .iter()
                .map(|(id, acked)| match acked {
                    true => format!("{id} (acked)"),
                    false => id.clone(),
                })
                .collect();
            (
                String::new(),
                format!("key {key}: {} delivered again too", list.join(", ")),
            )
        });
    }

    /// With ordering, the key of the message at `position` and the positions of the later
    /// messages of that key the cascade brings back (delivered, and not acknowledged for
    /// good by exactly-once delivery); none without ordering, without a key, or when there
    /// is no such message.
    fn later_delivered_of_key(
        &self,
        subscription: &str,
        position: usize,
    ) -> Option<(String, Vec<usize>)> {
        let sub = &self.subscriptions[subscription];
        let key = &self.messages[sub.entries[position].msg].ordering_key;
        if !sub.config.enable_message_ordering || key.is_empty() {
            return None;
        }
        let exactly_once = sub.config.enable_exactly_once_delivery;
        let later: Vec<usize> = (position + 1..sub.entries.len())
            .filter(|&p| {
                let entry = &sub.entries[p];
                self.messages[entry.msg].ordering_key == *key
                    && entry.state != State::Pending
                    && entry.deliveries > 0
                    && !(exactly_once && entry.state == State::Acked)
            })
            .collect();
        (!later.is_empty()).then(|| (key.clone(), later))
    }
}
