//! The broker: its state (every topic, subscription, snapshot and IAM binding of one
//! project, the messages, the ack deadlines), what tests and reports read of it, and the
//! helpers its calls share. The calls themselves are in the submodules, by concern:
//! `admin` (topics, subscriptions, IAM), `pull` (publishing and pulling), `ack`
//! (acknowledgements and deadlines), `redelivery` (the clock, expired deadlines, dead
//! letters, the ordering cascade) and `replay` (snapshots and seek).

use crate::error::check_name;
use crate::{AckState, Code, Message, PubSubError, Resource, SubscriptionConfig};
use labkit::fault::{Sim, Timers};
use std::collections::{BTreeMap, BTreeSet};

mod ack;
mod admin;
mod pull;
mod redelivery;
mod replay;

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
pub(crate) struct Subscription {
    pub(crate) config: SubscriptionConfig,
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
    pub(crate) subscriptions: BTreeMap<String, Subscription>,
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
