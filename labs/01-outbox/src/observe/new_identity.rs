//! Section 4: a new identity for the same amount, a mismatched payload, a missing intent.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    obs.ask(
        "The application enqueues S2 with 120. Does `enqueue` answer `existing`?",
        lab.enqueue("S2", 120, false)? == "existing",
    );
    let s2 = lab.relay("S2", false)?;
    let effects = lab.receiver.effects.len();
    obs.ask(
        "The relay delivers S2. Does the receiver then hold two effects?",
        effects == 2,
    );
    let mismatch = lab.receiver.receive("S1", 999);
    obs.ask(
        "The receiver is called directly with S1 and 999. Does it accept the call?",
        mismatch.is_ok(),
    );
    obs.ask(
        "After that call, is S1's effect still 120?",
        lab.receiver.effects["S1"] == 120,
    );
    let missing = lab.relay("missing", false);
    obs.ask(
        "`relay` runs for `missing`, which has no outbox row. Does it return an error?",
        is(&missing, |e| matches!(e, LabError::NoIntent)),
    );
    let answer = match (s2, effects) {
        ("existing", 1) => "a",
        ("applied", 1) => "c",
        ("applied", 2) => "d",
        _ => "?",
    };
    let evidence = format!("the receiver answered `{s2}` for S2 and holds {effects} effect(s)");
    obs.choose("Instead of retrying S1, the application creates S2 (120) and relays it. What does the receiver answer, and how many effects does it hold?", answer, evidence);
    derived_identity(obs)?;
    amount_corrected(obs)
}

/// A fresh lab: after a lost response for S11, the application enqueues S11-retry for
/// the same purchase and relays it; later the relay retries S11 too.
fn derived_identity(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue("S11", 120, false)?;
    let _ = lab.relay("S11", true);
    lab.enqueue("S11-retry", 120, false)?;
    let retry_id = lab.relay("S11-retry", false)?;
    let original = lab.relay("S11", false)?;
    let effects = lab.receiver.effects.len();
    let answer = match effects {
        1 => "a",
        2 => "b",
        3 => "c",
        _ => "?",
    };
    let evidence =
        format!("S11-retry was `{retry_id}`, the retry of S11 `{original}`: {effects} effect(s)");
    obs.choose("Variation: after a lost response for S11, the application enqueues and relays S11-retry (same amount); later the relay retries S11. How many effects?", answer, evidence);
    Ok(())
}

/// A fresh lab: after a lost response for S12 (120), an operator changes the outbox row
/// to 130; the relay runs S12 again.
fn amount_corrected(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue("S12", 120, false)?;
    let _ = lab.relay("S12", true);
    lab.db
        .execute("UPDATE outbox SET amount = 130 WHERE id = 'S12'", [])?;
    let retry = lab.relay("S12", false);
    let (held, sent) = (lab.receiver.effects.get("S12").copied(), lab.sent("S12")?);
    let answer = match (&retry, held, sent) {
        (Ok(_), Some(130), true) => "a",
        (Ok("existing"), Some(120), true) => "b",
        (Err(LabError::ReceiverCollision), Some(120), false) => "c",
        _ => "?",
    };
    let evidence = format!("the retry got {retry:?}; the receiver holds {held:?}; sent = {sent}");
    obs.choose("Variation: after a lost response for S12 (120), an operator sets its outbox amount to 130; the relay runs S12 again. What happens?", answer, evidence);
    Ok(())
}
