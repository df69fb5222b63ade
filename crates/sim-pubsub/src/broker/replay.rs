//! Snapshots and seek: the acknowledgement state of the retained messages set in bulk,
//! and the minute in which pulls may still see the state before the seek.

use super::{Broker, Entry, Snapshot, State};
use crate::error::check_name;
use crate::{Code, PubSubError, SEEK_SETTLE_SECONDS, SeekTarget};
use labkit::fault::{Glyph, Sim};
use std::collections::BTreeSet;

impl Broker {
    pub fn create_snapshot(&mut self, name: &str, subscription: &str) -> Result<(), PubSubError> {
        check_name("snapshot", name)?;
        if self.snapshots.contains_key(name) {
            return Err(PubSubError::new(
                Code::AlreadyExists,
                format!("snapshot {name}"),
            ));
        }
        let sub = self.subscription(subscription)?;
        let acked = sub
            .entries
            .iter()
            .filter(|e| e.state == State::Acked)
            .map(|e| e.msg)
            .collect();
        self.snapshots.insert(
            name.to_string(),
            Snapshot {
                subscription: subscription.to_string(),
                acked,
            },
        );
        Ok(())
    }

    /// `Seek`: sets the acknowledgement state of the retained messages in bulk.
    pub fn seek(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        target: SeekTarget,
    ) -> Result<(), PubSubError> {
        let snapshot = match &target {
            SeekTarget::Snapshot(name) => Some(self.snapshot_for(subscription, name)?),
            SeekTarget::Time(_) => None,
        };
        let now = self.now;
        let topic_retention = {
            let sub = self.subscription(subscription)?;
            self.topics[&sub.config.topic].message_retention_duration
        };
        let sub = self.subscriptions.get_mut(subscription).expect("checked");
        let (retain_acked, retention) = (
            sub.config.retain_acked_messages,
            sub.config.message_retention_duration,
        );
        let mut replayed = 0;
        let mut purged = 0;
        for entry in &mut sub.entries {
            let message = &self.messages[entry.msg];
            let age = now - message.publish_time;
            let was_waiting = entry.state != State::Acked;
            let acked_now = match (&snapshot, &target) {
                (Some(acked), _) => acked.contains(&entry.msg),
                (None, SeekTarget::Time(t)) => message.publish_time < *t,
                (None, SeekTarget::Snapshot(_)) => unreachable!("snapshot resolved above"),
            };
            // A snapshot retains what was unacknowledged when it was taken and everything
            // published after it; otherwise an acknowledged message is back only if the
            // subscription or the topic retained it.
            let retained = if was_waiting {
                age <= retention
            } else {
                snapshot.is_some()
                    || (retain_acked && age <= retention)
                    || topic_retention.is_some_and(|r| age <= r)
            };
            match apply_seek(entry, acked_now, retained) {
                Seeked::Acknowledged => purged += 1,
                Seeked::Replayed => replayed += 1,
                Seeked::Unchanged => {}
            }
        }
        sub.seek_settles_at = Some(now + SEEK_SETTLE_SECONDS);
        sim.event("operator", Glyph::Normal, || {
            (
                format!("seek {subscription} to {target:?}"),
                format!("{replayed} message(s) marked unacknowledged, {purged} acknowledged"),
            )
        });
        Ok(())
    }

    /// The messages acknowledged in snapshot `name`, which `subscription` may seek to: a
    /// snapshot of a subscription of the same topic.
    fn snapshot_for(&self, subscription: &str, name: &str) -> Result<BTreeSet<usize>, PubSubError> {
        check_name("snapshot", name)?;
        let snapshot = self
            .snapshots
            .get(name)
            .ok_or_else(|| PubSubError::new(Code::NotFound, format!("snapshot {name}")))?;
        if snapshot.subscription != subscription {
            let topic = &self.subscription(&snapshot.subscription)?.config.topic;
            if *topic != self.subscription(subscription)?.config.topic {
                return Err(PubSubError::new(
                    Code::InvalidArgument,
                    "the snapshot's topic must be the subscription's topic",
                ));
            }
        }
        Ok(snapshot.acked.clone())
    }
}

/// What a seek did to one message.
enum Seeked {
    /// Marked acknowledged (a pull before the seek settles may still hand it out).
    Acknowledged,
    /// Marked unacknowledged: delivered again.
    Replayed,
    Unchanged,
}

/// Sets one entry's state as a seek decides: `acked_now` when the seek's target has it
/// acknowledged, `retained` when the service still holds it.
fn apply_seek(entry: &mut Entry, acked_now: bool, retained: bool) -> Seeked {
    let was_waiting = entry.state != State::Acked;
    if acked_now {
        if was_waiting {
            entry.state = State::Acked;
            entry.stale_after_seek = true;
            return Seeked::Acknowledged;
        }
    } else if retained && !was_waiting {
        entry.state = State::Pending;
        entry.replayed_by_seek = true;
        return Seeked::Replayed;
    } else if let State::Outstanding { .. } = entry.state {
        // Outstanding leases end at a seek; the message is delivered again.
        entry.state = State::Pending;
    }
    Seeked::Unchanged
}
