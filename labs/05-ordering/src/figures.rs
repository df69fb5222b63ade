//! The figures of chapter 5, drawn by the code the lab runs (`cargo labs bless`).

use labkit::figure::Sequence;

/// The figures of chapter 5.
pub fn figures() -> Vec<(&'static str, String)> {
    let redelivery = Sequence::new(
        "Ordering key A: a lost ack brings back a later, acknowledged message",
        &["Pub/Sub", "consumer", "ledger (SQLite)"],
    )
    .call("Pub/Sub", "consumer", "A#1 (ack-1), A#2 (ack-2)")
    .call(
        "consumer",
        "ledger (SQLite)",
        "BEGIN; apply A#1; record (A,1); COMMIT",
    )
    .lost("consumer", "Pub/Sub", "ack ack-1")
    .note("Pub/Sub", "ack not persisted")
    .call(
        "consumer",
        "ledger (SQLite)",
        "BEGIN; apply A#2; record (A,2); COMMIT",
    )
    .call("consumer", "Pub/Sub", "ack ack-2")
    .note("Pub/Sub", "ack deadline of ack-1 passes")
    .divider("redelivery of A#1 brings back A#2, although it was acknowledged")
    .call("Pub/Sub", "consumer", "A#1 (ack-3), A#2 (ack-4)")
    .call(
        "consumer",
        "ledger (SQLite)",
        "(A,1) recorded? yes: no new effect",
    )
    .call("consumer", "Pub/Sub", "ack ack-3")
    .call(
        "consumer",
        "ledger (SQLite)",
        "(A,2) recorded? yes: no new effect",
    )
    .call("consumer", "Pub/Sub", "ack ack-4");
    let backlog = crate::observe::backlog_chart();
    vec![
        ("05-ordering-redelivery.svg", redelivery.to_svg()),
        ("05-ordering-backlog.svg", backlog.to_svg()),
    ]
}
