//! What must hold after every writer process and at the end of every schedule, each with
//! the "Let … Then … Contradiction" explanation printed when it does not.

mod end;

pub use end::journal_matches_table;

use crate::world::{PARTITION, SOURCE_FIRST, Setup, World, position_of};
use labkit::fault::Violation;
use rusqlite::Connection;
use sim_writeapi::short;

/// How a run of writer processes ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A process returned `Ok`: the partition is written and checkpointed.
    Done,
    /// A process stopped to hold for reconciliation, with its reason.
    Held(String),
    /// No process finished within the allowed number of processes.
    Unfinished,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Done => write!(f, "a writer returned Ok"),
            Ending::Held(reason) => write!(f, "a hold ({reason})"),
            Ending::Unfinished => write!(f, "no writer finishing"),
        }
    }
}

/// One journal record, as the checks read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub batch_id: String,
    pub write_stream: String,
    pub row_offset: i64,
    pub row_count: i64,
    pub source_first: i64,
    pub source_end: i64,
    pub fingerprint: String,
    pub state: String,
    pub replaces: Option<String>,
}

/// Every journal record, by offset then batch id.
pub fn records(journal: &Connection) -> Vec<Record> {
    let sql = "SELECT batch_id, write_stream, row_offset, row_count, source_first,
                      source_end, fingerprint, state, replaces
               FROM journal ORDER BY row_offset, batch_id";
    let mut statement = journal.prepare_cached(sql).expect("journal records");
    let rows = statement.query_map([], |r| {
        Ok(Record {
            batch_id: r.get(0)?,
            write_stream: r.get(1)?,
            row_offset: r.get(2)?,
            row_count: r.get(3)?,
            source_first: r.get(4)?,
            source_end: r.get(5)?,
            fingerprint: r.get(6)?,
            state: r.get(7)?,
            replaces: r.get(8)?,
        })
    });
    rows.and_then(|rows| rows.collect())
        .expect("journal records")
}

/// The source checkpoint: the next position the source would deliver after a restart.
pub fn checkpoint(journal: &Connection) -> i64 {
    journal
        .query_row(
            "SELECT next_position FROM checkpoint WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .unwrap_or(SOURCE_FIRST)
}

/// The positions the journal quarantined (rows the table refused), in order.
pub fn quarantined(journal: &Connection) -> Vec<i64> {
    // Sorted here: an ORDER BY beside a bound parameter makes SQLite prepare the
    // statement again at every run.
    let sql = "SELECT position FROM quarantine WHERE partition = ?1";
    let mut statement = journal.prepare_cached(sql).expect("quarantine");
    let rows = statement.query_map([PARTITION], |r| r.get(0));
    let mut positions: Vec<i64> = rows.and_then(|rows| rows.collect()).expect("quarantine");
    positions.sort();
    positions
}

/// The durable state a stale owner must not change: journal, quarantine, checkpoint.
/// (It may still hold objects capable of I/O; an append of the journaled batch at its
/// journaled offset is harmless, and the other invariants check the table.)
pub fn snapshot(world: &World) -> String {
    let journal = world.keeper();
    let records: Vec<String> = (records(journal).iter())
        .map(|r| {
            format!(
                "{} {} at {}@{}",
                r.batch_id,
                r.state,
                short(&r.write_stream),
                r.row_offset
            )
        })
        .collect();
    format!(
        "[{}], quarantine {:?}, checkpoint {}",
        records.join("; "),
        quarantined(journal),
        checkpoint(journal)
    )
}

/// The writer's rows in the table: (stream, offset, source position), in table order.
pub fn table(world: &World) -> Vec<(String, i64, i64)> {
    (world.api.read_table(crate::world::TABLE).iter())
        .filter(|r| !r.row.batch.starts_with("foreign"))
        .map(|r| {
            let offset = r.offset.unwrap_or(0) as i64;
            (r.write_stream.clone(), offset, position_of(&r.row))
        })
        .collect()
}

/// The checkpoint is never ahead of confirmed data: every position before it is in the
/// table or quarantined.
pub fn checkpoint_violation(world: &World) -> Option<Violation> {
    let journal = world.keeper();
    let next = checkpoint(journal);
    let in_table: Vec<i64> = table(world).iter().map(|(_, _, p)| *p).collect();
    let quarantine = quarantined(journal);
    let missing =
        (SOURCE_FIRST..next).find(|p| !in_table.contains(p) && !quarantine.contains(p))?;
    Some(Violation::new(
        "the checkpoint is never ahead of confirmed data",
        &[
            format!("Let the source checkpoint of {PARTITION} be {next}: a restart would resume there."),
            format!("Then position {missing} is below it, but it is neither in the table nor quarantined."),
            "Contradiction: after a restart the source would never deliver it again: it is lost. Advance the checkpoint only past batches whose own rows the evidence shows in the table.".into(),
        ],
    ))
}

/// A stale owner woke up with `before` in the journal and left `after`.
pub fn stale_owner_violation(owner: &str, before: &str, after: &str) -> Option<Violation> {
    (before != after).then(|| {
        Violation::new(
            "a stale owner changes nothing",
            &[
                format!("Let {owner} be the first owner, paused while a new owner took the lease (a higher epoch)."),
                "Then, after it woke up, the journal or the checkpoint differed from what it found.".into(),
                format!("Before: {before}"),
                format!("After:  {after}"),
                "Contradiction: every change must be fenced by the owner epoch, checked in the same transaction; an older epoch is refused.".into(),
            ],
        )
    })
}

/// A writer held, was restarted, and `owner` finished the partition.
pub fn hold_violation(reason: &str, owner: &str) -> Violation {
    Violation::new(
        "a hold survives a restart",
        &[
            format!("Let a writer hold for reconciliation: {reason}."),
            format!("Then the supervisor restarted it, and {owner} went on and finished the partition."),
            "Contradiction: a hold is a decision for a human. Record it in the journal, and have every later process stop at it.".into(),
        ],
    )
}

/// The invariants at the end of a schedule of `setup`, the first that fails.
pub fn final_violation(world: &World, ending: &Ending) -> Option<Violation> {
    let setup = world.setup;
    end::no_record_twice(world)
        .or_else(|| end::journal_matches_table(world))
        .or_else(|| end::one_stream(world))
        .or_else(|| end::ending_as_expected(world, ending))
        .or_else(|| end::no_record_lost(world, ending, expects_done(&setup, ending)))
        .or_else(|| end::rejection_repaired(world))
}

/// Whether every record must have arrived: not in the drill (it must hold), and after a
/// broken source only when the writer finished.
fn expects_done(setup: &Setup, ending: &Ending) -> bool {
    setup.foreign_rows == 0 && (setup.source_loses.is_none() || *ending == Ending::Done)
}
