//! Section 3: the relay loses the response after the receiver applied the effect, and
//! retries under the same identity.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::after_section_2;
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let first = lab.relay("S1", true);
    obs.ask(
        "Section 3's first `relay`: does it return an error?",
        first.is_err(),
    );
    obs.ask(
        "After section 3's first `relay`, does `receiver.effects` hold S1?",
        lab.receiver.effects.contains_key("S1"),
    );
    obs.ask(
        "After section 3's first `relay`, is S1's `sent` flag set?",
        lab.sent("S1")?,
    );
    let second = lab.relay("S1", false)?;
    obs.ask(
        "Section 3's second `relay`: does it return `applied`?",
        second == "applied",
    );
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    obs.ask(
        "After section 3's second `relay`, does `receiver.calls` hold twice as many entries as `receiver.effects`?",
        calls == 2 * effects,
    );
    obs.ask(
        "After section 3's second `relay`, does `outbox` hold an unsent row?",
        lab.count("outbox WHERE sent = 0")? > 0,
    );
    let third = lab.relay("S1", false)?;
    obs.ask(
        "Section 3's third `relay`: does it return `existing`?",
        third == "existing",
    );
    enqueued_again_after_the_timeout(obs)?;
    super::relay_variations::observe(obs)
}

/// A fresh lab after section 2: the first relay run times out, the application runs
/// `enqueue` for S1 again, then the relay runs S1.
fn enqueued_again_after_the_timeout(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let timed_out = is(&lab.relay("S1", true), |e| matches!(e, LabError::Timeout));
    let enqueued = lab.enqueue("S1", 120, false);
    let relayed = lab.relay("S1", false);
    let answer = match (&enqueued, &relayed) {
        (Ok("created"), Ok("applied")) => "a",
        (Ok("existing"), Ok("existing")) if timed_out => "b",
        (Ok("existing"), Ok("already-sent")) => "c",
        (Ok("existing"), Ok("applied")) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 3's first run, the application reads the timeout as a failure and runs `enqueue(\"S1\", 120)` again; then the relay runs S1. What do `enqueue` and the relay return?",
        answer,
        format!("enqueue returned {enqueued:?}, the relay {relayed:?}"),
    );
    Ok(())
}
