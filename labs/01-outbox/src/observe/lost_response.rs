//! Section 3: the relay loses the response after the receiver applied the effect, and
//! retries under the same identity.

use super::lab::{Answer, LabError, OutboxLab, Result, is};
use super::variants::{SECTION_3, after_section_2};
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
    direct_call_before_section_3(obs)?;
    super::relay_variations::observe(obs)
}

/// After section 2: section 4's direct call, then section 3.
fn direct_call_before_section_3(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let direct = lab.receiver.receive("S1", 999);
    let runs: Vec<_> = (SECTION_3.into_iter())
        .map(|lose_response| lab.relay("S1", lose_response))
        .collect();
    let collision = |r: &Result<Answer>| is(r, |e| matches!(e, LabError::ReceiverCollision));
    let answer = match (&runs[1], &runs[2]) {
        (Ok("existing"), Ok("already-sent")) => "a",
        (second, Ok("already-sent")) if collision(second) => "b",
        (second, third) if collision(second) && collision(third) => "c",
        (Ok("existing"), Ok("existing")) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 4's direct call is made between sections 2 and 3 instead of in section 4. What do section 3's second and third runs return?",
        answer,
        format!("the direct call returned {direct:?}; section 3's runs {runs:?}"),
    );
    Ok(())
}
