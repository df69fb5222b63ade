//! Section 3: the relay loses the response after the receiver applied the effect, and
//! retries under the same identity.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let lost = lab.relay("S1", true);
    obs.ask(
        "The relay delivers S1 and the response is lost. Does `relay` return an error?",
        is(&lost, |e| matches!(e, LabError::Timeout)),
    );
    let effects_after_timeout = lab.receiver.effects.clone();
    obs.ask(
        "After that timeout, does the receiver hold an effect for S1?",
        effects_after_timeout.contains_key("S1"),
    );
    obs.ask(
        "After that timeout, is S1 marked sent in the outbox?",
        lab.sent("S1")?,
    );
    let retry = lab.relay("S1", false)?;
    obs.ask(
        "The relay runs S1 again. Does the receiver answer `applied`?",
        retry == "applied",
    );
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    obs.ask(
        "After that second run, has the receiver taken more calls than it holds effects?",
        calls > effects,
    );
    obs.ask("After that second run, is S1 marked sent?", lab.sent("S1")?);
    lab.relay("S1", false)?;
    obs.ask(
        "The relay runs S1 a third time. Does the receiver get a third call?",
        lab.receiver.calls.len() > 2,
    );
    let answer = match (effects_after_timeout.len(), retry, effects) {
        (0, "applied", _) => "a",
        (1, "already-sent", 1) => "b",
        (1, "existing", 1) => "c",
        (_, "applied", 2) => "d",
        _ => "?",
    };
    obs.choose("After the lost response, the relay runs S1 again. What does the receiver hold, and what does the retry get?",
        answer,
        format!(
            "{} effect(s) after the timeout; the retry answered `{retry}`; then {calls} call(s), {effects} effect(s)",
            effects_after_timeout.len()
        ),
    );
    super::relay_variations::observe(obs)
}
