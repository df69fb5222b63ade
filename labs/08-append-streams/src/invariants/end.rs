//! The invariants checked at the end of a schedule, once the last process has ended.

use super::{Ending, checkpoint, quarantined, records, table};
use crate::world::{PARTITION, SOURCE_END, SOURCE_FIRST, World, state::*};
use labkit::fault::Violation;
use sim_writeapi::short;

/// Every source record at most once in the table.
pub fn no_record_twice(world: &World) -> Option<Violation> {
    let rows = table(world);
    for position in SOURCE_FIRST..SOURCE_END {
        let copies: Vec<String> = (rows.iter())
            .filter(|(_, _, p)| *p == position)
            .map(|(stream, offset, _)| format!("{}@{offset}", short(stream)))
            .collect();
        if copies.len() > 1 {
            return Some(Violation::new(
                "no row is duplicated",
                &[
                    format!("Let {PARTITION}:{position} be one source record."),
                    format!("Then the table holds it {} times: {}.", copies.len(), copies.join(", ")),
                    "Contradiction: one record, one row. A retry must reuse the journaled stream and offset; a new stream, or a new offset for the same batch, is a new write.".into(),
                ],
            ));
        }
    }
    None
}

/// When the run must finish, every source record in the table or quarantined.
pub fn no_record_lost(world: &World, ending: &Ending, expect_all: bool) -> Option<Violation> {
    let rows = table(world);
    let quarantine = quarantined(world.keeper());
    let lost = (SOURCE_FIRST..SOURCE_END).find(|position| {
        expect_all && !rows.iter().any(|(_, _, p)| p == position) && !quarantine.contains(position)
    })?;
    Some(Violation::new(
        "no row is lost",
        &[
            format!("Let {PARTITION}:{lost} be one source record."),
            format!("Then, after every fault healed and the writers ended ({ending}), it is neither in the table nor quarantined."),
            "Contradiction: every record must arrive, or be set aside with its row error as evidence.".into(),
        ],
    ))
}

/// Every CONFIRMED record's rows are in the table where the journal says: its range
/// (less quarantined positions), in order, at its stream and offset.
pub fn journal_matches_table(world: &World) -> Option<Violation> {
    let all = world.api.read_table(crate::world::TABLE);
    let quarantine = quarantined(world.keeper());
    for record in records(world.keeper()) {
        if record.state != CONFIRMED || record.row_count == 0 {
            continue;
        }
        let end = record.row_offset + record.row_count;
        let found: Vec<String> = (all.iter())
            .filter(|r| r.write_stream == record.write_stream)
            .filter(|r| {
                r.offset
                    .is_some_and(|o| (record.row_offset..end).contains(&(o as i64)))
            })
            .map(|r| r.row.source.clone())
            .collect();
        let expected: Vec<String> = (record.source_first..record.source_end)
            .filter(|p| !quarantine.contains(p))
            .map(|p| format!("{PARTITION}:{p}"))
            .collect();
        if found != expected || expected.len() as i64 != record.row_count {
            let stream = short(&record.write_stream);
            let shown = if found.is_empty() {
                "nothing".into()
            } else {
                found.join(", ")
            };
            return Some(Violation::new(
                "every confirmed record is in the table as journaled",
                &[
                    format!(
                        "Let {} be CONFIRMED at {stream}@{} with {} rows: {}.",
                        record.batch_id, record.row_offset, record.row_count, expected.join(", ")
                    ),
                    format!("Then {stream} holds at offsets {}–{}: {shown}.", record.row_offset, end - 1),
                    "Contradiction: a confirmed record says exactly which rows are where. Confirm a batch only on evidence that its own rows sit at its journaled offset: OK there, or ALREADY_EXISTS for a batch the journal proves was sent there; and never send rows the record does not describe.".into(),
                ],
            ));
        }
    }
    None
}

/// The partition's rows are on one stream: the one the journal names.
pub fn one_stream(world: &World) -> Option<Violation> {
    let mut streams: Vec<String> = table(world).into_iter().map(|(s, _, _)| s).collect();
    streams.dedup();
    if streams.len() <= 1 {
        return None;
    }
    let names: Vec<&str> = streams.iter().map(|s| short(s)).collect();
    Some(Violation::new(
        "the partition writes to one stream",
        &[
            format!("Let {PARTITION} write to the stream its journal names."),
            format!("Then its rows are on {} streams: {}.", names.len(), names.join(", ")),
            "Contradiction: a restart must read the journal's stream before it creates one; a new stream is a new idempotence namespace, where offset 0 is free again.".into(),
        ],
    ))
}

/// How the writers had to end: holding in the drill, finished (checkpoint at the end)
/// everywhere else, except after a broken source, where a hold is right too.
pub fn ending_as_expected(world: &World, ending: &Ending) -> Option<Violation> {
    let setup = world.setup;
    let next = checkpoint(world.keeper());
    if setup.foreign_rows > 0 {
        return (!matches!(ending, Ending::Held(_))).then(|| Violation::new(
            "the writer holds on evidence that is not its own",
            &[
                "Let a misconfigured client occupy the first offsets of the writer's stream.".into(),
                format!("Then the writers ended with {ending}, checkpoint at {next}."),
                "Contradiction: ALREADY_EXISTS for a batch the journal never sent says only that someone's rows are there. The writer must hold for reconciliation, durably.".into(),
            ],
        ));
    }
    let held_after_loss = setup.source_loses.is_some() && matches!(ending, Ending::Held(_));
    if held_after_loss || (*ending == Ending::Done && next == SOURCE_END) {
        return None;
    }
    Some(Violation::new(
        "the writer finishes once faults stop",
        &[
            "Let the faults stop (the last processes run healed).".to_string(),
            format!("Then the writers ended with {ending}, checkpoint at {next}, not {SOURCE_END}."),
            "Contradiction: with no faults left, recovery must resolve every record and advance the checkpoint.".into(),
        ],
    ))
}

/// A batch refused for a bad row is frozen as REJECTED and repaired by a new record that
/// names it, at the same offset, with the bad row quarantined.
pub fn rejection_repaired(world: &World) -> Option<Violation> {
    let bad = world.setup.bad_row?;
    let all = records(world.keeper());
    let rejected = all
        .iter()
        .find(|r| r.state == REJECTED && (r.source_first..r.source_end).contains(&bad));
    let repair = rejected.and_then(|old| {
        all.iter().find(|r| {
            r.replaces.as_deref() == Some(old.batch_id.as_str())
                && r.batch_id != old.batch_id
                && r.fingerprint != old.fingerprint
                && r.row_offset == old.row_offset
        })
    });
    if repair.is_some() && quarantined(world.keeper()).contains(&bad) {
        return None;
    }
    let seen: Vec<String> = all
        .iter()
        .map(|r| format!("{} {}", r.batch_id, r.state))
        .collect();
    Some(Violation::new(
        "a rejected batch is repaired under a new identity",
        &[
            format!("Let {PARTITION}:{bad} carry a value its column cannot take, so its batch is refused with a row error."),
            format!("Then the journal holds [{}] and quarantines {:?}.", seen.join(", "), quarantined(world.keeper())),
            "Contradiction: a refused batch appended nothing and must not be edited: mark it REJECTED, quarantine the bad row with its error, and journal a new batch (new id, its own fingerprint and row count, `replaces` naming the old one) at the same offset.".into(),
        ],
    ))
}
