//! The mail provider: another system, with a searchable log of what it sent.

use labkit::fault::{Fate, Glyph, Sim};

/// The mail provider. Receipts are plain sends (no idempotency key), but the provider's
/// sent log can be searched by payment. Reminders accept an idempotency key: a second
/// send with the same key sends nothing.
#[derive(Debug, Default)]
pub struct MailProvider {
    /// Every e-mail really sent: (kind, subject), in order.
    pub sent: Vec<(&'static str, String)>,
    keys: Vec<String>,
}

/// The provider's response was lost: the e-mail may or may not have gone out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MailTimeout;

impl MailProvider {
    /// Sends one e-mail. With `timeouts`, the response may be lost: the caller sees a
    /// timeout whether or not the e-mail went out.
    pub(crate) fn send(
        &mut self,
        sim: &mut Sim,
        timeouts: bool,
        (kind, subject): (&'static str, &str),
        key: Option<&str>,
    ) -> Result<(), MailTimeout> {
        let fate = match timeouts {
            true => sim.fate(
                "mail:send",
                &[Fate::Ok, Fate::AppliedResponseLost, Fate::NotApplied],
            ),
            false => Fate::Ok,
        };
        let duplicate_key = key.is_some_and(|k| self.keys.iter().any(|seen| seen == k));
        let sent = fate != Fate::NotApplied && !duplicate_key;
        if sent {
            self.sent.push((kind, subject.to_string()));
            if let Some(k) = key {
                self.keys.push(k.to_string());
            }
        }
        let glyph = if fate == Fate::Ok {
            Glyph::Normal
        } else {
            Glyph::Indefinite
        };
        sim.event("mail", glyph, || {
            let seen = if fate == Fate::Ok {
                "sent"
            } else {
                "DEADLINE_EXCEEDED"
            };
            let truth = if fate == Fate::NotApplied {
                "the request never reached the provider: nothing sent".to_string()
            } else if duplicate_key {
                "idempotency key seen before: nothing sent".to_string()
            } else {
                format!("e-mail sent; {}", fate.label())
            };
            (format!("send {kind} for {subject} -> {seen}"), truth)
        });
        if fate == Fate::Ok {
            Ok(())
        } else {
            Err(MailTimeout)
        }
    }

    /// How many e-mails of `kind` about `subject` really went out.
    pub fn count(&self, kind: &str, subject: &str) -> usize {
        self.sent
            .iter()
            .filter(|(k, s)| *k == kind && s == subject)
            .count()
    }
}
