//! How a call meets the chaos: a call that changes nothing answers or is killed; a call
//! that changes something may be killed before or after it was applied; a commit meets
//! the options its transaction and the chaos allow.

use super::Ydb;
use crate::chaos::{COMMIT_ALL, COMMIT_FAULTS, CallFault, CommitFault, EFFECT_CALL, READ_CALL};
use crate::error::KILLED;
use crate::{Tx, YdbError};
use labkit::fault::{Glyph, Sim};

impl Ydb {
    /// A call that changes nothing (a query, a topic read): it answers, or its connection
    /// is killed.
    pub(super) fn read_call(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        what: &str,
    ) -> Result<(), YdbError> {
        if self.chaos.kill_connections && sim.choose("ydb:call", &READ_CALL) == 1 {
            self.stats.unavailable += 1;
            sim.event(actor, Glyph::Error, || {
                (
                    format!("{what}: UNAVAILABLE"),
                    "connection killed; the open transaction is gone".into(),
                )
            });
            return Err(KILLED);
        }
        Ok(())
    }

    /// A call that changes something on its own (a plain write, a plain offset commit):
    /// when its connection is killed, the client cannot tell whether it was applied.
    pub(super) fn effect_call(&mut self, sim: &mut Sim) -> CallFault {
        if !self.chaos.kill_connections {
            return CallFault::None;
        }
        match sim.choose("ydb:call", &EFFECT_CALL) {
            0 => CallFault::None,
            1 => CallFault::KilledNotApplied,
            _ => CallFault::KilledApplied,
        }
    }

    /// What the client sees of a plain call, and the timeline line beside it: `ok` is the
    /// line (client, truth) when it answers, `client` names the call when it does not.
    pub(super) fn answer_effect(
        &mut self,
        sim: &mut Sim,
        actor: &'static str,
        fault: CallFault,
        ok: (String, &'static str),
        applied: &'static str,
    ) -> Result<(), YdbError> {
        let (ok_line, ok_truth) = ok;
        match fault {
            CallFault::None => {
                sim.event(actor, Glyph::Normal, || (ok_line, ok_truth.into()));
                Ok(())
            }
            CallFault::KilledApplied | CallFault::KilledNotApplied => {
                self.stats.unavailable += 1;
                let truth = if fault == CallFault::KilledApplied {
                    format!("connection killed after it was applied ({applied})")
                } else {
                    "connection killed; not applied".to_string()
                };
                sim.event(actor, Glyph::Indefinite, || {
                    let call = ok_line.trim_end_matches(": ok");
                    (format!("{call}: UNAVAILABLE"), truth)
                });
                Err(KILLED)
            }
        }
    }

    pub(super) fn commit_fault(&self, sim: &mut Sim, tx: &Tx) -> CommitFault {
        let locks = self.chaos.lock_breaks && !tx.reads.is_empty();
        let faults = self.chaos.commit_faults;
        // The options this commit can meet, in COMMIT_ALL's order (option 0 is "ok").
        let offered: Vec<usize> = (0..COMMIT_ALL.len())
            .filter(|&i| match i {
                0 => true,
                1 => locks,
                _ => faults,
            })
            .collect();
        if offered.len() == 1 {
            return CommitFault::None;
        }
        let labels: Vec<&'static str> = offered.iter().map(|&i| COMMIT_ALL[i]).collect();
        COMMIT_FAULTS[offered[sim.choose("ydb:commit", &labels)]]
    }
}
