//! The network between the relay and the receiver, and the receiver's side of a call:
//! every call's fate goes through the fault core, and every effect row the receiver
//! writes is recorded with the intent whose delivery wrote it.

use super::{ApplyEffect, Delivery, Intent, Outcome, ReceiverError};
use labkit::fault::{Fate, Glyph, Sim};
use rusqlite::Connection;

/// Which faults a schedule may take. Every kind keeps its choice sites (a disabled one
/// offers only its normal option), so a token of a narrower scope replays in the full one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Faults {
    All,
    NetworkOnly,
    CrashesOnly,
}

/// One effect row at the receiver, and the intent whose delivery wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    pub seq: i64,
    pub order_id: String,
    pub amount: i64,
    pub sent_for: String,
}

/// The network and the receiver behind it. Requests still in flight survive a crash of
/// the relay: they are not in its memory.
pub struct Network {
    receiver: Connection,
    apply: ApplyEffect,
    faults: Faults,
    in_flight: Vec<Intent>,
    /// `(seq, intent)`: which intent's delivery wrote each effect row.
    written_for: Vec<(i64, String)>,
}

impl Network {
    pub fn new(receiver: Connection, apply: ApplyEffect, faults: Faults) -> Network {
        Network {
            receiver,
            apply,
            faults,
            in_flight: Vec::new(),
            written_for: Vec::new(),
        }
    }

    /// The receiver's side of one request: its transaction, and the rows it wrote.
    fn handle(&mut self, intent: &Intent) -> Result<Delivery, ReceiverError> {
        let before = self.last_seq();
        let tx = self.receiver.transaction()?;
        let answer = (self.apply)(&tx, &intent.order_id, intent.amount)?;
        tx.commit()?;
        for seq in before + 1..=self.last_seq() {
            self.written_for.push((seq, intent.origin.clone()));
        }
        Ok(answer)
    }

    fn last_seq(&self) -> i64 {
        self.receiver
            .query_row("SELECT coalesce(max(seq), 0) FROM effects", [], |r| {
                r.get(0)
            })
            .expect("last effect")
    }

    /// Every effect the receiver holds, each with the intent it was sent for.
    pub fn effects(&self) -> Vec<Effect> {
        let mut statement = self
            .receiver
            .prepare("SELECT seq, order_id, amount FROM effects ORDER BY seq")
            .expect("effects query");
        let rows = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(|rows| rows.collect::<Result<Vec<(i64, String, i64)>, _>>())
            .expect("effect rows");
        let sent_for = |seq: i64| {
            let found = self.written_for.iter().find(|(s, _)| *s == seq);
            found.map_or(String::new(), |(_, intent)| intent.clone())
        };
        rows.into_iter()
            .map(|(seq, order_id, amount)| Effect {
                sent_for: sent_for(seq),
                seq,
                order_id,
                amount,
            })
            .collect()
    }

    /// Requests that were "applied later" land now, before anything else reaches the
    /// receiver.
    pub fn land_late_requests(&mut self, sim: &mut Sim) {
        for late in std::mem::take(&mut self.in_flight) {
            let answer = self.handle(&late);
            sim.event("network", Glyph::Fault, || {
                let landed = format!("late request {} lands: {answer:?}", late.order_id);
                (String::new(), landed)
            });
        }
    }

    pub(super) fn faults(&self) -> Faults {
        self.faults
    }

    pub(super) fn call(&mut self, sim: &mut Sim, intent: &Intent) -> Outcome {
        self.land_late_requests(sim);
        let fates: &[Fate] = match self.faults {
            Faults::CrashesOnly => &[Fate::Ok],
            Faults::All | Faults::NetworkOnly => &Fate::ALL,
        };
        let fate = sim.fate("network:deliver", fates);
        let answer = match fate {
            Fate::Ok | Fate::AppliedResponseLost => Some(self.handle(intent)),
            Fate::AppliedLater => {
                self.in_flight.push(intent.clone());
                None
            }
            Fate::Rejected | Fate::NotApplied => None,
        };
        let outcome = match (fate, &answer) {
            (Fate::Ok, Some(Ok(delivery))) => Outcome::Delivered(*delivery),
            (Fate::Ok, Some(Err(e))) => Outcome::Rejected(format!("{e:?}")),
            (Fate::Rejected, _) => Outcome::ResourceExhausted,
            _ => Outcome::DeadlineExceeded,
        };
        let glyph = match fate {
            Fate::Rejected => Glyph::Error,
            _ if fate.is_indefinite() => Glyph::Indefinite,
            _ => Glyph::Normal,
        };
        sim.event("relay", glyph, || {
            let truth = match &answer {
                Some(a) => format!("{}: receiver answered {a:?}", fate.label()),
                None => fate.label().to_string(),
            };
            let (id, amount) = (&intent.order_id, intent.amount);
            (format!("deliver {id} ({amount}) -> {outcome:?}"), truth)
        });
        outcome
    }
}
