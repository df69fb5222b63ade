//! Messages as the publisher hands them over ([`PubsubMessage`]), as the service stores
//! them ([`Message`]) and as a pull delivers them ([`ReceivedMessage`]), and what the
//! service answers for an acknowledgement ([`AckResponse`]).

use std::collections::BTreeMap;

/// A message as the publisher hands it over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PubsubMessage {
    pub data: String,
    /// Empty means "no ordering key".
    pub ordering_key: String,
    pub attributes: BTreeMap<String, String>,
}

impl PubsubMessage {
    pub fn new(data: impl Into<String>) -> Self {
        PubsubMessage {
            data: data.into(),
            ..Default::default()
        }
    }

    pub fn with_key(data: impl Into<String>, ordering_key: impl Into<String>) -> Self {
        PubsubMessage {
            data: data.into(),
            ordering_key: ordering_key.into(),
            ..Default::default()
        }
    }
}

/// A message as the service stored it: the publisher's message plus the server-assigned
/// `message_id` and `publish_time` (seconds on the broker's clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub message_id: String,
    pub publish_time: u64,
    pub data: String,
    pub ordering_key: String,
    pub attributes: BTreeMap<String, String>,
}

/// One delivery of a message to a subscriber.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceivedMessage {
    pub ack_id: String,
    pub message: Message,
    /// The approximate delivery attempt: 1 + nacks + expired deadlines; 0 when the
    /// subscription has no working dead-letter policy.
    pub delivery_attempt: u32,
}

/// What the service answered for one ack id of an acknowledgement (the client
/// libraries' `AckResponse`: Java `AckResponse`, Python `AcknowledgeStatus`, Node
/// `AckResponses`). Without exactly-once delivery every ack is answered `Success` at once,
/// whatever becomes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AckResponse {
    Success,
    /// `PERMANENT_FAILURE_INVALID_ACK_ID`: the ack id is not the message's latest (its
    /// deadline passed, or the message was delivered again with a new one). The message
    /// was not acknowledged by this request.
    InvalidAckId,
    /// Any other failure: the acknowledgement may not have been recorded, and the message
    /// may be delivered again.
    Other,
}
