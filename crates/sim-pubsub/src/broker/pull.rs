//! Publishing (a message is stored once and becomes an entry of every subscription of its
//! topic) and pulling (which messages a pull may hand out, in which order, and what a pull
//! sees while a seek settles).

use super::{Broker, Entry, State, choose, format_ack_id, key_label};
use crate::{Message, PubSubError, PubsubMessage, ReceivedMessage};
use labkit::fault::{Glyph, Sim};
use std::collections::BTreeSet;

impl Broker {
    /// Publishes one message; returns its `message_id`.
    pub fn publish(
        &mut self,
        sim: &mut Sim,
        topic: &str,
        message: PubsubMessage,
    ) -> Result<String, PubSubError> {
        self.topic_mut(topic)?;
        let index = self.store(topic, message);
        let stored = &self.messages[index];
        sim.note("publisher", || {
            format!(
                "publish {} to {topic}: {} {}",
                stored.message_id,
                key_label(&stored.ordering_key),
                stored.data
            )
        });
        Ok(stored.message_id.clone())
    }

    pub(super) fn store(&mut self, topic: &str, message: PubsubMessage) -> usize {
        let index = self.messages.len();
        self.messages.push(Message {
            message_id: (index + 1).to_string(),
            publish_time: self.now,
            data: message.data,
            ordering_key: message.ordering_key,
            attributes: message.attributes,
        });
        if let Some(t) = self.topics.get_mut(topic) {
            t.log.push(index);
        }
        for sub in self.subscriptions.values_mut() {
            if sub.config.topic == topic {
                sub.entries.push(Entry {
                    msg: index,
                    state: State::Pending,
                    attempts: 0,
                    deliveries: 0,
                    stale_after_seek: false,
                    replayed_by_seek: false,
                });
            }
        }
        index
    }

    /// `Pull`: up to `max_messages` deliverable messages.
    pub fn pull(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        max_messages: usize,
    ) -> Result<Vec<ReceivedMessage>, PubSubError> {
        if self.seek_unsettled(subscription)?
            && choose(
                &self.nominal,
                sim,
                "pubsub:after-seek",
                &["seek in effect", "state before the seek"],
            ) == 1
        {
            return Ok(self.pull_stale(sim, subscription, max_messages));
        }
        let picked = self.deliverable(subscription, max_messages);
        let picked = self.order_across_keys(sim, subscription, picked);
        let counted = self.can_forward_dead_letters(subscription)
            && self.subscriptions[subscription]
                .config
                .dead_letter_policy
                .is_some();
        Ok(picked
            .into_iter()
            .map(|position| self.deliver(sim, subscription, position, counted))
            .collect())
    }

    /// Whether a pull now may still see the state before the last seek: the seek has not
    /// settled, and it changed the state of a message.
    fn seek_unsettled(&self, subscription: &str) -> Result<bool, PubSubError> {
        let sub = self.subscription(subscription)?;
        Ok(sub.seek_settles_at.is_some_and(|t| self.now < t)
            && sub
                .entries
                .iter()
                .any(|e| e.stale_after_seek || e.replayed_by_seek))
    }

    /// Hands out the message at `position` with a new ack id and deadline; `counted` says
    /// whether the delivery attempt is reported (a working dead-letter policy).
    fn deliver(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        position: usize,
        counted: bool,
    ) -> ReceivedMessage {
        let sub = self.subscriptions.get_mut(subscription).expect("checked");
        let entry = &mut sub.entries[position];
        self.next_ack_id += 1;
        let ack_id = self.next_ack_id;
        let deadline = self.now + sub.config.ack_deadline_seconds;
        entry.state = State::Outstanding { ack_id, deadline };
        entry.replayed_by_seek = false;
        entry.stale_after_seek = false;
        if entry.attempts == 0 {
            entry.attempts = 1;
        }
        entry.deliveries += 1;
        self.deadlines
            .set(deadline, (subscription.to_string(), ack_id));
        let received = ReceivedMessage {
            ack_id: format_ack_id(ack_id),
            message: self.messages[entry.msg].clone(),
            delivery_attempt: if counted { entry.attempts } else { 0 },
        };
        let deliveries = entry.deliveries;
        sim.event("pubsub", Glyph::Normal, || {
            (
                format!(
                    "deliver {} {} {} as {}",
                    received.message.message_id,
                    key_label(&received.message.ordering_key),
                    received.message.data,
                    received.ack_id
                ),
                format!("delivery {deliveries} of this message to {subscription}"),
            )
        });
        received
    }

    /// The positions (in publish order) of the messages a pull may hand out now.
    fn deliverable(&self, subscription: &str, max_messages: usize) -> Vec<usize> {
        let sub = &self.subscriptions[subscription];
        let ordered = sub.config.enable_message_ordering;
        let mut blocked: BTreeSet<&str> = BTreeSet::new();
        let mut picked = Vec::new();
        for (position, entry) in sub.entries.iter().enumerate() {
            let key = self.messages[entry.msg].ordering_key.as_str();
            let keyed = ordered && !key.is_empty();
            if entry.state != State::Pending || (keyed && blocked.contains(key)) {
                continue;
            }
            if picked.len() == max_messages {
                if !keyed {
                    continue;
                }
                // A later message of this key must wait for this one.
                blocked.insert(key);
                continue;
            }
            picked.push(position);
        }
        picked
    }

    /// Nothing orders different keys (or, without ordering, any two messages): the fault
    /// core may hand the batch out with the keys in reverse order.
    fn order_across_keys(
        &self,
        sim: &mut Sim,
        subscription: &str,
        picked: Vec<usize>,
    ) -> Vec<usize> {
        let sub = &self.subscriptions[subscription];
        let ordered = sub.config.enable_message_ordering;
        // Group by key (ordered, non-empty key) or one group per message.
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for &position in &picked {
            let key = &self.messages[sub.entries[position].msg].ordering_key;
            let group_key = if ordered && !key.is_empty() {
                key.clone()
            } else {
                format!("\u{0}{position}")
            };
            match groups.iter_mut().find(|(k, _)| *k == group_key) {
                Some((_, members)) => members.push(position),
                None => groups.push((group_key, vec![position])),
            }
        }
        if groups.len() < 2
            || choose(
                &self.nominal,
                sim,
                "pubsub:pull-order",
                &["publish order", "keys in reverse order"],
            ) == 0
        {
            return picked;
        }
        groups.reverse();
        groups
            .into_iter()
            .flat_map(|(_, members)| members)
            .collect()
    }

    /// A pull that still sees the state before the last seek: it may hand out messages
    /// the seek marked acknowledged, and does not hand out the replayed ones yet.
    fn pull_stale(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        max_messages: usize,
    ) -> Vec<ReceivedMessage> {
        let sub = self
            .subscriptions
            .get_mut(subscription)
            .expect("checked by caller");
        let mut out = Vec::new();
        for entry in sub.entries.iter_mut().filter(|e| e.stale_after_seek) {
            if out.len() == max_messages {
                break;
            }
            entry.stale_after_seek = false;
            entry.deliveries += 1;
            self.next_ack_id += 1;
            let received = ReceivedMessage {
                // The seek already acknowledged it: acking this id changes nothing.
                ack_id: format_ack_id(self.next_ack_id),
                message: self.messages[entry.msg].clone(),
                delivery_attempt: 0,
            };
            out.push(received);
        }
        sim.event("pubsub", Glyph::Fault, || {
            let ids: Vec<&str> = out.iter().map(|r| r.message.message_id.as_str()).collect();
            (
                format!("pull from {subscription} -> [{}]", ids.join(", ")),
                "the seek has not taken effect for this pull yet".into(),
            )
        });
        out
    }
}
