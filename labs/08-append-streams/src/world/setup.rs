//! What a graded schedule's world looks like, and the source partition it reads.

use super::{PARTITION, Row, SOURCE_END};
use labkit::fault::Fate;

/// What the world looks like in one graded schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The first process may pause while a new owner takes over.
    pub stale_owner: bool,
    /// This source position carries a value its column cannot take (a row error).
    pub bad_row: Option<i64>,
    /// A misconfigured client writes this many rows of its own at the start of the first
    /// stream the writer creates (the "wrong offset" drill).
    pub foreign_rows: i64,
    /// The first `AppendRows` is applied, its response lost, and the process dies
    /// waiting, whatever the fault schedule says.
    pub lose_first_response_and_crash: bool,
    /// When the first process ends without finishing, the source stops returning this
    /// position: the retention contract is broken.
    pub source_loses: Option<i64>,
    /// The fates every `AppendRows` may meet.
    pub append_fates: &'static [Fate],
}

impl Setup {
    pub const LEDGER: Setup = Setup {
        stale_owner: false,
        bad_row: None,
        foreign_rows: 0,
        lose_first_response_and_crash: false,
        source_loses: None,
        append_fates: &[
            Fate::Ok,
            Fate::AppliedResponseLost,
            Fate::NotApplied,
            Fate::AppliedLater,
        ],
    };
}

/// The source: retained rows of partition P7.
#[derive(Clone, Debug)]
pub struct Source {
    pub(super) bad_row: Option<i64>,
    pub(super) lost: Option<i64>,
}

impl Source {
    /// The rows at positions `first..end`, in order, with an empty `batch` column.
    pub fn read(&self, first: i64, end: i64) -> Vec<Row> {
        (first..end.min(SOURCE_END))
            .filter(|position| self.lost != Some(*position))
            .map(|position| {
                let mut row = Row::new(format!("{PARTITION}:{position}"), "");
                if self.bad_row == Some(position) {
                    row.invalid_value = Some("amount -1 is out of range".into());
                }
                row
            })
            .collect()
    }
}
