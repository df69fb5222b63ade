//! The build phase: your coordinator.
//!
//! `run_coordinator` runs in a coordinator process. The process may crash right after any
//! statement that changes `coordinator.db` and right after any call to the service, or
//! while it waits for a response: the harness decides where, and `?` passes the crash up.
//! After a crash a new process runs `run_coordinator` again from the start, with only
//! what `coordinator.db` holds. Appends, finalizations and the batch commit can lose their
//! response after being applied; a commit can also be lost before it is applied.
//!
//! This starter treats every unanswered call as a failed batch: each process creates
//! fresh streams, replays the workers' ranges into them and commits those. It keeps no
//! record of the streams it made.
//!
//! Goal, under every schedule the graded suite explores (`cargo labs check 09`):
//! * once the faults stop, every source row of D1 is visible exactly once;
//! * each worker's range reaches the service through one pending stream: one append
//!   identity per range, whatever crashed or went unanswered;
//! * the journal ends with D1 COMMITTED and the commit_time the service holds for it;
//! * and the last process returns `Ok`.
//!
//! `cargo labs hint 09` gives the protocol one step at a time.

use pending_streams::world::{BATCH, Coordinator, RANGES, Stop, source_rows};
use rusqlite::params;

// ANCHOR: run_coordinator
/// One coordinator process: write every worker's range into a pending stream,
/// finalize them, commit the group and record the commit.
pub fn run_coordinator(c: &mut Coordinator) -> Result<(), Stop> {
    // TODO: a process that starts after a crash is not the first one. What must it
    // read before it calls the service, and what must it never do again?
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
                "INSERT OR REPLACE INTO batch_commit
                     (batch, state, commit_time, evidence)
                 VALUES (?1, 'COMMITTED', ?2, 'commit_time returned')",
                params![BATCH, response.commit_time.map(|t| t as i64)],
            )?;
            Ok(())
        }
        // TODO: what does a response with stream errors say about the group, and what
        // does it not say? What does no response at all say?
        Ok(response) => Err(Stop::Retry(format!(
            "stream errors: {:?}",
            response.stream_errors
        ))),
        Err(status) => Err(Stop::Retry(format!("commit failed: {status}"))),
    }
}
// ANCHOR_END: run_coordinator
