//! The build phase: your coordinator.
//!
//! `run_coordinator` runs in a coordinator process that can crash at every `c.step(..)`
//! and after every call to the service (`?` passes the crash up). After a crash a new
//! process runs `run_coordinator` again from the start, with only what `coordinator.db`
//! holds. Appends, finalizations and the batch commit can lose their response after being
//! applied; a commit can also be lost before it is applied.
//!
//! This starter is the coordinator that treats every unanswered commit as a failed batch:
//! each process creates fresh streams, replays the workers' ranges into them and commits
//! those. It also keeps no record of the streams it made.
//!
//! Goal: the batch is committed exactly once (every source row visible once), one append
//! identity per source range, and the journal keeps COMMITTED with the commit time the
//! service holds, under every schedule in the graded scope. Grade it with
//! `cargo labs check 09`.

use crate::harness::{BATCH, Coordinator, RANGES, Stop, source_rows};
use rusqlite::params;

// ANCHOR: run_coordinator
/// One coordinator process: write every worker's range into a pending stream, finalize
/// them, commit the group and record the commit.
pub fn run_coordinator(c: &mut Coordinator) -> Result<(), Stop> {
    // TODO: read the journal first. If the batch is already COMMITTED, there is nothing to
    // do; if a worker's range already has a stream in `member`, that stream is the range's
    // append identity: finish it (append at offset 0, finalize) instead of replacing it.
    let mut streams = Vec::new();
    for (worker, _first, _end) in RANGES {
        let stream = c.create_pending_stream()?;
        if let Err(e) = c.append(&stream, 0, source_rows(worker))? {
            return Err(Stop::Retry(format!("append for {worker}: {e}")));
        }
        if let Err(e) = c.finalize(&stream)? {
            return Err(Stop::Retry(format!("finalize for {worker}: {e}")));
        }
        streams.push(stream);
    }
    match c.batch_commit(&streams)? {
        Ok(response) if response.stream_errors.is_empty() => {
            c.journal().execute(
                "INSERT OR REPLACE INTO batch_commit (batch, state, commit_time, evidence)
                 VALUES (?1, 'COMMITTED', ?2, 'commit_time returned')",
                params![BATCH, response.commit_time.map(|t| t as i64)],
            )?;
            Ok(())
        }
        // TODO: a response with stream errors committed none of these streams — but an
        // earlier call may have committed them and lost its response
        // (STREAM_ALREADY_COMMITTED). And no response at all (DEADLINE_EXCEEDED) proves
        // nothing. Inspect the streams (`c.get_write_stream(..)`, commit_time) before you
        // decide; retry the commit of the *same* streams when nothing was committed.
        Ok(response) => Err(Stop::Retry(format!(
            "stream errors: {:?}",
            response.stream_errors
        ))),
        Err(status) => Err(Stop::Retry(format!("commit failed: {status}"))),
    }
}
// ANCHOR_END: run_coordinator
