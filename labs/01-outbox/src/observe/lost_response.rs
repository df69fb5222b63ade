//! Section 3: the relay loses the response after the receiver applied the effect, and
//! retries under the same identity.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;
use std::collections::BTreeMap;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let lost = lab.relay("S1", true);
    obs.check(
        "response loss follows external effect",
        is(&lost, |e| matches!(e, LabError::Timeout)),
    );
    let effects_after_timeout = lab.receiver.effects.clone();
    obs.check(
        "effect exists despite timeout",
        effects_after_timeout == BTreeMap::from([("S1".to_string(), 120)]),
    );
    obs.check("intent remains retryable", !lab.sent("S1")?);
    let retry = lab.relay("S1", false)?;
    obs.check("receiver recognizes retry", retry == "existing");
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    obs.check("two calls one effect", calls == 2 && effects == 1);
    obs.check("successful response marks sent", lab.sent("S1")?);
    let again = lab.relay("S1", false)?;
    obs.check(
        "sent intent is not sent again",
        again == "already-sent" && lab.receiver.calls.len() == 2,
    );
    let answer = match (effects_after_timeout.len(), retry, effects) {
        (0, "applied", _) => "a",
        (1, "already-sent", 1) => "b",
        (1, "existing", 1) => "c",
        (_, "applied", 2) => "d",
        _ => "?",
    };
    obs.answer(
        "lost-response",
        answer,
        format!(
            "{} effect(s) after the timeout; the retry answered `{retry}`; then {calls} call(s), {effects} effect(s)",
            effects_after_timeout.len()
        ),
    );
    super::relay_variations::observe(obs)
}
