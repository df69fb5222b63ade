//! The build phase: the journal transitions and the writer (reference solution).
//!
//! The writer appends source partition P7 to one application-created COMMITTED stream with
//! explicit row offsets. Its journal (`journal.db`, schema in `world::JOURNAL_SCHEMA`)
//! keeps, for every batch, destination + stream + row offset + exact batch identity and
//! fingerprint + source range, written before the send. Every write to the journal is
//! fenced by the owner epoch of the lease, read in the write's own transaction.

use append_streams::world::state::*;
use append_streams::world::{
    Code, Journal, MAX_BATCH_ROWS, PARTITION, Row, RowError, SERIALIZATION_VERSION, SOURCE_END,
    SOURCE_FIRST, Stop, TABLE, Transaction, Writer, fingerprint, short,
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

// ANCHOR: fence
/// Checks, inside the transaction that writes, that the lease still carries `epoch`.
/// Every journal write goes through here, so a stale owner writes nothing.
fn check_epoch(tx: &Transaction, epoch: i64) -> Result<(), Stop> {
    let current: i64 = tx.query_row(
        "SELECT owner_epoch FROM lease WHERE partition = ?1",
        [PARTITION],
        |r| r.get(0),
    )?;
    if current != epoch {
        return Err(Stop::Fenced {
            mine: epoch,
            current,
        });
    }
    Ok(())
}

/// Moves one record from one of `from` to `to`, with the evidence for the move.
pub fn transition(
    journal: &mut Journal,
    epoch: i64,
    batch_id: &str,
    from: &[&str],
    to: &str,
    evidence: &str,
) -> Result<(), Stop> {
    journal.transaction(|tx| {
        check_epoch(tx, epoch)?;
        let state: String = tx.query_row(
            "SELECT state FROM journal WHERE batch_id = ?1",
            [batch_id],
            |r| r.get(0),
        )?;
        if !from.contains(&state.as_str()) {
            return Err(Stop::Hold(format!(
                "{batch_id} is {state}, expected one of {from:?} before {to}"
            )));
        }
        tx.execute(
            "UPDATE journal SET state = ?2, evidence = ?3, owner_epoch = ?4
             WHERE batch_id = ?1",
            params![batch_id, to, evidence, epoch],
        )?;
        Ok(())
    })
}

/// Advances the source checkpoint to `next_position`, never backwards.
pub fn advance_checkpoint(
    journal: &mut Journal,
    epoch: i64,
    next_position: i64,
) -> Result<(), Stop> {
    journal.transaction(|tx| {
        check_epoch(tx, epoch)?;
        tx.execute(
            "INSERT INTO checkpoint (partition, next_position, owner_epoch)
             VALUES (?1, ?2, ?3)
             ON CONFLICT (partition) DO UPDATE SET next_position = ?2, owner_epoch = ?3
             WHERE next_position < ?2",
            params![PARTITION, next_position, epoch],
        )?;
        Ok(())
    })
}
// ANCHOR_END: fence

/// One journal record, as the writer needs it.
#[derive(Clone, Debug)]
struct Batch {
    id: String,
    stream: String,
    offset: i64,
    source_first: i64,
    source_end: i64,
    fingerprint: String,
    state: String,
}

fn unfinished(journal: &mut Journal) -> Result<Option<Batch>, Stop> {
    Ok(journal
        .query_row(
            "SELECT batch_id, write_stream, row_offset, source_first, source_end,
                    fingerprint, state
             FROM journal
             WHERE partition = ?1 AND state IN ('PREPARED', 'SENT', 'UNKNOWN')
             ORDER BY row_offset, batch_id LIMIT 1",
            [PARTITION],
            |r| {
                Ok(Batch {
                    id: r.get(0)?,
                    stream: r.get(1)?,
                    offset: r.get(2)?,
                    source_first: r.get(3)?,
                    source_end: r.get(4)?,
                    fingerprint: r.get(5)?,
                    state: r.get(6)?,
                })
            },
        )
        .optional()?)
}

fn position_of(row: &Row) -> i64 {
    row.source
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

/// The exact rows of a batch: its source range, minus quarantined positions, each row
/// carrying the batch identity as an ordinary column.
fn batch_rows(writer: &mut Writer, batch_id: &str, first: i64, end: i64) -> Result<Vec<Row>, Stop> {
    let quarantined: Vec<i64> = writer.journal().query_rows(
        "SELECT position FROM quarantine WHERE partition = ?1",
        [PARTITION],
        |r| r.get(0),
    )?;
    Ok(writer
        .source()
        .read(first, end)
        .into_iter()
        .filter(|row| !quarantined.contains(&position_of(row)))
        .map(|mut row| {
            row.batch = batch_id.to_string();
            row
        })
        .collect())
}

// ANCHOR: run_writer
/// One writer process: take the lease, recover what the journal says is unfinished,
/// then write the rest of the partition batch by batch. Returns when P7 is checkpointed
/// at its end.
pub fn run_writer(writer: &mut Writer) -> Result<(), Stop> {
    let owner = writer.owner().to_string();
    let epoch = acquire_lease(&mut writer.journal(), &owner)?;
    writer.note(|| format!("{owner} holds the lease with epoch {epoch}"));
    let stream = stream_for_partition(writer, epoch)?;
    if let Some(held) = held_record(&mut writer.journal())? {
        return Err(Stop::Hold(format!("{held} is held for reconciliation")));
    }
    loop {
        // Recovery first: durable state decides, never a fresh allocation.
        if let Some(batch) = unfinished(&mut writer.journal())? {
            send(writer, epoch, &batch)?;
            continue;
        }
        let (next_position, next_offset) = resolved_frontier(&mut writer.journal())?;
        if next_position > checkpoint_of(&mut writer.journal())? {
            advance_checkpoint(&mut writer.journal(), epoch, next_position)?;
            writer.note(|| format!("checkpoint {PARTITION} → {next_position}"));
        }
        if next_position >= SOURCE_END {
            return Ok(());
        }
        prepare(writer, epoch, &stream, next_position, next_offset)?;
    }
}
// ANCHOR_END: run_writer

fn held_record(journal: &mut Journal) -> Result<Option<String>, Stop> {
    Ok(journal
        .query_row(
            "SELECT batch_id FROM journal WHERE partition = ?1 AND state = 'HELD' LIMIT 1",
            [PARTITION],
            |r| r.get(0),
        )
        .optional()?)
}

fn checkpoint_of(journal: &mut Journal) -> Result<i64, Stop> {
    Ok(journal
        .query_row(
            "SELECT next_position FROM checkpoint WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(SOURCE_FIRST))
}

/// The stream the journal assigned to P7, or a new one recorded before any use.
fn stream_for_partition(writer: &mut Writer, epoch: i64) -> Result<String, Stop> {
    let recorded: Option<String> = writer
        .journal()
        .query_row(
            "SELECT write_stream FROM stream WHERE partition = ?1",
            [PARTITION],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(stream) = recorded {
        return Ok(stream);
    }
    // A crash between here and the INSERT leaves an empty stream nobody uses: harmless.
    let stream = writer.create_stream()?;
    writer.journal().transaction(|tx| {
        check_epoch(tx, epoch)?;
        tx.execute(
            "INSERT INTO stream (partition, write_stream, owner_epoch) VALUES (?1, ?2, ?3)",
            params![PARTITION, stream, epoch],
        )?;
        Ok(())
    })?;
    Ok(stream)
}

/// Where the next batch starts: the source position after the last batch that is not
/// rejected, and the row offset after its rows (a rejected batch appended nothing).
fn resolved_frontier(journal: &mut Journal) -> Result<(i64, i64), Stop> {
    let (position, offset): (Option<i64>, Option<i64>) = journal.query_row(
        "SELECT MAX(source_end), MAX(row_offset + row_count) FROM journal
         WHERE partition = ?1 AND state <> 'REJECTED'",
        [PARTITION],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((position.unwrap_or(SOURCE_FIRST), offset.unwrap_or(0)))
}

// ANCHOR: prepare
/// Cuts the next batch, fixes its identity, and journals it as PREPARED before any send.
fn prepare(
    writer: &mut Writer,
    epoch: i64,
    stream: &str,
    first: i64,
    offset: i64,
) -> Result<(), Stop> {
    let end = (first + MAX_BATCH_ROWS).min(SOURCE_END);
    let batch_id = format!("{PARTITION}:{first}-{}", end - 1);
    let rows = batch_rows(writer, &batch_id, first, end)?;
    writer.journal().transaction(|tx| {
        check_epoch(tx, epoch)?;
        tx.execute(
            "INSERT INTO journal (batch_id, partition, destination, write_stream,
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
                first,
                end,
                fingerprint(&rows),
                SERIALIZATION_VERSION,
                epoch
            ],
        )?;
        Ok(())
    })?;
    writer.note(|| {
        format!(
            "{batch_id} PREPARED at offset {offset}, {} rows",
            rows.len()
        )
    });
    Ok(())
}
// ANCHOR_END: prepare

/// `transition` of `batch` in this process's journal.
fn set_state(
    writer: &mut Writer,
    epoch: i64,
    batch: &Batch,
    from: &[&str],
    to: &str,
    evidence: &str,
) -> Result<(), Stop> {
    transition(&mut writer.journal(), epoch, &batch.id, from, to, evidence)
}

/// Holds for reconciliation: the record becomes HELD (so every later process stops at
/// it too), and this process stops.
fn hold(writer: &mut Writer, epoch: i64, batch: &Batch, reason: String) -> Result<(), Stop> {
    let unfinished = [PREPARED, SENT, UNKNOWN];
    set_state(writer, epoch, batch, &unfinished, HELD, &reason)?;
    Err(Stop::Hold(reason))
}

// ANCHOR: send
/// Sends one journaled batch (again) and records what the response proves.
fn send(writer: &mut Writer, epoch: i64, batch: &Batch) -> Result<(), Stop> {
    // The exact batch: rebuilt from the retained source and checked against the journal.
    let rows = batch_rows(writer, &batch.id, batch.source_first, batch.source_end)?;
    if fingerprint(&rows) != batch.fingerprint {
        let reason = format!("{} no longer reproduces from the source", batch.id);
        return hold(writer, epoch, batch, reason);
    }
    // SENT is durable before the first send: a record still PREPARED was never sent.
    let sent_before = batch.state != PREPARED;
    if !sent_before {
        set_state(writer, epoch, batch, &[PREPARED], SENT, "sending")?;
    }
    let response = writer.append(&batch.stream, batch.offset, rows.clone())?;
    let open = [SENT, UNKNOWN];
    let evidence = match response {
        Ok(result) if result.offset == Some(batch.offset as u64) => {
            format!("OK at offset {}", batch.offset)
        }
        // The journal proves it: same stream, same offset, same fingerprint, and an
        // earlier attempt of this very batch may have landed there.
        Err(error) if error.status.code == Code::AlreadyExists && sent_before => {
            "ALREADY_EXISTS; the journal proves an earlier send of this batch".into()
        }
        Err(error) if error.status.is_indefinite() || error.status.code == Code::Unavailable => {
            let evidence = error.to_string();
            set_state(writer, epoch, batch, &open, UNKNOWN, &evidence)?;
            writer.note(|| format!("{} UNKNOWN: {evidence}", batch.id));
            return Ok(());
        }
        Err(error) if !error.row_errors.is_empty() => {
            let evidence = error.to_string();
            return replace_rejected(writer, epoch, batch, &rows, &evidence, &error.row_errors);
        }
        other => {
            // Not evidence for this batch: hold, durably.
            let seen = other.map_or_else(|e| e.to_string(), |r| format!("OK at {:?}", r.offset));
            let (id, stream, offset) = (&batch.id, short(&batch.stream), batch.offset);
            let reason = format!("{id} at {stream}@{offset}: {seen} is not evidence for it");
            return hold(writer, epoch, batch, reason);
        }
    };
    set_state(writer, epoch, batch, &open, CONFIRMED, &evidence)?;
    writer.note(|| format!("{} CONFIRMED", batch.id));
    Ok(())
}
// ANCHOR_END: send

// ANCHOR: replace
/// A conclusive rejection (row errors: nothing was appended): freeze the old record,
/// quarantine the bad rows with their reason, and journal a replacement batch with a new
/// identity, its own fingerprint and row count, at the same offset — in one transaction.
fn replace_rejected(
    writer: &mut Writer,
    epoch: i64,
    batch: &Batch,
    rows: &[Row],
    evidence: &str,
    row_errors: &[RowError],
) -> Result<(), Stop> {
    let bad: Vec<&Row> = row_errors
        .iter()
        .filter_map(|e| rows.get(e.index))
        .collect();
    let root = batch.id.split('#').next().unwrap_or(&batch.id);
    let generation: i64 = writer.journal().query_row(
        "SELECT COUNT(*) FROM journal WHERE batch_id LIKE ?1 || '%'",
        [root],
        |r| r.get(0),
    )?;
    let replacement = format!("{root}#r{generation}");
    let kept: Vec<Row> = (rows.iter())
        .filter(|row| !bad.contains(row))
        .map(|row| Row {
            batch: replacement.clone(),
            ..row.clone()
        })
        .collect();
    // With no row left, the replacement is confirmed at once: there is nothing to send.
    let state = if kept.is_empty() { CONFIRMED } else { PREPARED };
    writer.journal().transaction(|tx| {
        check_epoch(tx, epoch)?;
        let frozen = tx.execute(
            "UPDATE journal SET state = 'REJECTED', evidence = ?2, owner_epoch = ?3
             WHERE batch_id = ?1 AND state IN ('SENT', 'UNKNOWN')",
            params![batch.id, evidence, epoch],
        )?;
        if frozen != 1 {
            return Err(Stop::Hold(format!(
                "{} changed under the rejection",
                batch.id
            )));
        }
        for (row, error) in bad.iter().zip(row_errors) {
            tx.execute(
                "INSERT INTO quarantine (partition, position, batch_id, reason, owner_epoch)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![PARTITION, position_of(row), batch.id, error.message, epoch],
            )?;
        }
        tx.execute(
            "INSERT INTO journal (batch_id, partition, destination, write_stream,
                row_offset, row_count, source_first, source_end, fingerprint,
                serialization_version, state, replaces, owner_epoch)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                replacement,
                PARTITION,
                TABLE,
                batch.stream,
                batch.offset,
                kept.len() as i64,
                batch.source_first,
                batch.source_end,
                fingerprint(&kept),
                SERIALIZATION_VERSION,
                state,
                batch.id,
                epoch
            ],
        )?;
        Ok(())
    })?;
    writer.note(|| {
        format!(
            "{} REJECTED and frozen; {replacement} replaces it",
            batch.id
        )
    });
    Ok(())
}
// ANCHOR_END: replace
