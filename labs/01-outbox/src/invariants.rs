//! The invariants the graded suite checks, and how each explains a violation: Let (the
//! intent) … Then (what the schedule left behind) … Contradiction (the rule it broke).
//!
//! Effects are attributed to the intent whose delivery wrote them, whatever identity the
//! delivery carried: an effect applied under a derived id ("S1-retry") still counts as
//! an effect of S1.

use crate::world::Effect;
use labkit::fault::{Verdict, Violation, output_width, wrap_indented};

/// The invariants the graded suite checks, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Every intent has an effect at the receiver.
    NoEffectLost,
    /// No intent has more than one effect at the receiver.
    NoEffectTwice,
    /// Every intent is marked sent in the end.
    EveryIntentMarkedSent,
}

pub const ALL_INVARIANTS: [Invariant; 3] = [
    Invariant::NoEffectLost,
    Invariant::NoEffectTwice,
    Invariant::EveryIntentMarkedSent,
];

/// What a schedule left behind for one intent of the outbox.
#[derive(Clone, Debug)]
pub struct Settled {
    pub id: String,
    pub amount: i64,
    /// Every effect the receiver holds that a delivery of this intent wrote.
    pub effects: Vec<Effect>,
    pub sent: bool,
}

/// Checks `invariants` on every intent, in order; the first violation explains itself.
pub fn check(settled: &[Settled], invariants: &[Invariant]) -> Verdict {
    for intent in settled {
        for invariant in invariants {
            explain(intent, *invariant)?;
        }
    }
    Ok(())
}

fn explain(intent: &Settled, invariant: Invariant) -> Verdict {
    let Settled {
        id, amount, sent, ..
    } = intent;
    let effects = &intent.effects;
    let let_line = format!("Let {id} be the intent ({id}, {amount}) committed in the outbox.");
    match invariant {
        Invariant::NoEffectLost if effects.is_empty() => Err(Violation::new(
            "no effect is lost",
            &[
                let_line,
                format!(
                    "Then, after every crash was recovered and the network healed, the receiver holds no effect for {id}, under any identity{}.",
                    if *sent { ", although the outbox marks it sent" } else { "" }
                ),
                "Contradiction: a committed intent must take effect. An intent marked sent is never sent again, so the relay may mark it only once its effect is known to exist.".into(),
            ],
        )),
        Invariant::NoEffectTwice if effects.len() > 1 => {
            let rows: Vec<String> = effects
                .iter()
                .map(|e| format!("row {} as {}", e.seq, e.order_id))
                .collect();
            Err(Violation::new(
                "no effect is applied twice",
                &[
                    let_line,
                    format!(
                        "Then the receiver applied it {} times: effect {}.",
                        effects.len(),
                        rows.join(" and ")
                    ),
                    "Contradiction: one intent, one effect. The relay may send an intent again after a crash or a lost response, so the receiver must recognise an identity it already applied, and every delivery of an intent must carry the same identity.".into(),
                ],
            ))
        }
        Invariant::EveryIntentMarkedSent if !sent => Err(Violation::new(
            "every intent is marked sent in the end",
            &[
                let_line,
                format!(
                    "Then, after the faults stopped and the relay ran twice more, {id} is still unsent ({} effect(s) at the receiver).",
                    effects.len()
                ),
                "Contradiction: a healed relay must finish its work. Once an answer proves that the receiver holds the effect, new or recognised, the intent is done.".into(),
            ],
        )),
        _ => Ok(()),
    }
}

/// What a schedule left behind for an intent whose name the receiver already held for
/// another amount.
#[derive(Clone, Debug)]
pub struct Refused {
    pub id: String,
    pub amount: i64,
    /// The amount another intent left under the same name before the outbox's committed.
    pub held: i64,
    /// Every row the receiver holds under the name, with the amount it holds.
    pub rows: Vec<i64>,
    pub sent: bool,
}

/// The receiver must refuse an intent whose name it holds for another amount, and a
/// refused intent has no effect: the relay must leave it unsent.
pub fn check_refused(refused: &Refused) -> Verdict {
    let Refused {
        id,
        amount,
        held,
        rows,
        sent,
    } = refused;
    let then = if rows.as_slice() != [*held] {
        let rows: Vec<String> = rows.iter().map(|a| format!("({id}, {a})")).collect();
        format!(
            "Then the receiver holds {} under the name {id}.",
            rows.join(" and ")
        )
    } else if *sent {
        format!(
            "Then the receiver still holds ({id}, {held}) alone, and the outbox marks {id} sent."
        )
    } else {
        return Ok(());
    };
    Err(Violation::new(
        "a refused intent stays unsent",
        &[
            format!(
                "Let {id} be the intent ({id}, {amount}) committed in the outbox, while the receiver already held ({id}, {held}), left by another intent under the same name."
            ),
            then,
            format!(
                "Contradiction: the receiver cannot take ({id}, {amount}) without changing an effect that is not its own, so it must refuse it; and a refused intent has no effect, so the relay must leave it unsent for someone to resolve. Marked sent, it would never be sent again, and nothing would say it never took effect."
            ),
        ],
    ))
}

/// The report of a check that runs no schedule (the receiver alone), in the form of a
/// schedule's failure: the invariant, what happened, and the explanation.
pub fn report(violation: &Violation, happened: &[String]) -> String {
    let width = output_width();
    let mut out = wrap_indented(
        &format!(
            "invariant violated: {} (lab 01, the receiver alone)",
            violation.invariant
        ),
        width,
        "",
        "  ",
    );
    out.push('\n');
    for line in happened {
        out.push_str(&wrap_indented(line, width, "  ", "    "));
    }
    out.push('\n');
    for line in &violation.explanation {
        out.push_str(&wrap_indented(line, width, "  ", "    "));
    }
    out
}
