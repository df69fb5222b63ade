//! The build phase: your journal transitions and your writer.
//!
//! `run_writer` runs in a writer process. The process may crash right after any call to
//! the service (or while it waits for an `AppendRows` response) and right after any
//! statement that changes `journal.db`: the harness decides where, and `?` passes the
//! crash up. After a crash a new process runs `run_writer` again from the start, with
//! only what `journal.db` holds. `AppendRows` can answer, lose its response after the
//! rows were appended, lose the request, or land later. In the stale-owner scenario the
//! first process may pause after a durable step or a read while a new owner takes over,
//! then wake up and carry on with what it had in memory.
//!
//! This starter is the naive writer the chapter warns about: it keeps only a checkpoint,
//! opens a fresh stream in every process, believes any ALREADY_EXISTS, drops bad rows
//! from a batch without changing its identity, and fences nothing.
//!
//! Goal, under every schedule the graded suite explores (`cargo labs check 08`): no
//! source record lost, none duplicated; every CONFIRMED record's rows in the table where
//! the journal says; the checkpoint never ahead of confirmed data and never backwards;
//! a stale owner changes nothing; a hold survives a restart; a rejected batch is frozen
//! and repaired under a new identity; the writer finishes once the faults stop.
//! `cargo labs hint 08` gives the protocol one step at a time.

use append_streams::world::state::*;
use append_streams::world::{
    Code, Journal, MAX_BATCH_ROWS, PARTITION, Row, SERIALIZATION_VERSION, SOURCE_END, SOURCE_FIRST,
    Stop, TABLE, Writer, fingerprint,
};
use rusqlite::{OptionalExtension, params};

// ANCHOR: lease
/// Takes the partition's lease: a compare-and-swap that bumps the owner epoch by one
/// and returns the new epoch. Every later write of this process carries that epoch.
pub fn acquire_lease(journal: &mut Journal, owner: &str) -> Result<i64, Stop> {
    journal.transaction(|tx| {
        let current: Option<i64> = tx
            .query_row(
                "SELECT owner_epoch FROM lease WHERE partition = ?1",
                [PARTITION],
                |r| r.get(0),
            )
            .optional()?;
        let epoch = current.unwrap_or(0) + 1;
        tx.execute(
            "INSERT INTO lease (partition, owner_epoch, owner) VALUES (?1, ?2, ?3)
             ON CONFLICT (partition) DO UPDATE SET owner_epoch = ?2, owner = ?3
             WHERE owner_epoch = ?2 - 1",
            params![PARTITION, epoch, owner],
        )?;
        Ok(epoch)
    })
}
// ANCHOR_END: lease

/// Moves one record from one of `from` to `to`, with the evidence for the move.
pub fn transition(
    journal: &mut Journal,
    epoch: i64,
    batch_id: &str,
    from: &[&str],
    to: &str,
    evidence: &str,
) -> Result<(), Stop> {
    // TODO: a process whose epoch is no longer the lease's must change nothing.
    let _ = from;
    journal.execute(
        "UPDATE journal SET state = ?2, evidence = ?3, owner_epoch = ?4
         WHERE batch_id = ?1",
        params![batch_id, to, evidence, epoch],
    )?;
    Ok(())
}

/// Advances the source checkpoint to `next_position`.
pub fn advance_checkpoint(
    journal: &mut Journal,
    epoch: i64,
    next_position: i64,
) -> Result<(), Stop> {
    // TODO: the same rule as `transition`; and positions below a checkpoint are done.
    journal.execute(
        "INSERT OR REPLACE INTO checkpoint (partition, next_position, owner_epoch)
         VALUES (?1, ?2, ?3)",
        params![PARTITION, next_position, epoch],
    )?;
    Ok(())
}

fn checkpoint_of(journal: &mut Journal) -> Result<i64, Stop> {
    let next = journal
        .query_row(
            "SELECT next_position FROM checkpoint WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .optional()?;
    Ok(next.unwrap_or(SOURCE_FIRST))
}

/// Journals one batch as PREPARED: (batch id, stream, offset, rows, source range).
fn journal_batch(
    journal: &mut Journal,
    (batch_id, stream, offset, count, first, end): (&str, &str, i64, i64, i64, i64),
    fingerprint: &str,
    epoch: i64,
) -> Result<(), Stop> {
    journal.execute(
        "INSERT OR REPLACE INTO journal (batch_id, partition, destination,
            write_stream, row_offset, row_count, source_first, source_end,
            fingerprint, serialization_version, state, owner_epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'PREPARED', ?11)",
        params![
            batch_id,
            PARTITION,
            TABLE,
            stream,
            offset,
            count,
            first,
            end,
            fingerprint,
            SERIALIZATION_VERSION,
            epoch
        ],
    )?;
    Ok(())
}

// ANCHOR: run_writer
/// One writer process: resume from the checkpoint and write the rest of the partition.
pub fn run_writer(writer: &mut Writer) -> Result<(), Stop> {
    let owner = writer.owner().to_string();
    let epoch = acquire_lease(&mut writer.journal(), &owner)?;
    // TODO: what does a new process find in the journal, and what must it finish
    // before it cuts new work? What may it create, and what must it reuse?
    let stream = writer.create_stream()?;
    let mut position = checkpoint_of(&mut writer.journal())?;
    let mut offset = 0;
    while position < SOURCE_END {
        let end = (position + MAX_BATCH_ROWS).min(SOURCE_END);
        let batch_id = format!("{PARTITION}:{position}-{}", end - 1);
        let mut rows: Vec<Row> = writer.source().read(position, end);
        for row in &mut rows {
            row.batch = batch_id.clone();
        }
        let count = rows.len() as i64;
        let record = (
            batch_id.as_str(),
            stream.as_str(),
            offset,
            count,
            position,
            end,
        );
        journal_batch(&mut writer.journal(), record, &fingerprint(&rows), epoch)?;
        let mut response = writer.append(&stream, offset, rows.clone())?;
        if let Err(error) = &response
            && !error.row_errors.is_empty()
        {
            // TODO: what may a batch that was refused become, and what must be kept?
            let bad: Vec<usize> = error.row_errors.iter().map(|e| e.index).collect();
            let kept: Vec<Row> = (rows.iter().enumerate())
                .filter(|(i, _)| !bad.contains(i))
                .map(|(_, r)| r.clone())
                .collect();
            response = writer.append(&stream, offset, kept)?;
        }
        match response {
            // TODO: what does each answer prove about this batch, and what does it not?
            Ok(_) => {}
            Err(error) if error.status.code == Code::AlreadyExists => {}
            Err(error) => return Err(Stop::Retry(format!("{batch_id}: {error}"))),
        }
        let mut journal = writer.journal();
        transition(
            &mut journal,
            epoch,
            &batch_id,
            &[PREPARED],
            CONFIRMED,
            "appended",
        )?;
        advance_checkpoint(&mut journal, epoch, end)?;
        offset += end - position;
        position = end;
    }
    Ok(())
}
// ANCHOR_END: run_writer
