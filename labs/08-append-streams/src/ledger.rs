//! The build phase: your journal transitions and your writer.
//!
//! `run_writer` runs in a writer process that can crash at every `writer.step(..)` and
//! while it waits for an `AppendRows` response (`?` passes the crash up). After a crash a
//! new process runs `run_writer` again from the start, with only what `journal.db` holds.
//! `AppendRows` can answer, lose its response after the rows were appended, lose the
//! request, or land later. In the stale-owner scenario the first process can pause at a
//! step while a new owner takes over and finishes, then wake up and carry on.
//!
//! This starter is the naive writer the seed warns about: it keeps only a checkpoint, opens
//! a fresh stream in every process, believes any ALREADY_EXISTS, drops bad rows from a
//! batch without changing its identity, and fences nothing.
//!
//! Goal: no row lost, none duplicated, the checkpoint never ahead of confirmed data, a
//! stale owner changes nothing, under every schedule in the graded scope. Grade it with
//! `cargo labs check 08`.

use crate::harness::state::*;
use crate::harness::{
    MAX_BATCH_ROWS, PARTITION, SERIALIZATION_VERSION, SOURCE_END, SOURCE_FIRST, Stop, TABLE,
    Writer, fingerprint,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use sim_writeapi::{Code, Row};

// ANCHOR: lease
/// Takes the partition's lease: a compare-and-swap that bumps the owner epoch by one and
/// returns the new epoch. Every later write of this process carries that epoch.
pub fn acquire_lease(journal: &mut Connection, owner: &str) -> Result<i64, Stop> {
    let tx = journal.transaction_with_behavior(TransactionBehavior::Immediate)?;
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
    tx.commit()?;
    Ok(epoch)
}
// ANCHOR_END: lease

/// Moves one record from one of `from` to `to`, with the evidence for the move.
pub fn transition(
    journal: &mut Connection,
    epoch: i64,
    batch_id: &str,
    from: &[&str],
    to: &str,
    evidence: &str,
) -> Result<(), Stop> {
    // TODO: fence it. Inside one IMMEDIATE transaction, read the lease: if its epoch is not
    // `epoch`, refuse with `Stop::Fenced` and write nothing. Refuse a record that is not in
    // one of the `from` states, too.
    let _ = from;
    journal.execute(
        "UPDATE journal SET state = ?2, evidence = ?3, owner_epoch = ?4 WHERE batch_id = ?1",
        params![batch_id, to, evidence, epoch],
    )?;
    Ok(())
}

/// Advances the source checkpoint to `next_position`.
pub fn advance_checkpoint(
    journal: &mut Connection,
    epoch: i64,
    next_position: i64,
) -> Result<(), Stop> {
    // TODO: fence it like `transition`, and never move the checkpoint backwards.
    journal.execute(
        "INSERT OR REPLACE INTO checkpoint (partition, next_position, owner_epoch) VALUES (?1, ?2, ?3)",
        params![PARTITION, next_position, epoch],
    )?;
    Ok(())
}

fn checkpoint_of(journal: &Connection) -> Result<i64, Stop> {
    Ok(journal
        .query_row(
            "SELECT next_position FROM checkpoint WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(SOURCE_FIRST))
}

// ANCHOR: run_writer
/// One writer process: resume from the checkpoint and write the rest of the partition.
pub fn run_writer(writer: &mut Writer) -> Result<(), Stop> {
    let owner = writer.owner().to_string();
    let epoch = acquire_lease(writer.journal(), &owner)?;
    writer.step("writer:after-lease")?;
    // TODO: read durable state before creating network state. The journal's `stream` table
    // names the stream this partition already writes to; a new stream is a new
    // idempotence namespace, where offset 0 is free again.
    let stream = writer.create_stream()?;
    let mut position = checkpoint_of(writer.journal())?;
    let mut offset = 0;
    // TODO: recovery. Records that are PREPARED, SENT or UNKNOWN must be finished (sent
    // again, with the same stream, offset and exact rows) before anything new is cut.
    while position < SOURCE_END {
        let end = (position + MAX_BATCH_ROWS).min(SOURCE_END);
        let batch_id = format!("{PARTITION}:{position}-{}", end - 1);
        let mut rows: Vec<Row> = writer.source().read(position, end);
        for row in &mut rows {
            row.batch = batch_id.clone();
        }
        writer.journal().execute(
            "INSERT OR REPLACE INTO journal (batch_id, partition, destination, write_stream,
                row_offset, row_count, source_first, source_end, fingerprint,
                serialization_version, state, owner_epoch)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'PREPARED', ?11)",
            params![
                batch_id,
                PARTITION,
                TABLE,
                stream,
                offset,
                rows.len() as i64,
                position,
                end,
                fingerprint(&rows),
                SERIALIZATION_VERSION,
                epoch
            ],
        )?;
        writer.step("writer:after-prepare")?;
        let mut response = writer.append(&stream, offset, rows.clone())?;
        if let Err(error) = &response
            && !error.row_errors.is_empty()
        {
            // TODO: a rejected batch is frozen, not edited. Give the repaired rows a new
            // batch identity, fingerprint and row count, and keep the bad rows (with their
            // row errors) in `quarantine`, so nothing is silently dropped.
            let bad: Vec<usize> = error.row_errors.iter().map(|e| e.index).collect();
            let kept: Vec<Row> = rows
                .iter()
                .enumerate()
                .filter(|(i, _)| !bad.contains(i))
                .map(|(_, r)| r.clone())
                .collect();
            response = writer.append(&stream, offset, kept)?;
        }
        match response {
            // TODO: ALREADY_EXISTS is evidence only when the journal proves that an earlier
            // attempt of this very batch (same stream, offset, fingerprint) was sent.
            Ok(_) => {}
            Err(error) if error.status.code == Code::AlreadyExists => {}
            Err(error) => {
                // TODO: DEADLINE_EXCEEDED does not mean "not appended". Record the outcome
                // as unknown and retry the same batch at the same offset.
                return Err(Stop::Retry(format!("{batch_id}: {error}")));
            }
        }
        transition(
            writer.journal(),
            epoch,
            &batch_id,
            &[PREPARED],
            CONFIRMED,
            "appended",
        )?;
        advance_checkpoint(writer.journal(), epoch, end)?;
        writer.step("writer:after-checkpoint")?;
        offset += end - position;
        position = end;
    }
    Ok(())
}
// ANCHOR_END: run_writer
