//! The publisher client: what the client libraries add on top of the `Publish` RPC when
//! messages carry ordering keys.
//!
//! With message ordering enabled on the publisher, a failed publish **pauses its ordering
//! key**: "When publishing with an ordering key fails, queued-up messages of the same
//! ordering key in the publisher fail, as well as future publish requests of this
//! ordering key." Nothing of that key is sent until the application calls
//! [`Publisher::resume_publish`], so the key's order on the topic cannot silently skip the
//! failed message. Other keys, and messages without a key, are not affected.
//!
//! A failed publish is not always a message that was not stored: a request that timed out
//! may have reached the service. [`Publisher::with_unknown_failures`] models that fate.

use crate::{Broker, Code, PubSubError, PubsubMessage};
use labkit::fault::{Glyph, Sim};
use std::collections::BTreeSet;
use std::fmt;

/// Why a publish returned no message id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublishError {
    /// The publish failed (the client's own retries included). With `UNAVAILABLE` the
    /// message was not stored; with `DEADLINE_EXCEEDED` (a [`Publisher`] with unknown
    /// failures) it may have been.
    Failed(PubSubError),
    /// The publisher refused the message before sending it: an earlier publish of this
    /// ordering key failed and the key has not been resumed.
    OrderingKeyPaused { ordering_key: String },
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Failed(error) => write!(f, "publish failed: {error}"),
            PublishError::OrderingKeyPaused { ordering_key } => write!(
                f,
                "ordering key {ordering_key} is paused after a failed publish: resume it first"
            ),
        }
    }
}

impl std::error::Error for PublishError {}

/// A publisher client for one topic.
#[derive(Clone, Debug)]
pub struct Publisher {
    topic: String,
    enable_message_ordering: bool,
    paused: BTreeSet<String>,
    /// A failed publish may have been stored (its response was lost after the client's
    /// retries); off unless a scenario asks for it.
    unknown_failures: bool,
}

impl Publisher {
    /// A publisher with message ordering disabled: a failed publish fails alone.
    pub fn new(topic: &str) -> Self {
        Publisher {
            topic: topic.to_string(),
            enable_message_ordering: false,
            paused: BTreeSet::new(),
            unknown_failures: false,
        }
    }

    /// A publisher with message ordering enabled (`setEnableMessageOrdering(true)`,
    /// `enable_message_ordering=True`, `EnableMessageOrdering = true`).
    pub fn with_message_ordering(topic: &str) -> Self {
        Publisher {
            enable_message_ordering: true,
            ..Publisher::new(topic)
        }
    }

    /// A publisher whose failed publishes may have been stored: a request that timed out
    /// after the client's retries (`DEADLINE_EXCEEDED`) may have reached the service, so
    /// the fault core offers a third fate, "fails after it was stored".
    pub fn with_unknown_failures(mut self) -> Self {
        self.unknown_failures = true;
        self
    }

    /// Publishes one message. The fault core may fail the request (`pubsub:publish`);
    /// with ordering, that pauses the message's key until [`Publisher::resume_publish`].
    pub fn publish(
        &mut self,
        sim: &mut Sim,
        broker: &mut Broker,
        message: PubsubMessage,
    ) -> Result<String, PublishError> {
        let key = message.ordering_key.clone();
        let ordered = self.enable_message_ordering && !key.is_empty();
        if ordered && self.paused.contains(&key) {
            sim.event("publisher", Glyph::Error, || {
                (
                    format!("publish [{key}] {} -> refused: key paused", message.data),
                    "nothing sent".into(),
                )
            });
            return Err(PublishError::OrderingKeyPaused { ordering_key: key });
        }
        let fates: &[&str] = if self.unknown_failures {
            &["accepted", "fails", "fails after it was stored"]
        } else {
            &["accepted", "fails"]
        };
        let fate = sim.choose("pubsub:publish", fates);
        match fate {
            2 => self.stored_but_timed_out(sim, broker, message, ordered),
            1 => self.not_stored(sim, message, ordered),
            _ => broker
                .publish(sim, &self.topic, message)
                .map_err(PublishError::Failed),
        }
    }

    /// A publish that was stored but timed out (`DEADLINE_EXCEEDED`): with ordering, its
    /// key pauses.
    fn stored_but_timed_out(
        &mut self,
        sim: &mut Sim,
        broker: &mut Broker,
        message: PubsubMessage,
        ordered: bool,
    ) -> Result<String, PublishError> {
        if ordered {
            self.paused.insert(message.ordering_key.clone());
        }
        let id = broker.publish(sim, &self.topic, message.clone());
        let id = id.map_err(PublishError::Failed)?;
        sim.event("publisher", Glyph::Indefinite, || {
            (
                format!("publish {} -> DEADLINE_EXCEEDED", message.data),
                format!("stored as message {id}; response lost"),
            )
        });
        Err(PublishError::Failed(PubSubError::new(
            Code::DeadlineExceeded,
            format!("publish to {} timed out", self.topic),
        )))
    }

    /// A publish the service did not accept (`UNAVAILABLE`): with ordering, its key
    /// pauses.
    fn not_stored(
        &mut self,
        sim: &mut Sim,
        message: PubsubMessage,
        ordered: bool,
    ) -> Result<String, PublishError> {
        let key = &message.ordering_key;
        if ordered {
            self.paused.insert(key.clone());
        }
        sim.event("publisher", Glyph::Fault, || {
            let paused = if ordered {
                format!("; key {key} paused")
            } else {
                String::new()
            };
            (
                format!("publish {} -> UNAVAILABLE", message.data),
                format!("not stored{paused}"),
            )
        });
        Err(PublishError::Failed(PubSubError::new(
            Code::Unavailable,
            format!("publish to {} failed", self.topic),
        )))
    }

    /// Lets the key's messages through again (`resumePublish`, `resume_publish`,
    /// `ResumePublish`). The application decides first what to do about the message
    /// that failed: publish it again, so the key's order holds, or give it up.
    pub fn resume_publish(&mut self, ordering_key: &str) {
        self.paused.remove(ordering_key);
    }

    /// True while the key is paused.
    pub fn is_paused(&self, ordering_key: &str) -> bool {
        self.paused.contains(ordering_key)
    }
}
