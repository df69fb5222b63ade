//! Administration: topics, subscriptions and their validation, IAM bindings (which
//! decide whether the service agent may forward dead letters).

use super::{Broker, Subscription, Topic};
use crate::error::check_name;
use crate::{
    Code, DEFAULT_ACK_DEADLINE_SECONDS, DeadLetterPolicy, MESSAGE_RETENTION_RANGE, PubSubError,
    ROLE_PUBLISHER, ROLE_SUBSCRIBER, Resource, SERVICE_AGENT, SubscriptionConfig,
};

impl Broker {
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
}
