//! The figures of chapter 1, written into `book/src/figures` by `cargo labs bless`.

use crate::invariants::ALL_INVARIANTS;
use crate::scenarios::{Protocol, explore_relay};
use crate::world::Faults;
use labkit::figure::Sequence;

/// The relay across a lost response and a crash, with a receiver that recognises the
/// retry.
fn relay_sequence() -> String {
    Sequence::new(
        "The outbox relay: a lost response, a crash, a recognised retry",
        &["application", "outbox.db", "relay", "receiver"],
    )
    .call(
        "application",
        "outbox.db",
        "BEGIN; INSERT order S1; INSERT intent S1; COMMIT",
    )
    .divider("relay process 1")
    .call("relay", "outbox.db", "SELECT unsent intents")
    .reply("outbox.db", "relay", "S1 (120)")
    .call("relay", "receiver", "deliver S1, 120")
    .note("receiver", "applies S1 (new identity)")
    .lost("receiver", "relay", "Applied")
    .note("relay", "DEADLINE_EXCEEDED: outcome unknown")
    .crash("relay", "relay crashes; S1 stays unsent")
    .divider("relay process 2 (recovery)")
    .call("relay", "outbox.db", "SELECT unsent intents")
    .reply("outbox.db", "relay", "S1 (120)")
    .call("relay", "receiver", "deliver S1, 120 (same identity)")
    .note("receiver", "recognises S1: no new effect")
    .reply("receiver", "relay", "Existing")
    .call(
        "relay",
        "outbox.db",
        "UPDATE outbox SET sent = 1 WHERE id = 'S1'",
    )
    .to_svg()
}

/// What `cargo labs check 01` shows for the starter's first failing schedule.
fn first_failure(yours: Protocol) -> String {
    match explore_relay(yours, 2, Faults::All, &ALL_INVARIANTS).failure {
        // The book's code column holds 86 characters.
        Some(failure) => format!("{failure:86}\n"),
        None => "every schedule with up to two faults passes\n".to_string(),
    }
}

/// The figures of chapter 1; `yours` is the relay whose first failure it shows.
pub fn figures(yours: Protocol) -> Vec<(&'static str, String)> {
    vec![
        ("01-outbox-relay.svg", relay_sequence()),
        ("01-first-failure.txt", first_failure(yours)),
    ]
}
