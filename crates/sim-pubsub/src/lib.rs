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
//! Every nondeterministic decision goes through the [`Sim`]: the order a pull hands out
//! across keys (`pubsub:pull-order`), whether an ack is recorded or lost (or, with
//! exactly-once delivery, fails) (`pubsub:ack`), forwarding near the maximum attempts
//! (`pubsub:dead-letter`), whether the ordering cascade happens when a dead-letter policy
//! is in place (`pubsub:ordered-dead-letter`), which state a pull after a seek sees
//! (`pubsub:after-seek`), and whether a [`Publisher`]'s publish fails (`pubsub:publish`).
//! Option 0 is always the documented nominal behaviour, and a scenario may switch any of
//! the broker's sites off ([`Broker::without_fault`]) to study the others. Ack deadlines
//! are [`Timers`] on the broker's own logical clock, in seconds, which moves only when
//! [`Broker::advance`] is called (and then moves the fault core's clock by the same
//! amount).
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

use labkit::fault::{Glyph, Sim, Timers};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

mod lease;
mod publisher;
#[cfg(test)]
mod tests;

pub use lease::{DEFAULT_MAX_EXTENSION_SECONDS, LeaseManager};
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

/// The canonical error codes the simulated API returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    NotFound,
    AlreadyExists,
    InvalidArgument,
    /// A publish the service did not accept (after the client's own retries).
    Unavailable,
    /// A publish that timed out (after the client's own retries): it may have been stored.
    DeadlineExceeded,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PubSubError {
    pub code: Code,
    pub message: String,
}

impl PubSubError {
    fn new(code: Code, message: impl Into<String>) -> Self {
        PubSubError {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for PubSubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = match self.code {
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::Unavailable => "UNAVAILABLE",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        };
        write!(f, "{code}: {}", self.message)
    }
}

impl std::error::Error for PubSubError {}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Pending,
    Outstanding { ack_id: u64, deadline: u64 },
    Acked,
}

#[derive(Clone, Debug)]
struct Entry {
    /// Index into `Broker::messages`.
    msg: usize,
    state: State,
    /// Delivery attempts as the service tracks them: 1 + nacks + expiries (only counted
    /// while a working dead-letter policy is in place).
    attempts: u32,
    /// How often the message was really handed to a subscriber.
    deliveries: u32,
    /// A pull before the seek settles may still hand this message out: the seek marked
    /// it acknowledged, the state before the seek had it waiting.
    stale_after_seek: bool,
    /// The seek made this message deliverable again; a pull before the seek settles may
    /// not see that yet.
    replayed_by_seek: bool,
}

#[derive(Clone, Debug)]
struct Topic {
    message_retention_duration: Option<u64>,
    /// Indices of the topic's messages in `Broker::messages`, in publish order.
    log: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Subscription {
    config: SubscriptionConfig,
    entries: Vec<Entry>,
    /// Pulls before this time may see the state before the last seek.
    seek_settles_at: Option<u64>,
}

#[derive(Clone, Debug)]
struct Snapshot {
    subscription: String,
    /// The messages acknowledged in the subscription when the snapshot was taken.
    acked: BTreeSet<usize>,
}

/// The broker: every topic, subscription, snapshot and IAM binding of one project.
#[derive(Clone, Debug, Default)]
pub struct Broker {
    now: u64,
    next_ack_id: u64,
    messages: Vec<Message>,
    topics: BTreeMap<String, Topic>,
    subscriptions: BTreeMap<String, Subscription>,
    snapshots: BTreeMap<String, Snapshot>,
    bindings: BTreeSet<(Resource, String, String)>,
    deadlines: Timers<(String, u64)>,
    /// Choice sites the scenario switched off: the broker takes their nominal option.
    nominal: BTreeSet<&'static str>,
}

impl Broker {
    pub fn new() -> Self {
        Self::default()
    }

    /// The broker's clock, in seconds.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Switches one of the broker's choice sites off (`"pubsub:ack"`, …): from now on the
    /// broker takes its nominal option there without asking the fault core. A graded
    /// world that studies one kind of fault switches the others off, so that its
    /// exploration stays small and its failures are about that fault.
    pub fn without_fault(&mut self, site: &'static str) {
        self.nominal.insert(site);
    }

    // ---- administration -------------------------------------------------------------

    pub fn create_topic(&mut self, name: &str) -> Result<(), PubSubError> {
        check_name("topic", name)?;
        if self.topics.contains_key(name) {
            return Err(PubSubError::new(
                Code::AlreadyExists,
                format!("topic {name}"),
            ));
        }
        self.topics.insert(
            name.to_string(),
            Topic {
                message_retention_duration: None,
                log: Vec::new(),
            },
        );
        Ok(())
    }

    /// Sets (or clears) the topic's `message_retention_duration`: 10 minutes to 31 days.
    pub fn set_topic_retention(
        &mut self,
        topic: &str,
        seconds: Option<u64>,
    ) -> Result<(), PubSubError> {
        if let Some(seconds) = seconds
            && !MESSAGE_RETENTION_RANGE.contains(&seconds)
        {
            return Err(PubSubError::new(
                Code::InvalidArgument,
                format!(
                    "the topic's message_retention_duration must be between 10 minutes and 31 days, got {seconds} s"
                ),
            ));
        }
        let topic = self.topic_mut(topic)?;
        topic.message_retention_duration = seconds;
        Ok(())
    }

    pub fn create_subscription(&mut self, config: SubscriptionConfig) -> Result<(), PubSubError> {
        check_name("subscription", &config.name)?;
        if self.subscriptions.contains_key(&config.name) {
            return Err(PubSubError::new(
                Code::AlreadyExists,
                format!("subscription {}", config.name),
            ));
        }
        self.topic_mut(&config.topic)?;
        let config = self.validate(config)?;
        self.subscriptions.insert(
            config.name.clone(),
            Subscription {
                config,
                entries: Vec::new(),
                seek_settles_at: None,
            },
        );
        Ok(())
    }

    /// Replaces a subscription's dead-letter policy (`UpdateSubscription`).
    pub fn update_dead_letter_policy(
        &mut self,
        subscription: &str,
        policy: Option<DeadLetterPolicy>,
    ) -> Result<(), PubSubError> {
        let mut config = self.subscription(subscription)?.config.clone();
        config.dead_letter_policy = policy;
        let config = self.validate(config)?;
        self.subscription_mut(subscription)?.config = config;
        Ok(())
    }

    fn validate(&self, mut config: SubscriptionConfig) -> Result<SubscriptionConfig, PubSubError> {
        if config.ack_deadline_seconds == 0 {
            config.ack_deadline_seconds = DEFAULT_ACK_DEADLINE_SECONDS;
        }
        if !(10..=600).contains(&config.ack_deadline_seconds) {
            return Err(PubSubError::new(
                Code::InvalidArgument,
                format!(
                    "ack_deadline_seconds must be between 10 and 600, got {}",
                    config.ack_deadline_seconds
                ),
            ));
        }
        if !MESSAGE_RETENTION_RANGE.contains(&config.message_retention_duration) {
            return Err(PubSubError::new(
                Code::InvalidArgument,
                "message_retention_duration must be between 10 minutes and 31 days",
            ));
        }
        if let Some(policy) = &mut config.dead_letter_policy {
            if policy.max_delivery_attempts == 0 {
                policy.max_delivery_attempts = 5;
            }
            if !(5..=100).contains(&policy.max_delivery_attempts) {
                return Err(PubSubError::new(
                    Code::InvalidArgument,
                    format!(
                        "max_delivery_attempts must be between 5 and 100, got {}",
                        policy.max_delivery_attempts
                    ),
                ));
            }
            check_name("dead-letter topic", &policy.dead_letter_topic)?;
            if !self.topics.contains_key(&policy.dead_letter_topic) {
                return Err(PubSubError::new(
                    Code::NotFound,
                    format!("dead-letter topic {}", policy.dead_letter_topic),
                ));
            }
        }
        Ok(config)
    }

    /// Adds one IAM binding: `member` gets `role` on `resource`.
    pub fn add_iam_binding(&mut self, resource: Resource, role: &str, member: &str) {
        self.bindings
            .insert((resource, role.to_string(), member.to_string()));
    }

    fn has_role(&self, member: &str, role: &str, resource: Resource) -> bool {
        let on = |r: Resource| {
            self.bindings
                .contains(&(r, role.to_string(), member.to_string()))
        };
        on(resource) || on(Resource::Project)
    }

    /// True when the service agent may forward this subscription's dead letters: publish
    /// on the dead-letter topic and subscribe on the source subscription.
    pub fn can_forward_dead_letters(&self, subscription: &str) -> bool {
        let Ok(sub) = self.subscription(subscription) else {
            return false;
        };
        let Some(policy) = &sub.config.dead_letter_policy else {
            return false;
        };
        self.has_role(
            SERVICE_AGENT,
            ROLE_PUBLISHER,
            Resource::Topic(policy.dead_letter_topic.clone()),
        ) && self.has_role(
            SERVICE_AGENT,
            ROLE_SUBSCRIBER,
            Resource::Subscription(subscription.to_string()),
        )
    }

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

    // ---- publishing -----------------------------------------------------------------

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

    fn store(&mut self, topic: &str, message: PubsubMessage) -> usize {
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

    // ---- subscribing ----------------------------------------------------------------

    /// `Pull`: up to `max_messages` deliverable messages.
    pub fn pull(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        max_messages: usize,
    ) -> Result<Vec<ReceivedMessage>, PubSubError> {
        let now = self.now;
        let unsettled = {
            let sub = self.subscription(subscription)?;
            sub.seek_settles_at.is_some_and(|t| now < t)
                && sub
                    .entries
                    .iter()
                    .any(|e| e.stale_after_seek || e.replayed_by_seek)
        };
        if unsettled
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
        let forwarding = self.can_forward_dead_letters(subscription);
        let sub = self
            .subscriptions
            .get_mut(subscription)
            .expect("checked above");
        let ack_deadline = sub.config.ack_deadline_seconds;
        let has_policy = sub.config.dead_letter_policy.is_some();
        let mut out = Vec::new();
        for position in picked {
            let entry = &mut sub.entries[position];
            self.next_ack_id += 1;
            let ack_id = self.next_ack_id;
            let deadline = now + ack_deadline;
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
                delivery_attempt: if has_policy && forwarding {
                    entry.attempts
                } else {
                    0
                },
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
            out.push(received);
        }
        Ok(out)
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
        let leases: Vec<Option<usize>> = ack_ids
            .iter()
            .map(|id| self.find_lease(subscription, id))
            .collect();
        let live: Vec<usize> = leases.iter().flatten().copied().collect();
        let mut responses: Vec<AckResponse> = leases
            .iter()
            .map(|lease| match (lease, exactly_once) {
                (None, true) => AckResponse::InvalidAckId,
                _ => AckResponse::Success,
            })
            .collect();
        let answered = |responses: &[AckResponse]| -> String {
            if !exactly_once {
                return "ok".into();
            }
            ack_ids
                .iter()
                .zip(responses)
                .map(|(id, r)| format!("{id}: {r:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let client = |responses: &[AckResponse]| {
            format!("ack {} -> {}", ack_ids.join(", "), answered(responses))
        };
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
    fn attempt_failed(&mut self, sim: &mut Sim, subscription: &str, position: usize) {
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
                let attempts = next - 1;
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
                self.store(&policy.dead_letter_topic, copy);
                sim.event("pubsub", Glyph::Fault, || {
                    (
                        String::new(),
                        format!(
                            "message {} forwarded to {} after {attempts} attempt(s)",
                            original.message_id, policy.dead_letter_topic
                        ),
                    )
                });
                return;
            }
        }
        // A forwarded message (above) leaves its key without a cascade: the later
        // messages of the key keep their state, and the key has a gap.
        self.redeliver_later_messages_of_key(sim, subscription, position, dead_lettering);
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
        let sub = self.subscriptions.get_mut(subscription).expect("exists");
        let key = self.messages[sub.entries[position].msg]
            .ordering_key
            .clone();
        if !sub.config.enable_message_ordering || key.is_empty() {
            return;
        }
        let exactly_once = sub.config.enable_exactly_once_delivery;
        let later: Vec<usize> = (position + 1..sub.entries.len())
            .filter(|&p| {
                let entry = &sub.entries[p];
                self.messages[entry.msg].ordering_key == key
                    && entry.state != State::Pending
                    && entry.deliveries > 0
                    && !(exactly_once && entry.state == State::Acked)
            })
            .collect();
        if later.is_empty() {
            return;
        }
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
        let mut brought_back = Vec::new();
        for p in later {
            let entry = &mut sub.entries[p];
            brought_back.push((
                self.messages[entry.msg].message_id.clone(),
                entry.state == State::Acked,
            ));
            entry.state = State::Pending;
        }
        {
            sim.event("pubsub", Glyph::Normal, || {
                let list: Vec<String> = brought_back
                    .iter()
                    .map(|(id, acked)| {
                        if *acked {
                            format!("{id} (acked)")
                        } else {
                            id.clone()
                        }
                    })
                    .collect();
                (
                    String::new(),
                    format!("key {key}: {} delivered again too", list.join(", ")),
                )
            });
        }
    }

    /// `Seek`: sets the acknowledgement state of the retained messages in bulk.
    pub fn seek(
        &mut self,
        sim: &mut Sim,
        subscription: &str,
        target: SeekTarget,
    ) -> Result<(), PubSubError> {
        let snapshot = match &target {
            SeekTarget::Snapshot(name) => {
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
                Some(snapshot.acked.clone())
            }
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
            if acked_now {
                if was_waiting {
                    entry.state = State::Acked;
                    entry.stale_after_seek = true;
                    purged += 1;
                }
            } else if retained && !was_waiting {
                entry.state = State::Pending;
                entry.replayed_by_seek = true;
                replayed += 1;
            } else if let State::Outstanding { .. } = entry.state {
                // Outstanding leases end at a seek; the message is delivered again.
                entry.state = State::Pending;
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

    // ---- observation (for tests and lab reports) --------------------------------------

    /// The messages published to a topic, in publish order.
    pub fn topic_messages(&self, topic: &str) -> Vec<Message> {
        self.topics
            .get(topic)
            .map(|t| t.log.iter().map(|&i| self.messages[i].clone()).collect())
            .unwrap_or_default()
    }

    /// How many of the subscription's messages are not acknowledged (the backlog).
    pub fn backlog(&self, subscription: &str) -> usize {
        self.subscriptions
            .get(subscription)
            .map(|s| s.entries.iter().filter(|e| e.state != State::Acked).count())
            .unwrap_or(0)
    }

    pub fn ack_state(&self, subscription: &str, message_id: &str) -> Option<AckState> {
        let entry = self.entry(subscription, message_id)?;
        Some(match entry.state {
            State::Pending => AckState::Pending,
            State::Outstanding { .. } => AckState::Outstanding,
            State::Acked => AckState::Acknowledged,
        })
    }

    /// How many times the message was really handed to a subscriber of `subscription`.
    pub fn deliveries(&self, subscription: &str, message_id: &str) -> u32 {
        self.entry(subscription, message_id)
            .map(|e| e.deliveries)
            .unwrap_or(0)
    }

    fn entry(&self, subscription: &str, message_id: &str) -> Option<&Entry> {
        self.subscriptions
            .get(subscription)?
            .entries
            .iter()
            .find(|e| self.messages[e.msg].message_id == message_id)
    }

    // ---- helpers ----------------------------------------------------------------------

    fn topic_mut(&mut self, name: &str) -> Result<&mut Topic, PubSubError> {
        check_name("topic", name)?;
        self.topics
            .get_mut(name)
            .ok_or_else(|| PubSubError::new(Code::NotFound, format!("topic {name}")))
    }

    fn subscription(&self, name: &str) -> Result<&Subscription, PubSubError> {
        check_name("subscription", name)?;
        self.subscriptions
            .get(name)
            .ok_or_else(|| PubSubError::new(Code::NotFound, format!("subscription {name}")))
    }

    fn subscription_mut(&mut self, name: &str) -> Result<&mut Subscription, PubSubError> {
        check_name("subscription", name)?;
        self.subscriptions
            .get_mut(name)
            .ok_or_else(|| PubSubError::new(Code::NotFound, format!("subscription {name}")))
    }

    fn find_lease(&self, subscription: &str, ack_id: &str) -> Option<usize> {
        let wanted = parse_ack_id(ack_id)?;
        self.subscriptions
            .get(subscription)?
            .entries
            .iter()
            .position(|e| matches!(e.state, State::Outstanding { ack_id, .. } if ack_id == wanted))
    }
}

/// A resource ID (the last part of `projects/{project}/topics/{topic}`, of a
/// subscription's or a snapshot's name): "must start with a letter, and contain only
/// letters ([A-Za-z]), numbers ([0-9]), dashes (-), underscores (_), periods (.), tildes
/// (~), plus (+) or percent signs (%). It must be between 3 and 255 characters in length,
/// and it must not start with "goog"." A name that breaks the rule is INVALID_ARGUMENT
/// whatever exists: the request is malformed, not about a missing resource.
fn check_name(kind: &str, name: &str) -> Result<(), PubSubError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.~+%".contains(c);
    let problem = if name.is_empty() {
        Some("is empty")
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some("must start with a letter")
    } else if !(3..=255).contains(&name.len()) {
        Some("must be between 3 and 255 characters long")
    } else if !name.chars().all(allowed) {
        Some("may contain only letters, numbers, - _ . ~ + %")
    } else if name.starts_with("goog") {
        Some("must not start with \"goog\"")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(PubSubError::new(
            Code::InvalidArgument,
            format!("the {kind} name {name:?} {problem}"),
        )),
        None => Ok(()),
    }
}

/// Asks the fault core at `site`, unless the scenario switched the site off
/// ([`Broker::without_fault`]): then the nominal option, 0.
fn choose(
    nominal: &BTreeSet<&'static str>,
    sim: &mut Sim,
    site: &'static str,
    options: &[&'static str],
) -> usize {
    if nominal.contains(site) {
        0
    } else {
        sim.choose(site, options)
    }
}

fn format_ack_id(n: u64) -> String {
    format!("ack-{n}")
}

fn parse_ack_id(text: &str) -> Option<u64> {
    text.strip_prefix("ack-")?.parse().ok()
}

fn key_label(key: &str) -> String {
    if key.is_empty() {
        "[no key]".into()
    } else {
        format!("[{key}]")
    }
}
