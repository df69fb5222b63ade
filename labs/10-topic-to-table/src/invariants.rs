//! The graded invariants of a pipeline run, each with a "Let … Then … Contradiction"
//! explanation, and the independent audit that reads the sink table back.

use crate::scenarios::Outcome;
use crate::world::{SINK, Ydb, decode_payload};
use labkit::fault::{Verdict, Violation};
use std::collections::BTreeMap;

/// A message's identity, `(writer_id, seq_no)`, or a row's key `(k1, k2)`.
pub type Pair = (i64, i64);

/// What the independent audit found when it read the whole sink table back. Every row is
/// attributed to the message its payload names, whatever key it was written under.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Sink rows read back.
    pub rows: usize,
    /// `(writer_id, seq_no)` committed by a producer but absent from the sink.
    pub missing: Vec<(i64, i64)>,
    /// `(writer_id, seq_no)` in more than one row, with the keys of those rows.
    pub duplicated: Vec<(Pair, Vec<Pair>)>,
    /// `(writer_id, seq_no)` in the sink that no producer committed.
    pub unexpected: Vec<(i64, i64)>,
    /// Keys of rows whose payload names no message.
    pub unattributed: Vec<(i64, i64)>,
}

impl Audit {
    pub fn exactly_once(&self) -> bool {
        self.missing.is_empty()
            && self.duplicated.is_empty()
            && self.unexpected.is_empty()
            && self.unattributed.is_empty()
    }
}

// ANCHOR: audit
/// Reads the whole sink table back and compares it with what the producers committed:
/// producer `i` committed seq_no `1..=committed[i]`.
pub fn audit(db: &Ydb, committed: &[i64]) -> Audit {
    let rows = db.all_rows(SINK);
    let mut audit = Audit {
        rows: rows.len(),
        ..Audit::default()
    };
    let mut keys_of: BTreeMap<Pair, Vec<Pair>> = BTreeMap::new();
    for (key, payload) in &rows {
        match decode_payload(payload) {
            Some((writer, seq_no, _)) => keys_of.entry((writer, seq_no)).or_default().push(*key),
            None => audit.unattributed.push(*key),
        }
    }
    for (writer, last) in committed.iter().enumerate() {
        let writer = writer as i64;
        let absent = (1..=*last).filter(|s| !keys_of.contains_key(&(writer, *s)));
        audit.missing.extend(absent.map(|s| (writer, s)));
    }
    for (message, keys) in keys_of {
        if keys.len() > 1 {
            audit.duplicated.push((message, keys));
        }
        let (writer, seq_no) = message;
        let last = committed.get(writer as usize).copied().unwrap_or(0);
        if !(1..=last).contains(&seq_no) {
            audit.unexpected.push(message);
        }
    }
    audit
}
// ANCHOR_END: audit

fn committed_line(outcome: &Outcome) -> String {
    format!(
        "Let the producers' commits return Ok for seq_no 1..=n, n = {:?} per producer.",
        outcome.committed
    )
}

fn violation(invariant: &str, lines: [String; 3]) -> Verdict {
    Err(Violation::new(invariant, &lines))
}

/// The graded invariants of one run, in the order a mistake shows first.
pub fn check(outcome: &Outcome) -> Verdict {
    no_loss(outcome)?;
    exactly_once_in_the_sink(outcome)
}

/// Everything but the audit: the validator's view, liveness and the drained end state.
pub fn no_loss(outcome: &Outcome) -> Verdict {
    fed_only_committed_batches(outcome)?;
    producers_finished(outcome)?;
    drained_after_the_faults(outcome)?;
    no_forward_gap(outcome)
}

/// The seeded chaos run met every failure path the retry loop must absorb.
pub fn faults_fired(outcome: &Outcome) -> Verdict {
    let s = &outcome.signals;
    if s.aborts > 0 && s.unavailable > 0 && s.undetermined > 0 && s.overloaded > 0 {
        return Ok(());
    }
    violation(
        "the chaos run meets every kind of failure",
        [
            "Let the chaos run kill connections, refuse and lose commits, break locks.".into(),
            "Then it sees ABORTED, OVERLOADED, UNAVAILABLE and UNDETERMINED.".into(),
            format!(
                "Contradiction: aborts {}, overloaded {}, unavailable {}, undetermined {}.",
                s.aborts, s.overloaded, s.unavailable, s.undetermined
            ),
        ],
    )
}

fn fed_only_committed_batches(outcome: &Outcome) -> Verdict {
    let Some(batch) = &outcome.fed_uncommitted else {
        return Ok(());
    };
    violation(
        "the validator is fed only committed batches",
        [
            "Let the validator be fed a batch after its commit returned Ok, or after \
             commit_was_applied found an unknown commit applied."
                .into(),
            format!("Then it was fed {batch}."),
            "Contradiction: that batch was not committed: its offsets had not moved, so it \
             will be read and validated again."
                .into(),
        ],
    )
}

fn producers_finished(outcome: &Outcome) -> Verdict {
    if outcome.producers_finished {
        return Ok(());
    }
    violation(
        "every producer commits all its messages (liveness)",
        [
            committed_line(outcome),
            "Then each producer should reach its last message.".into(),
            "Contradiction: the step limit came first.".into(),
        ],
    )
}

fn drained_after_the_faults(outcome: &Outcome) -> Verdict {
    if outcome.drained {
        return Ok(());
    }
    violation(
        "once the faults stop, the topic is drained",
        [
            committed_line(outcome),
            format!(
                "Then, after the producers finished and the faults stopped, the consumer's \
                 committed offsets should reach the topic's end offsets {:?}.",
                outcome.end_offsets
            ),
            format!(
                "Contradiction: they stayed at {:?}; the sink holds {} rows.",
                outcome.committed_offsets, outcome.audit.rows
            ),
        ],
    )
}

fn no_forward_gap(outcome: &Outcome) -> Verdict {
    if outcome.signals.lost == 0 {
        return Ok(());
    }
    let gap = outcome.first_gap.as_deref().unwrap_or("a gap was seen");
    let where_it_is = if outcome.audit.missing.is_empty() {
        "the sink holds every committed message, so a committed batch never reached the \
         validator"
    } else {
        "a sequence number was committed (or skipped) without its message reaching the sink"
    };
    violation(
        "no forward gap in any producer's sequence (lost = 0)",
        [
            committed_line(outcome),
            format!("Then {gap}."),
            format!(
                "Contradiction: {} message(s) lost; {where_it_is}.",
                outcome.signals.lost
            ),
        ],
    )
}

/// The audit: every committed message exactly once in the sink.
pub fn exactly_once_in_the_sink(outcome: &Outcome) -> Verdict {
    let audit = &outcome.audit;
    if audit.exactly_once() {
        return Ok(());
    }
    let twice: Vec<String> = (audit.duplicated.iter())
        .map(|((w, s), keys)| format!("{w}#{s} under keys {keys:?}"))
        .collect();
    violation(
        "the sink holds each committed message once (audit)",
        [
            committed_line(outcome),
            format!(
                "Then the audit read {} sink rows back: missing {:?}, in more than one row \
                 [{}], never committed {:?}, naming no message {:?}.",
                audit.rows,
                audit.missing,
                twice.join("; "),
                audit.unexpected,
                audit.unattributed
            ),
            "Contradiction: the sink is not the committed messages, each once.".into(),
        ],
    )
}
