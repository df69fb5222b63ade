//! The build phase: the coordinator (reference solution).
//!
//! Each worker range gets one PENDING stream, journaled before any append. The rows go at
//! offset 0 (so a resend after a lost response is recognised), the stream is finalized,
//! and when every member is finalized the group is committed with one
//! `BatchCommitWriteStreams`. A lost or failed commit is settled by inspecting the streams,
//! never by replacing them.

use pending_streams::world::{
    BATCH, Code, Coordinator, RANGES, Stop, StorageErrorCode, source_rows,
};
use rusqlite::{OptionalExtension, params};

/// One worker's stream, as the journal knows it.
struct Member {
    stream: String,
    state: String,
}

fn member(c: &mut Coordinator, worker: &str) -> Result<Option<Member>, Stop> {
    Ok(c.journal()
        .query_row(
            "SELECT write_stream, state FROM member WHERE worker = ?1",
            [worker],
            |r| {
                Ok(Member {
                    stream: r.get(0)?,
                    state: r.get(1)?,
                })
            },
        )
        .optional()?)
}

fn set_member_state(
    c: &mut Coordinator,
    worker: &str,
    state: &str,
    rows: Option<i64>,
) -> Result<(), Stop> {
    c.journal().execute(
        "UPDATE member SET state = ?2, row_count = COALESCE(?3, row_count) WHERE worker = ?1",
        params![worker, state, rows],
    )?;
    Ok(())
}

// ANCHOR: prepare_member
/// Brings one worker's stream to FINALIZED: the journaled stream if there is one, else a
/// new stream journaled before its first append.
fn prepare_member(c: &mut Coordinator, worker: &str, first: i64, end: i64) -> Result<String, Stop> {
    let existing = member(c, worker)?;
    let mut m = match existing {
        Some(m) => m,
        None => {
            let stream = c.create_pending_stream()?;
            c.journal().execute(
                "INSERT INTO member (worker, source_first, source_end, write_stream, state)
                 VALUES (?1, ?2, ?3, ?4, 'CREATED')",
                params![worker, first, end, stream],
            )?;
            Member {
                stream,
                state: "CREATED".into(),
            }
        }
    };
    if m.state == "CREATED" {
        // Offset 0: a resend after a lost response answers ALREADY_EXISTS instead of
        // appending the range twice.
        match c.append(&m.stream, 0, source_rows(worker))? {
            Ok(_) => {}
            Err(e) if e.status.code == Code::AlreadyExists => {}
            Err(e) => return Err(Stop::Retry(format!("append for {worker}: {e}"))),
        }
        set_member_state(c, worker, "APPENDED", None)?;
        m.state = "APPENDED".into();
    }
    if m.state == "APPENDED" {
        // A second finalize (after a lost response) answers the row count again in the
        // simulator; the real service may refuse it as already finalized instead. Either
        // way the stream is finalized.
        match c.finalize(&m.stream)? {
            Ok(rows) => set_member_state(c, worker, "FINALIZED", Some(rows))?,
            Err(e) if e.storage == Some(StorageErrorCode::StreamFinalized) => {
                set_member_state(c, worker, "FINALIZED", None)?
            }
            Err(e) => return Err(Stop::Retry(format!("finalize for {worker}: {e}"))),
        }
    }
    Ok(m.stream)
}
// ANCHOR_END: prepare_member

fn record_commit(c: &mut Coordinator, commit_time: u64, evidence: &str) -> Result<(), Stop> {
    c.journal().execute(
        "UPDATE batch_commit SET state = 'COMMITTED', commit_time = ?2, evidence = ?3
         WHERE batch = ?1",
        params![BATCH, commit_time as i64, evidence],
    )?;
    c.note(|| format!("{BATCH} COMMITTED at {commit_time} ({evidence})"));
    Ok(())
}

// ANCHOR: inspect
/// After a lost or refused commit: are the streams committed? GetWriteStream's
/// commit_time answers it, for every stream of the group.
fn committed_at(c: &mut Coordinator, streams: &[String]) -> Result<Option<u64>, Stop> {
    let mut times = Vec::new();
    for stream in streams {
        let info = c
            .get_write_stream(stream)
            .map_err(|e| Stop::Retry(format!("GetWriteStream: {e}")))?;
        times.push(info.commit_time);
    }
    match times.first().copied().flatten() {
        Some(time) if times.iter().all(|t| *t == Some(time)) => Ok(Some(time)),
        None if times.iter().all(|t| t.is_none()) => Ok(None),
        _ => Err(Stop::Hold(format!(
            "the group is partly committed: {times:?}"
        ))),
    }
}
// ANCHOR_END: inspect

// ANCHOR: run_coordinator
/// One coordinator process: finish every member, then commit the group exactly once and
/// record the commit time.
pub fn run_coordinator(c: &mut Coordinator) -> Result<(), Stop> {
    let state: Option<String> = c
        .journal()
        .query_row(
            "SELECT state FROM batch_commit WHERE batch = ?1",
            [BATCH],
            |r| r.get(0),
        )
        .optional()?;
    if state.as_deref() == Some("COMMITTED") {
        return Ok(());
    }
    let mut streams = Vec::new();
    for (worker, first, end) in RANGES {
        streams.push(prepare_member(c, worker, first, end)?);
    }
    if state.is_none() {
        c.journal().execute(
            "INSERT INTO batch_commit (batch, state) VALUES (?1, 'COMMITTING')",
            [BATCH],
        )?;
    } else if let Some(time) = committed_at(c, &streams)? {
        // An earlier process committed and lost the response: inspect, do not replay.
        return record_commit(c, time, "found committed by GetWriteStream");
    }
    match c.batch_commit(&streams)? {
        Ok(response) if response.stream_errors.is_empty() => {
            let time = response
                .commit_time
                .ok_or_else(|| Stop::Hold("no stream errors and no commit_time".into()))?;
            record_commit(c, time, "BatchCommitWriteStreams returned commit_time")
        }
        Ok(response) => {
            // stream_errors: none of the streams was committed by this call. They may have
            // been committed by an earlier call whose response was lost.
            match committed_at(c, &streams)? {
                Some(time) => record_commit(
                    c,
                    time,
                    "STREAM_ALREADY_COMMITTED; GetWriteStream shows commit_time",
                ),
                None => Err(Stop::Hold(format!(
                    "stream errors and nothing committed: {:?}",
                    response
                        .stream_errors
                        .iter()
                        .map(|e| e.code.name())
                        .collect::<Vec<_>>()
                ))),
            }
        }
        Err(status) => match committed_at(c, &streams)? {
            Some(time) => record_commit(c, time, "response lost; GetWriteStream shows commit_time"),
            None => Err(Stop::Retry(format!(
                "commit not applied ({status}); retry the same streams"
            ))),
        },
    }
}
// ANCHOR_END: run_coordinator
