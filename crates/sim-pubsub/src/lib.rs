//! A simulated Cloud Pub/Sub broker: the world of labs 05 ("Per-key ordering and
//! redelivery") and 06 ("Dead letters and replay").
//!
//! What is modelled, in Pub/Sub's vocabulary (each behaviour is pinned by a test in
//! `tests.rs` that quotes the documentation sentence it follows):
//!
//! * **Topics** and pull **subscriptions**, named by IDs that follow the documented rule
//!   (a letter first, 3–255 characters of letters, digits and `- _ . ~ + %`, not
//!   starting with `goog`); an empty or malformed name is `INVALID_ARGUMENT`, never
//!   `NOT_FOUND`. A subscription receives every message published to its topic after the
//!   subscription was created. [`Broker::pull`] hands out [`ReceivedMessage`]s, each with
//!   an **ack id** and an **ack deadline** (`ack_deadline_seconds`, 10–600; 0 means the
//!   default, 10). Delivery is **at least once**: a message that is not acknowledged
//!   before its deadline, or that is **nacked** (`ModifyAckDeadline` with 0 seconds), is
//!   delivered again. Only an explicit `Acknowledge` acknowledges: nothing is acked
//!   because a handler returned. An **acknowledgement is best effort**: the fault core
//!   may lose it (the client sees success, the service never records it).
//! * **Exactly-once delivery** (`enable_exactly_once_delivery`):
//!   [`Broker::acknowledge_with_response`] tells the subscriber whether each ack
//!   succeeded; only a message's latest ack id acknowledges it (an expired or replaced
//!   one is `InvalidAckId`); the fault core may fail an ack, and then says so; a
//!   successful ack is never followed by a redelivery, not even by the ordering
//!   cascade. It does not make processing exactly once: a subscriber that applied an
//!   effect and then failed to ack gets the message again.
//! * The **subscriber client's lease management** ([`LeaseManager`]): while a callback
//!   holds a message, the high-level client extends its ack deadline with
//!   `ModifyAckDeadline`, up to a maximum extension period (an hour by default); the raw
//!   `Pull` call extends nothing.
//! * The **publisher client** ([`Publisher`]): with message ordering, a failed publish
//!   pauses its ordering key, and the publisher refuses that key's later messages until
//!   `resume_publish`.
//! * **Ordering keys**. With `enable_message_ordering`, messages of one non-empty key are
//!   delivered in publish order, and when one of them is delivered again, every later
//!   message of that key that had already been delivered is delivered again too, *even
//!   the acknowledged ones*, unless a dead-letter policy is in place too: then that
//!   cascade "might not be the case" (a choice of the fault core), and a message
//!   forwarded as a dead letter leaves its key with a gap. Nothing orders messages of
//!   different keys: which key a pull serves first is a choice of the fault core. Without
//!   ordering, a pull may hand out any order at all.
//! * A **dead-letter policy** (`dead_letter_topic`, `max_delivery_attempts` in 5–100, 0
//!   meaning 5). The delivery attempt count is 1 + nacks + expired deadlines. Forwarding
//!   is **best effort**: near the maximum the fault core may forward one attempt early or
//!   deliver once more. Forwarding (and the count itself) happens only when the **Pub/Sub
//!   service agent** (`service-PROJECT_NUMBER@gcp-sa-pubsub.iam.gserviceaccount.com`)
//!   holds `roles/pubsub.publisher` on the dead-letter topic *and*
//!   `roles/pubsub.subscriber` on the source subscription; any other principal's roles,
//!   an operator's `roles/owner` included, do not count. A forwarded message is
//!   published to the dead-letter topic as a new message and acknowledged on the source.
//! * **Retention**: `retain_acked_messages` and `message_retention_duration` on the
//!   subscription, `message_retention_duration` on the topic (both 10 minutes to 31
//!   days). **Snapshots** and **seek** (to a time or to a snapshot) change
//!   acknowledgement state in bulk; a seek restores only what is retained. **Delivery after a seek is not instantaneous**: for
//!   [`SEEK_SETTLE_SECONDS`] after a seek, each pull is a choice of the fault core
//!   between the new state and the state before the seek (messages the seek marked
//!   acknowledged may still arrive; replayed messages may not arrive yet).
//!
//! Every nondeterministic decision goes through the [`Sim`](labkit::fault::Sim): the
//! order a pull hands out across keys (`pubsub:pull-order`), whether an ack is recorded
//! or lost (or, with exactly-once delivery, fails) (`pubsub:ack`), forwarding near the
//! maximum attempts (`pubsub:dead-letter`), whether the ordering cascade happens when a
//! dead-letter policy is in place (`pubsub:ordered-dead-letter`), which state a pull
//! after a seek sees (`pubsub:after-seek`), and whether a [`Publisher`]'s publish fails
//! (`pubsub:publish`). Option 0 is always the documented nominal behaviour, and a
//! scenario may switch any of the broker's sites off ([`Broker::without_fault`]) to study
//! the others. Ack deadlines are [`Timers`](labkit::fault::Timers) on the broker's own
//! logical clock, in seconds, which moves only when [`Broker::advance`] is called (and
//! then moves the fault core's clock by the same amount).
//!
//! Simplifications, said once here and again in the chapters:
//!
//! * Pull only, with explicit acks: no push subscriptions (where the endpoint's HTTP
//!   answer acknowledges), no function triggers, no streaming pull, no flow control, no
//!   retry policy (redelivery is immediate after a nack or an expiry), no filters, no
//!   schemas, no regions (exactly-once delivery is regional and pull-only in the real
//!   service). [`Broker::publish`] always succeeds, once; only the [`Publisher`] client
//!   can fail, and then the message was not stored (no publish whose response was lost,
//!   no batching: one message per request), unless the publisher is built with
//!   [`Publisher::with_unknown_failures`]: then a publish can also time out after it was
//!   stored (`DEADLINE_EXCEEDED`), as a real one can.
//! * Lease management extends by a fixed amount halfway through each extension; the real
//!   clients derive the extension from the 99th percentile of ack delays.
//! * Exactly-once delivery covers `Acknowledge` only: `ModifyAckDeadline` with a stale
//!   ack id is ignored as without it, and acknowledging the same id twice answers
//!   `InvalidAckId` the second time.
//! * A pull returns every deliverable message up to `max_messages`; within a key it hands
//!   out messages in order and may hand out several outstanding messages of one key, as
//!   the service does.
//! * Retention is evaluated when a seek runs; messages that expire unacknowledged are not
//!   dropped (the labs run for minutes, the minimum retention is ten minutes). A seek to a
//!   time before the subscription was created does not bring back messages published
//!   before it.
//! * The approximate attempt count is modelled as "one early, or one more, near the
//!   maximum"; the documented reset of the count to zero for inactive pull subscribers is
//!   not modelled.
//! * Callers' own permissions are not checked; IAM matters only for the service agent's
//!   forwarding of dead letters.
//!
//! State lives in plain structs (the broker is the service; a crash of a consumer does not
//! touch it), so that an exhaustive exploration stays fast.

mod broker;
mod config;
mod error;
mod lease;
mod message;
mod publisher;
#[cfg(test)]
mod tests;

pub use broker::Broker;
pub use config::{AckState, DeadLetterPolicy, Resource, SeekTarget, SubscriptionConfig};
pub use error::{Code, PubSubError};
pub use lease::{DEFAULT_MAX_EXTENSION_SECONDS, LeaseManager};
pub use message::{AckResponse, Message, PubsubMessage, ReceivedMessage};
pub use publisher::{PublishError, Publisher};

/// The project number of the simulated project.
pub const PROJECT_NUMBER: u64 = 123_456_789;
/// The Pub/Sub service agent of the project: the identity that forwards dead letters.
pub const SERVICE_AGENT: &str =
    "serviceAccount:service-123456789@gcp-sa-pubsub.iam.gserviceaccount.com";
pub const ROLE_PUBLISHER: &str = "roles/pubsub.publisher";
pub const ROLE_SUBSCRIBER: &str = "roles/pubsub.subscriber";
/// How long, in seconds, pulls after a seek may still see the state before it. The replay
/// page says delivery is eventually consistent with a seek, and gives the operation about
/// a minute to take full effect: a typical figure, which the simulator uses as a bound.
pub const SEEK_SETTLE_SECONDS: u64 = 60;
/// The default of `message_retention_duration`: seven days, in seconds.
pub const SEVEN_DAYS: u64 = 7 * 24 * 3600;
/// The ack deadline a subscription gets when it asks for none (0).
pub const DEFAULT_ACK_DEADLINE_SECONDS: u64 = 10;
/// The range of `message_retention_duration`, on a subscription or a topic: 10 minutes
/// to 31 days, in seconds.
pub const MESSAGE_RETENTION_RANGE: std::ops::RangeInclusive<u64> = 600..=31 * 24 * 3600;

/// The attribute names Pub/Sub adds to a forwarded dead letter.
pub const ATTR_SOURCE_SUBSCRIPTION: &str = "CloudPubSubDeadLetterSourceSubscription";
pub const ATTR_SOURCE_DELIVERY_COUNT: &str = "CloudPubSubDeadLetterSourceDeliveryCount";
