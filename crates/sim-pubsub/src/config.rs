//! What an administrator configures and names: a subscription's settings
//! ([`SubscriptionConfig`], [`DeadLetterPolicy`]), the resources IAM bindings attach to
//! ([`Resource`]), where a seek goes ([`SeekTarget`]), and the acknowledgement state a
//! test or report reads ([`AckState`]).

use crate::{DEFAULT_ACK_DEADLINE_SECONDS, SEVEN_DAYS};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadLetterPolicy {
    pub dead_letter_topic: String,
    /// 5–100; 0 means the default, 5.
    pub max_delivery_attempts: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionConfig {
    pub name: String,
    pub topic: String,
    pub ack_deadline_seconds: u64,
    pub enable_message_ordering: bool,
    pub retain_acked_messages: bool,
    pub message_retention_duration: u64,
    pub dead_letter_policy: Option<DeadLetterPolicy>,
    /// Exactly-once delivery: acknowledgements report whether they succeeded, and only
    /// the latest ack id of a message can acknowledge it.
    pub enable_exactly_once_delivery: bool,
}

impl SubscriptionConfig {
    /// The defaults: a 10-second ack deadline, no ordering, acknowledged messages not
    /// retained, seven days' retention, no dead-letter policy, no exactly-once delivery.
    pub fn new(name: &str, topic: &str) -> Self {
        SubscriptionConfig {
            name: name.to_string(),
            topic: topic.to_string(),
            ack_deadline_seconds: DEFAULT_ACK_DEADLINE_SECONDS,
            enable_message_ordering: false,
            retain_acked_messages: false,
            message_retention_duration: SEVEN_DAYS,
            dead_letter_policy: None,
            enable_exactly_once_delivery: false,
        }
    }
}

/// A resource an IAM binding is attached to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Resource {
    Project,
    Topic(String),
    Subscription(String),
}

/// Where a seek goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeekTarget {
    /// Messages published before this time are marked acknowledged, the retained ones
    /// published at or after it unacknowledged.
    Time(u64),
    Snapshot(String),
}

/// The acknowledgement state of one message in one subscription, for tests and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckState {
    /// Waiting to be delivered (first time or again).
    Pending,
    /// Delivered; the ack deadline has not passed.
    Outstanding,
    Acknowledged,
}
