//! The figures of chapter 7: two sequence diagrams and the first failure of the
//! `publish` scenario with the learner's code.

use crate::scenarios::{Scenario, explore_scenario};
use labkit::figure::Sequence;

/// The first failure of the `publish` scenario with the learner's code, as the chapter
/// shows it (generated, so the book cannot drift from what `cargo labs check 07` prints).
fn first_publish_failure() -> String {
    match explore_scenario(Scenario::Publish, 2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the publish scenario passes\n".to_string(),
    }
}

/// The figures of chapter 7.
pub fn figures() -> Vec<(&'static str, String)> {
    vec![
        ("07-publication.svg", publication().to_svg()),
        ("07-cache.svg", cache().to_svg()),
        ("07-first-failure.txt", first_publish_failure()),
    ]
}

/// The protocol that passes, drawn.
fn publication() -> Sequence {
    // Generations are named, not numbered: a real one is a 16-digit number (see the
    // first-failure figure) that is compared, never computed with.
    Sequence::new(
        "Publishing a file set by version identity",
        &["publisher", "datasets", "releases", "consumer"],
    )
    .call(
        "publisher",
        "datasets",
        "insert runs/run-2/accounts.csv ifGenerationMatch=0",
    )
    .reply("datasets", "publisher", "200 generation gA")
    .call(
        "publisher",
        "datasets",
        "insert runs/run-2/positions.csv ifGenerationMatch=0",
    )
    .reply("datasets", "publisher", "200 generation gP")
    .call(
        "publisher",
        "datasets",
        "get ?generation=gA, ?generation=gP",
    )
    .note("publisher", "validate the set")
    .call("publisher", "releases", "get manifest")
    .reply("releases", "publisher", "run-1, generation gM1")
    .call(
        "publisher",
        "releases",
        "insert manifest {run-2: gA, gP} ifGenerationMatch=gM1",
    )
    .reply("releases", "publisher", "200 generation gM2")
    .divider("a consumer, at any time")
    .call("consumer", "releases", "get manifest")
    .reply("releases", "consumer", "run-2: accounts#gA, positions#gP")
    .call("consumer", "datasets", "get accounts.csv?generation=gA")
    .call("consumer", "datasets", "get positions.csv?generation=gP")
    .note("consumer", "report run-2")
    .divider("after a crash")
    .crash("publisher", "crash after any write")
    .call(
        "publisher",
        "datasets",
        "insert … ifGenerationMatch=0 again",
    )
    .reply(
        "datasets",
        "publisher",
        "412: same bytes? reuse the generation",
    )
    .note("publisher", "or abandon run-2")
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
