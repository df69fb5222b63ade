//! `AppendRows`: the fate of a request on its connection, what the client sees, the
//! pipelined requests behind a failed one, and what the server does with a request that
//! reached it (size, schema and row checks; offsets; the default stream).

use super::{InFlight, State, WriteApi, is_default, table_of};
use crate::status::not_found;
use crate::{
    AppendError, AppendResult, AppendRowsRequest, Code, Connection, MAX_REQUEST_BYTES, RowError,
    RowErrorCode, Status, StorageErrorCode, short,
};
use labkit::fault::{Fate, Glyph, Sim};

impl WriteApi {
    /// `AppendRows` on an open connection. The fate of the call comes from the `Sim`:
    /// a lost response is `DEADLINE_EXCEEDED` and breaks the connection.
    pub fn append_rows(
        &mut self,
        sim: &mut Sim,
        connection: &Connection,
        request: AppendRowsRequest,
    ) -> Result<AppendResult, AppendError> {
        self.settle(sim);
        if !self.connection_is_open(connection) {
            return Err(AppendError::of(Status::new(
                Code::Unavailable,
                None,
                "the connection is closed; reconnect",
            )));
        }
        let name = connection.write_stream.clone();
        let fate = match self.scripted.take() {
            Some(fate) => fate,
            None => sim.fate("writeapi:AppendRows", self.faults.append),
        };
        let outcome = match fate {
            Fate::Ok | Fate::AppliedResponseLost => Some(self.apply_append(&name, &request)),
            Fate::AppliedLater => {
                self.in_flight.push(InFlight {
                    write_stream: name.clone(),
                    request: request.clone(),
                });
                None
            }
            Fate::Rejected | Fate::NotApplied => None,
        };
        let seen = answer(fate, &outcome);
        if fate.is_indefinite() {
            // No response: the connection is gone; the client has to open a new one.
            self.disconnect(connection);
        }
        let glyph = match &seen {
            Ok(_) => Glyph::Normal,
            Err(e) if e.status.is_indefinite() => Glyph::Indefinite,
            Err(_) => Glyph::Error,
        };
        sim.event("writeapi", glyph, || {
            let client = format!(
                "AppendRows {} offset={} rows={} -> {}",
                short(&name),
                request.offset.map_or("none".into(), |o| o.to_string()),
                request.rows.len(),
                match &seen {
                    Ok(r) => format!("OK at {}", r.offset.map_or("end".into(), |o| o.to_string())),
                    Err(e) => e.to_string(),
                }
            );
            (client, truth(fate, &outcome))
        });
        seen
    }

    /// `AppendRows` with several requests in flight on one connection, answered in order.
    /// Each request meets the same fates as [`WriteApi::append_rows`] until one fails with
    /// an error response (`ALREADY_EXISTS`, `OUT_OF_RANGE`, `INVALID_ARGUMENT`, …): every
    /// request behind it is answered `ABORTED` and not applied.
    pub fn append_rows_pipelined(
        &mut self,
        sim: &mut Sim,
        connection: &Connection,
        requests: Vec<AppendRowsRequest>,
    ) -> Vec<Result<AppendResult, AppendError>> {
        let mut answers = Vec::with_capacity(requests.len());
        let mut failed = false;
        for request in requests {
            if failed {
                let rows = request.rows.len();
                sim.event("writeapi", Glyph::Error, || {
                    (
                        format!(
                            "AppendRows {} offset={} rows={rows} -> ABORTED",
                            short(&connection.write_stream),
                            request.offset.map_or("none".into(), |o| o.to_string()),
                        ),
                        "behind a failed request: not applied".into(),
                    )
                });
                answers.push(Err(AppendError::of(Status::new(
                    Code::Aborted,
                    None,
                    "request processing is aborted because of prior failures",
                ))));
                continue;
            }
            let answer = self.append_rows(sim, connection, request);
            failed = answer.as_ref().is_err_and(|e| !e.status.is_indefinite());
            answers.push(answer);
        }
        answers
    }

    /// What the server does with a request that reached it.
    pub(super) fn apply_append(
        &mut self,
        name: &str,
        request: &AppendRowsRequest,
    ) -> Result<AppendResult, AppendError> {
        check_request(request)?;
        if !is_default(name) {
            return self.append_to_stream(name, request);
        }
        if request.offset.is_some() {
            return Err(AppendError::of(Status::new(
                Code::InvalidArgument,
                None,
                "an offset is not allowed on the _default stream",
            )));
        }
        let table = table_of(name).unwrap_or_default().to_string();
        self.default_rows
            .entry(table)
            .or_default()
            .extend(request.rows.iter().cloned());
        Ok(AppendResult { offset: None })
    }

    /// Appends a checked request to an application-created stream, at its offset.
    fn append_to_stream(
        &mut self,
        name: &str,
        request: &AppendRowsRequest,
    ) -> Result<AppendResult, AppendError> {
        let stream = self
            .streams
            .get_mut(name)
            .ok_or_else(|| AppendError::of(not_found(name)))?;
        if stream.state != State::Open {
            return Err(AppendError::of(Status::new(
                Code::InvalidArgument,
                Some(StorageErrorCode::StreamFinalized),
                "the stream is finalized",
            )));
        }
        let end = stream.rows.len() as u64;
        match request.offset {
            Some(offset) if offset < end => Err(AppendError::of(Status::new(
                Code::AlreadyExists,
                Some(StorageErrorCode::OffsetAlreadyExists),
                format!("offset {offset} has already been written (end of stream {end})"),
            ))),
            Some(offset) if offset > end => Err(AppendError::of(Status::new(
                Code::OutOfRange,
                Some(StorageErrorCode::OffsetOutOfRange),
                format!("offset {offset} is beyond the end of stream {end}"),
            ))),
            _ => {
                stream.rows.extend(request.rows.iter().cloned());
                Ok(AppendResult { offset: Some(end) })
            }
        }
    }
}

/// What the client sees of an `AppendRows` whose fate is `fate` and whose request, if it
/// reached the server, had `outcome`.
fn answer(
    fate: Fate,
    outcome: &Option<Result<AppendResult, AppendError>>,
) -> Result<AppendResult, AppendError> {
    match fate {
        Fate::Ok => outcome.clone().expect("applied"),
        // An AppendRowsResponse whose `error` is set: the rows were not accepted, and
        // the connection stays open for the next request.
        Fate::Rejected => Err(AppendError::of(Status::new(
            Code::Internal,
            None,
            "server-side error; the rows were not accepted",
        ))),
        _ => Err(AppendError::of(Status::new(
            Code::DeadlineExceeded,
            None,
            "no response",
        ))),
    }
}

/// The truth column of an `AppendRows` the client did not see answered as it was.
fn truth(fate: Fate, outcome: &Option<Result<AppendResult, AppendError>>) -> String {
    match (outcome, fate) {
        (Some(Ok(r)), _) if fate != Fate::Ok => format!(
            "applied at {}, response lost",
            r.offset.map_or("end".into(), |o| o.to_string())
        ),
        (Some(Err(e)), _) if fate != Fate::Ok => format!("refused {e}, response lost"),
        (None, Fate::AppliedLater) => "still in flight: lands later".into(),
        (None, Fate::Rejected) => "refused: not applied".into(),
        (None, _) if fate != Fate::Ok => "not applied".into(),
        _ => String::new(),
    }
}

/// The checks of a request as a whole: its size, its schema, and its rows' values (a
/// corrupted row fails the whole request, with the reasons per row).
fn check_request(request: &AppendRowsRequest) -> Result<(), AppendError> {
    let bytes: u64 = request.rows.iter().map(|r| r.bytes).sum();
    if bytes >= MAX_REQUEST_BYTES {
        return Err(AppendError::of(Status::new(
            Code::InvalidArgument,
            None,
            format!("request of {bytes} bytes exceeds the AppendRows size limit"),
        )));
    }
    if let Some(field) = request.rows.iter().find_map(|r| r.unknown_field.as_ref()) {
        // The writer's schema has a field the table lacks: the request as a whole.
        return Err(AppendError::of(Status::new(
            Code::InvalidArgument,
            Some(StorageErrorCode::SchemaMismatchExtraFields),
            format!("the writer's schema has field {field}, which the table lacks"),
        )));
    }
    let row_errors: Vec<RowError> = request
        .rows
        .iter()
        .enumerate()
        .filter_map(|(index, row)| {
            row.invalid_value.as_ref().map(|value| RowError {
                index,
                code: RowErrorCode::FieldsError,
                message: format!("invalid value: {value}"),
            })
        })
        .collect();
    if row_errors.is_empty() {
        return Ok(());
    }
    // The request fails as a whole (INVALID_ARGUMENT: "a malformed request or data"); the
    // reasons are per row, in `row_errors`.
    Err(AppendError {
        status: Status::new(
            Code::InvalidArgument,
            None,
            "corrupted rows; no row of the request was appended",
        ),
        row_errors,
    })
}
