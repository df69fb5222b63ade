//! The chapter's figures, written into `book/src/figures` by `cargo labs bless` (the
//! gate checks they are current). Draw with `labkit::figure::Sequence` or `BarChart`;
//! generated text (a timeline, a measured table) goes in a `.txt` or `.md` file.

use labkit::figure::Sequence;

/// A lost response and the retry that follows it.
fn lost_response() -> String {
    Sequence::new(
        "A lost response and a retry with the same message id",
        &["sender", "receiver"],
    )
    .call("sender", "receiver", "deliver m1 (100)")
    .note("receiver", "applies m1")
    .lost("receiver", "sender", "acknowledged")
    .note("sender", "DEADLINE_EXCEEDED: did m1 take effect?")
    .call("sender", "receiver", "deliver m1 (100) again")
    .note("receiver", "applies m1 a second time")
    .reply("receiver", "sender", "acknowledged")
    .to_svg()
}

/// The chapter's figures, as (file name, content).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("99-template-lost-response.svg", lost_response())]
}
