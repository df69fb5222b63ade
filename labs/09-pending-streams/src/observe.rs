//! The observe phase: pending streams on the simulated Storage Write API. Two workers
//! write their ranges of batch D1 into pending streams; a coordinator finalizes and
//! commits them. Every verdict is computed from the service's answers and from a query of
//! the table; the answer keys live in `lab.toml`.

use labkit::fault::{Fate, Sim};
use labkit::{Observation, Report};
use sim_writeapi::{
    AppendRowsRequest, BatchCommitWriteStreamsResponse, FINALIZED_BUFFER_LIMIT, Faults, HOUR, Row,
    Status, StorageErrorCode, StreamType, WriteApi,
};

const TABLE: &str = "daily";

fn rows(worker: &str, first: u64, end: u64) -> Vec<Row> {
    (first..end)
        .map(|p| Row::new(format!("D1:{p}"), worker))
        .collect()
}

/// A service and its `Sim`: fault-free, or following a schedule.
struct Batch {
    api: WriteApi,
    sim: Sim,
}

impl Batch {
    fn new() -> Self {
        Batch {
            api: WriteApi::new(&[TABLE]),
            sim: Sim::fault_free(),
        }
    }

    /// A service whose first `BatchCommitWriteStreams` is applied and loses its response.
    fn losing_first_commit_response() -> Self {
        let mut batch = Batch::new();
        batch.api.faults = Faults {
            commit: &[Fate::Ok, Fate::AppliedResponseLost],
            ..Faults::NONE
        };
        // The choices before the first commit: two appends and two finalizations.
        batch.sim = Sim::replaying(&[0, 0, 0, 0, 1]);
        batch
    }

    // ANCHOR: worker
    /// A worker: a pending stream with its range appended at offset 0.
    fn worker(&mut self, worker: &str, first: u64, end: u64) -> String {
        let stream = self
            .api
            .create_write_stream(&mut self.sim, TABLE, StreamType::Pending)
            .expect("create")
            .name;
        let connection = self.api.connect(&mut self.sim, &stream).expect("connect");
        self.api
            .append_rows(
                &mut self.sim,
                &connection,
                AppendRowsRequest {
                    offset: Some(0),
                    rows: rows(worker, first, end),
                },
            )
            .expect("append");
        self.api.disconnect(&connection);
        stream
    }
    // ANCHOR_END: worker

    fn finalize(&mut self, stream: &str) -> Result<u64, Status> {
        self.api.finalize_write_stream(&mut self.sim, stream)
    }

    fn commit(&mut self, streams: &[String]) -> Result<BatchCommitWriteStreamsResponse, Status> {
        self.api
            .batch_commit_write_streams(&mut self.sim, TABLE, streams)
    }

    fn visible(&self) -> usize {
        self.api.read_table(TABLE).len()
    }

    fn most_copies(&self) -> usize {
        let sources: Vec<String> = self
            .api
            .read_table(TABLE)
            .into_iter()
            .map(|r| r.row.source)
            .collect();
        sources
            .iter()
            .map(|s| sources.iter().filter(|t| *t == s).count())
            .max()
            .unwrap_or(0)
    }
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("pending-streams");
    let mut summary = serde_json::Map::new();

    // 1. Invisible until the batch commit; finalize publishes nothing.
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    let s2 = b.worker("W2", 2, 5);
    obs.check("pending rows are visible after the append", b.visible() > 0);
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    obs.check("finalize publishes the rows", b.visible() > 0);
    let connection = b.api.connect(&mut b.sim, &s1).expect("connect");
    let late = b.api.append_rows(
        &mut b.sim,
        &connection,
        AppendRowsRequest {
            offset: Some(2),
            rows: rows("W1", 9, 10),
        },
    );
    obs.check(
        "a finalized stream refuses further appends",
        late.is_err_and(|e| e.status.storage == Some(StorageErrorCode::StreamFinalized)),
    );
    let committed = b.commit(&[s1.clone(), s2.clone()]).expect("commit");
    obs.check(
        "after the batch commit every stream's rows are visible",
        committed.stream_errors.is_empty() && b.visible() == 5,
    );
    summary.insert(
        "finalize_row_counts".into(),
        format!("{row_counts:?}").into(),
    );
    summary.insert(
        "commit_time".into(),
        format!("{:?}", committed.commit_time).into(),
    );

    // 2. One bad stream in the group: none committed, no commit time.
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    let s2 = b.worker("W2", 2, 5);
    b.finalize(&s1).expect("finalize W1");
    let response = b.commit(&[s1.clone(), s2.clone()]).expect("commit");
    obs.check(
        "a commit with one unfinalized stream commits the others",
        b.visible() > 0,
    );
    obs.check(
        "a commit with stream errors returns a commit time",
        !response.stream_errors.is_empty() && response.commit_time.is_some(),
    );
    summary.insert(
        "stream_errors".into(),
        format!(
            "{:?}",
            response
                .stream_errors
                .iter()
                .map(|e| e.code.name())
                .collect::<Vec<_>>()
        )
        .into(),
    );

    // 3. A lost commit response, then the same commit again.
    let mut b = Batch::losing_first_commit_response();
    let s1 = b.worker("W1", 0, 2);
    let s2 = b.worker("W2", 2, 5);
    let row_count_before_commit = b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let group = [s1.clone(), s2.clone()];
    let lost = b.commit(&group);
    obs.check(
        "a lost commit response can hide a commit that happened",
        lost.as_ref().is_err_and(|e| e.is_indefinite()) && b.visible() == 5,
    );
    let retry = b.commit(&group).expect("retry");
    let visible_after_retry = b.visible();
    obs.check(
        "retrying the same commit commits the streams a second time",
        visible_after_retry > 5,
    );
    let all_already = !retry.stream_errors.is_empty()
        && retry
            .stream_errors
            .iter()
            .all(|e| e.code == StorageErrorCode::StreamAlreadyCommitted);
    obs.answer(
        "retry-after-lost-commit",
        if visible_after_retry > 5 {
            "d"
        } else if retry.commit_time.is_some() {
            "a"
        } else if all_already {
            "b"
        } else {
            "c"
        },
        format!(
            "the retry answered commit_time {:?} and stream_errors {:?}",
            retry.commit_time,
            retry
                .stream_errors
                .iter()
                .map(|e| e.code.name())
                .collect::<Vec<_>>()
        ),
    );
    // Which call tells the coordinator that the group was committed?
    let get = b.api.get_write_stream(&s1).expect("get").commit_time;
    let finalize_again = b.finalize(&s1).ok();
    let finalize_tells = finalize_again != Some(row_count_before_commit);
    obs.answer(
        "how-to-know-committed",
        if get.is_some() {
            "a"
        } else if finalize_tells {
            "b"
        } else {
            "c"
        },
        format!("GetWriteStream commit_time {get:?}; FinalizeWriteStream row_count {row_count_before_commit} before the commit, {finalize_again:?} after"),
    );

    // 4. Replacement streams with the replayed ranges, after the lost response.
    let mut b = Batch::losing_first_commit_response();
    let s1 = b.worker("W1", 0, 2);
    let s2 = b.worker("W2", 2, 5);
    b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let _ = b.commit(&[s1, s2]);
    let r1 = b.worker("W1", 0, 2);
    let r2 = b.worker("W2", 2, 5);
    b.finalize(&r1).expect("finalize");
    b.finalize(&r2).expect("finalize");
    let replaced = b.commit(&[r1, r2]).expect("commit replacements");
    obs.check(
        "replacement streams with the replayed ranges duplicate the rows",
        replaced.stream_errors.is_empty() && b.most_copies() == 2,
    );
    let visible = b.visible();
    obs.answer(
        "rows-after-replacement",
        match visible {
            5 => "a",
            10 => "b",
            0 => "c",
            _ => "d",
        },
        format!("after the lost commit and a commit of replacement streams the table shows {visible} rows"),
    );

    // 5. The buffer limit after finalization, on the logical clock.
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    b.finalize(&s1).expect("finalize");
    b.sim.advance(5 * HOUR);
    let late = b.commit(std::slice::from_ref(&s1)).expect("commit");
    obs.check(
        "a finalized stream can be committed after five hours",
        late.stream_errors.is_empty(),
    );
    summary.insert(
        "finalized_buffer_limit_hours".into(),
        (FINALIZED_BUFFER_LIMIT / HOUR).into(),
    );

    obs.finish(None, serde_json::Value::Object(summary))
}
