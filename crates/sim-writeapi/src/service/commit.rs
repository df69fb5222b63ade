//! `BatchCommitWriteStreams`: which streams can be committed (type, state, the time
//! limits of pending streams) and the atomic commit of all of them, or of none.

use super::{State, WriteApi};
use crate::{
    BatchCommitWriteStreamsResponse, Code, FINALIZED_BUFFER_LIMIT, PENDING_COMMIT_LIMIT, Status,
    StorageError, StorageErrorCode, StreamType, short,
};
use labkit::fault::{Fate, Glyph, Sim};

impl WriteApi {
    /// Why one stream cannot be committed now, if it cannot.
    fn commit_error(&self, parent: &str, name: &str, now: u64) -> Option<StorageError> {
        let error = |code: StorageErrorCode, message: &str| {
            Some(StorageError {
                code,
                entity: name.to_string(),
                error_message: message.to_string(),
            })
        };
        let Some(stream) = self.streams.get(name).filter(|s| s.table == parent) else {
            return error(
                StorageErrorCode::StreamNotFound,
                "no such stream in the parent table",
            );
        };
        if stream.stream_type != StreamType::Pending {
            return error(
                StorageErrorCode::InvalidStreamType,
                "only PENDING streams are committed",
            );
        }
        match stream.state {
            State::Committed => error(
                StorageErrorCode::StreamAlreadyCommitted,
                "already committed",
            ),
            State::Open => error(
                StorageErrorCode::InvalidStreamState,
                "the stream is not finalized",
            ),
            State::Finalized => {
                let finalized = stream.finalize_time.unwrap_or(now);
                if now.saturating_sub(stream.create_time) > PENDING_COMMIT_LIMIT
                    || now.saturating_sub(finalized) > FINALIZED_BUFFER_LIMIT
                {
                    error(
                        StorageErrorCode::InvalidStreamState,
                        "the stream is garbaged (time limit)",
                    )
                } else {
                    None
                }
            }
        }
    }

    /// `BatchCommitWriteStreams`: atomically commits finalized `PENDING` streams of one
    /// parent table. With stream errors, none is committed and there is no commit time.
    pub fn batch_commit_write_streams(
        &mut self,
        sim: &mut Sim,
        parent: &str,
        write_streams: &[String],
    ) -> Result<BatchCommitWriteStreamsResponse, Status> {
        self.settle(sim);
        let fate = match self.scripted_commit.take() {
            Some(fate) => fate,
            None => sim.fate("writeapi:BatchCommitWriteStreams", self.faults.commit),
        };
        let now = sim.now();
        let applied = matches!(fate, Fate::Ok | Fate::AppliedResponseLost);
        let mut response = BatchCommitWriteStreamsResponse {
            commit_time: None,
            stream_errors: write_streams
                .iter()
                .filter_map(|name| self.commit_error(parent, name, now))
                .collect(),
        };
        if applied && response.stream_errors.is_empty() {
            for name in write_streams {
                let stream = self.streams.get_mut(name).expect("checked");
                stream.state = State::Committed;
                stream.commit_time = Some(now);
            }
            response.commit_time = Some(now);
        }
        let glyph = if fate == Fate::Ok {
            Glyph::Normal
        } else {
            Glyph::Indefinite
        };
        sim.event("writeapi", glyph, || {
            commit_line(fate, applied, now, &response)
        });
        if fate == Fate::Ok {
            Ok(response)
        } else {
            Err(Status::new(Code::DeadlineExceeded, None, "no response"))
        }
    }
}

/// A `BatchCommitWriteStreams` in a timeline: what the client saw, and the truth when it
/// saw no response.
fn commit_line(
    fate: Fate,
    applied: bool,
    now: u64,
    response: &BatchCommitWriteStreamsResponse,
) -> (String, String) {
    let outcome = if response.stream_errors.is_empty() && applied {
        format!("commit_time {now}")
    } else if applied {
        let errors: Vec<String> = response
            .stream_errors
            .iter()
            .map(|e| format!("{} {}", short(&e.entity), e.code.name()))
            .collect();
        format!("stream_errors [{}]", errors.join(", "))
    } else {
        "nothing committed".into()
    };
    if fate == Fate::Ok {
        (
            format!("BatchCommitWriteStreams -> {outcome}"),
            String::new(),
        )
    } else {
        (
            "BatchCommitWriteStreams -> DEADLINE_EXCEEDED".into(),
            format!("{}: {outcome}", fate.label()),
        )
    }
}
