//! The figures of chapter 7: the public cache in front of the origin, and the first
//! failure of the `publish` scenario with the learner's code.

use crate::scenarios::{Protocol, Scenario, explore_scenario};
use labkit::figure::Sequence;

/// The first failure of the `publish` scenario with the learner's code, as the chapter
/// shows it (generated, so the book cannot drift from what `cargo labs check 07` prints).
fn first_publish_failure(yours: Protocol) -> String {
    match explore_scenario(yours, Scenario::Publish, 2).failure {
        // As wide as the book's code column.
        Some(failure) => format!("{failure:86}\n"),
        None => "every schedule of the publish scenario passes\n".to_string(),
    }
}

/// The figures of chapter 7; `yours` is the code whose first failure it shows.
pub fn figures(yours: Protocol) -> Vec<(&'static str, String)> {
    vec![
        ("07-cache.svg", cache().to_svg()),
        ("07-first-failure.txt", first_publish_failure(yours)),
    ]
}

/// The origin answers with the new manifest at once; the public cache does not.
fn cache() -> Sequence {
    Sequence::new(
        "The origin is strongly consistent; the public cache is not",
        &["publisher", "origin", "public cache", "reader"],
    )
    .call("reader", "public cache", "GET manifest (anonymous)")
    .call("public cache", "origin", "miss: fetch")
    .reply(
        "origin",
        "public cache",
        "run-1, Cache-Control: public, max-age=60",
    )
    .reply("public cache", "reader", "run-1 (served by the origin)")
    .call("publisher", "origin", "insert manifest run-2")
    .reply(
        "origin",
        "publisher",
        "200: every origin read now sees run-2",
    )
    .call("reader", "public cache", "GET manifest (age 30 s)")
    .reply(
        "public cache",
        "reader",
        "run-1 (served by the cache: stale)",
    )
    .call("reader", "origin", "GET manifest (authenticated)")
    .reply("origin", "reader", "run-2")
    .call(
        "reader",
        "public cache",
        "GET manifest (age 60 s = max-age)",
    )
    .call("public cache", "origin", "stale: fetch again")
    .reply("public cache", "reader", "run-2")
}
