//! Each test pins one documented behaviour of the Storage Write API. The comment above it
//! names the page and the sentence it follows.

use labkit::fault::{Fate, Sim};
use pretty_assertions::assert_eq;
use sim_writeapi::*;

const PROTO: &str = "https://github.com/googleapis/googleapis/blob/master/google/cloud/bigquery/storage/v1/storage.proto";

fn rows(batch: &str, positions: std::ops::Range<u64>) -> Vec<Row> {
    positions
        .map(|p| Row::new(format!("P7:{p}"), batch))
        .collect()
}

fn sources(api: &WriteApi, table: &str) -> Vec<String> {
    api.read_table(table)
        .into_iter()
        .map(|r| r.row.source)
        .collect()
}

fn committed_stream(api: &mut WriteApi, sim: &mut Sim) -> (String, Connection) {
    let stream = api
        .create_write_stream(sim, "t", StreamType::Committed)
        .unwrap();
    let connection = api.connect(sim, &stream.name).unwrap();
    (stream.name, connection)
}

fn append(
    api: &mut WriteApi,
    sim: &mut Sim,
    connection: &Connection,
    offset: Option<u64>,
    rows: Vec<Row>,
) -> Result<AppendResult, AppendError> {
    api.append_rows(sim, connection, AppendRowsRequest { offset, rows })
}

// https://cloud.google.com/bigquery/docs/write-api-streaming: "If your application only
// needs at-least-once semantics, then use the default stream." A retry of the same rows on
// the default stream is simply appended again.
#[test]
fn the_default_stream_is_at_least_once_a_retry_duplicates() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let connection = api
        .connect(&mut sim, &stream_name("t", DEFAULT_STREAM))
        .unwrap();
    for _ in 0..2 {
        let result = append(&mut api, &mut sim, &connection, None, rows("A", 1000..1003)).unwrap();
        assert_eq!(result.offset, None);
    }
    assert_eq!(sources(&api, "t").len(), 6);
}

// storage.proto, AppendRowsRequest.offset: "Specifying a value for this field is not
// allowed when calling AppendRows for the '_default' stream."
#[test]
fn the_default_stream_refuses_an_offset() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let connection = api
        .connect(&mut sim, &stream_name("t", DEFAULT_STREAM))
        .unwrap();
    let error = append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..1)).unwrap_err();
    assert_eq!(error.status.code, Code::InvalidArgument);
    assert!(sources(&api, "t").is_empty(), "{PROTO}");
}

// storage.proto, rpc CreateWriteStream: the default stream "can be used simultaneously by
// any number of clients"; write-api-best-practices: "You can open multiple connections on
// the default stream, but only a single active connection on application-created streams."
#[test]
fn one_active_connection_per_created_stream_many_on_the_default_stream() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let default = stream_name("t", DEFAULT_STREAM);
    assert!(api.connect(&mut sim, &default).is_ok());
    assert!(api.connect(&mut sim, &default).is_ok());
    let (name, first) = committed_stream(&mut api, &mut sim);
    let second = api.connect(&mut sim, &name).unwrap_err();
    assert_eq!(second.code, Code::FailedPrecondition);
    api.disconnect(&first);
    assert!(
        api.connect(&mut sim, &name).is_ok(),
        "a new connection after the old one closed"
    );
}

// write-api-streaming: "In committed type, data written to the stream is available for
// query as soon as the server acknowledges the write request."
// storage.proto, AppendRowsRequest.offset: "If present, the write is only performed if the
// next append offset is same as the provided value."
#[test]
fn a_committed_stream_appends_at_the_next_offset_and_rows_are_visible_at_once() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let a = append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1003),
    )
    .unwrap();
    assert_eq!(a.offset, Some(0));
    assert_eq!(sources(&api, "t"), ["P7:1000", "P7:1001", "P7:1002"]);
}

// storage.proto, rpc AppendRows: "The server returns OUT_OF_RANGE in AppendRowsResponse if
// an attempt is made to append to an offset beyond the current end of the stream or
// ALREADY_EXISTS if user provides an offset that has already been written to."
#[test]
fn an_offset_already_written_is_already_exists_and_beyond_the_end_is_out_of_range() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1003),
    )
    .unwrap();
    let again = append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1003),
    )
    .unwrap_err();
    assert_eq!(
        (again.status.code, again.status.storage),
        (
            Code::AlreadyExists,
            Some(StorageErrorCode::OffsetAlreadyExists)
        )
    );
    let beyond = append(&mut api, &mut sim, &connection, Some(7), rows("X", 0..1)).unwrap_err();
    assert_eq!(
        (beyond.status.code, beyond.status.storage),
        (Code::OutOfRange, Some(StorageErrorCode::OffsetOutOfRange))
    );
    assert_eq!(sources(&api, "t").len(), 3, "neither error appended a row");
}

// The seed, after Google's committed-stream sample which advances the offset by the rows of
// each batch: "Offsets count rows." storage.proto AppendResult.offset: "The row offset at
// which the last append occurred."
#[test]
fn offsets_count_rows_not_requests() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1003),
    )
    .unwrap();
    // Two requests were sent, but the second one belongs at row 3, not at offset 1 or 2.
    let wrong = append(
        &mut api,
        &mut sim,
        &connection,
        Some(1),
        rows("B", 1003..1005),
    )
    .unwrap_err();
    assert_eq!(wrong.status.code, Code::AlreadyExists);
    let b = append(
        &mut api,
        &mut sim,
        &connection,
        Some(3),
        rows("B", 1003..1005),
    )
    .unwrap();
    assert_eq!(b.offset, Some(3));
    let next = append(&mut api, &mut sim, &connection, Some(6), rows("C", 0..1)).unwrap_err();
    assert_eq!(
        next.status.code,
        Code::OutOfRange,
        "the end is 5 rows, not 2 requests"
    );
}

// ALREADY_EXISTS compares positions, not payloads: storage.proto says it "Happens when an
// append specified an offset, and the backend already has received data at this offset";
// nothing says the data is compared. Different rows at an occupied offset get the same code.
#[test]
fn already_exists_does_not_compare_the_payload() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1003),
    )
    .unwrap();
    let other = append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("Z", 5000..5001),
    )
    .unwrap_err();
    assert_eq!(other.status.code, Code::AlreadyExists);
}

// https://cloud.google.com/bigquery/docs/write-api (overview): the API "never writes two
// messages that have the same offset within a stream, if the client provides stream
// offsets" (the seed says it shorter: "Exactly-once semantics are within a stream"). A new
// stream S2 starts at offset 0, so replaying the same rows there is a new, valid write.
#[test]
fn a_new_stream_at_offset_zero_accepts_the_same_rows_again() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, s1) = committed_stream(&mut api, &mut sim);
    append(&mut api, &mut sim, &s1, Some(0), rows("A", 1000..1003)).unwrap();
    let (_, s2) = committed_stream(&mut api, &mut sim);
    let replay = append(&mut api, &mut sim, &s2, Some(0), rows("A", 1000..1003)).unwrap();
    assert_eq!(replay.offset, Some(0));
    assert_eq!(
        sources(&api, "t").len(),
        6,
        "both streams are visible: duplicates"
    );
}

// storage.proto, AppendRowsResponse.row_errors: "If a request failed due to corrupted rows,
// no rows in the batch will be appended. The API will return row level error info, so that
// the caller can remove the bad rows and retry the request."
// RowError: "Index of the malformed row in the request." / "Structured error reason for a
// row error." RowErrorCode FIELDS_ERROR: "One or more fields in the row has errors."
// AppendRowsResponse.error: "INVALID_ARGUMENT: Indicates a malformed request or data."
// Java client, Exceptions.AppendSerializationError
// (https://cloud.google.com/java/docs/reference/google-cloud-bigquerystorage/latest/com.google.cloud.bigquery.storage.v1.Exceptions.AppendSerializationError):
// "It can also be thrown by the server in case rows contains invalid data. The exception
// contains a Map of indexes of faulty rows and the corresponding error message." Row errors
// come from the values a row carries (out of range, a required field left empty).
#[test]
fn corrupted_rows_append_none_of_the_request_and_report_row_errors() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let mut batch = rows("B", 1003..1006);
    batch[1].invalid_value = Some("amount -5 is out of range".into());
    batch[2].invalid_value = Some("required field currency is missing".into());
    let error = append(&mut api, &mut sim, &connection, Some(0), batch).unwrap_err();
    assert_eq!(
        (error.status.code, error.status.storage),
        (Code::InvalidArgument, None)
    );
    assert_eq!(
        error
            .row_errors
            .iter()
            .map(|e| (e.index, e.code))
            .collect::<Vec<_>>(),
        [
            (1, RowErrorCode::FieldsError),
            (2, RowErrorCode::FieldsError)
        ]
    );
    assert!(error.row_errors[0].message.contains("amount"));
    assert!(
        sources(&api, "t").is_empty(),
        "the good row 0 was not appended either"
    );
    // The caller removes the bad row and retries: the repaired request is appended.
    let repaired = append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("B2", 1003..1004),
    )
    .unwrap();
    assert_eq!(repaired.offset, Some(0));
}

// AppendRowsRequest in the published RPC reference
// (https://cloud.google.com/bigquery/docs/reference/storage/rpc/google.cloud.bigquery.storage.v1):
// "The size of a single AppendRowsRequest must be less than 20 MB in size. Requests larger
// than this return an error, typically INVALID_ARGUMENT." The 10 MB figure is in earlier
// revisions of storage.proto and in the client-library references generated from them
// (e.g. the Python client's `AppendRowsRequest`).
// storage.proto, StorageError.StorageErrorCode SCHEMA_MISMATCH_EXTRA_FIELDS: "There is a
// schema mismatch and it is caused by user schema has extra field than bigquery schema."
// AppendRowsRequest.ProtoData.writer_schema: "Proto schema used to serialize the data. This
// value only needs to be provided as part of the first request on a gRPC network
// connection". Java client, Exceptions.toStorageException: `case
// SCHEMA_MISMATCH_EXTRA_FIELDS: return new SchemaMismatchedException(...)`. A field the table
// lacks is the writer schema's mismatch, reported for the request, not a row error.
#[test]
fn a_field_the_table_lacks_is_a_schema_mismatch_of_the_request() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let mut batch = rows("B", 1003..1006);
    batch[1].unknown_field = Some("discount".into());
    let error = append(&mut api, &mut sim, &connection, Some(0), batch).unwrap_err();
    assert_eq!(
        (error.status.code, error.status.storage),
        (
            Code::InvalidArgument,
            Some(StorageErrorCode::SchemaMismatchExtraFields)
        )
    );
    assert!(error.row_errors.is_empty(), "no row is to blame");
    assert!(sources(&api, "t").is_empty(), "nothing appended");
}

// storage.proto, AppendRowsRequest: "Due to the nature of AppendRows being a bidirectional
// streaming RPC, ..."; AppendRowsResponse.error: "ABORTED: Request processing is aborted
// because of prior failures. The request can be retried if previous failure is addressed."
// So requests sent behind a failed one on the same connection come back ABORTED and are not
// appended; once the failure is addressed, the same requests can be sent again.
#[test]
fn requests_in_flight_behind_a_failed_one_are_aborted() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let mut a = rows("A", 1000..1003);
    a[1].invalid_value = Some("amount -5 is out of range".into());
    let requests = vec![
        AppendRowsRequest {
            offset: Some(0),
            rows: a,
        },
        AppendRowsRequest {
            offset: Some(3),
            rows: rows("B", 1003..1005),
        },
        AppendRowsRequest {
            offset: Some(5),
            rows: rows("C", 1005..1006),
        },
    ];
    let answers = api.append_rows_pipelined(&mut sim, &connection, requests);
    let codes: Vec<Option<Code>> = answers
        .iter()
        .map(|a| a.as_ref().err().map(|e| e.status.code))
        .collect();
    assert_eq!(
        codes,
        [
            Some(Code::InvalidArgument),
            Some(Code::Aborted),
            Some(Code::Aborted)
        ]
    );
    assert!(
        sources(&api, "t").is_empty(),
        "nothing behind the failure landed"
    );
    let retried = append(
        &mut api,
        &mut sim,
        &connection,
        Some(0),
        rows("A", 1000..1002),
    );
    assert_eq!(
        retried.unwrap().offset,
        Some(0),
        "the connection stays usable"
    );
}

#[test]
fn a_request_over_the_size_limit_is_rejected_and_appends_nothing() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let mut big = rows("A", 0..2);
    big[0].bytes = MAX_REQUEST_BYTES;
    let error = append(&mut api, &mut sim, &connection, Some(0), big).unwrap_err();
    assert_eq!(error.status.code, Code::InvalidArgument);
    assert!(sources(&api, "t").is_empty());
}

// storage.proto, rpc FinalizeWriteStream: "Finalize a write stream so that no new data can
// be appended to the stream. Finalize is not supported on the '_default' stream."
#[test]
fn after_finalize_appends_are_refused_and_the_default_stream_cannot_be_finalized() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (name, connection) = committed_stream(&mut api, &mut sim);
    append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..3)).unwrap();
    assert_eq!(
        api.finalize_write_stream(&mut sim, &name),
        Ok(3),
        "row_count"
    );
    let error = append(&mut api, &mut sim, &connection, Some(3), rows("B", 3..4)).unwrap_err();
    assert_eq!(
        error.status.storage,
        Some(StorageErrorCode::StreamFinalized)
    );
    let default = api.finalize_write_stream(&mut sim, &stream_name("t", DEFAULT_STREAM));
    assert_eq!(default.unwrap_err().code, Code::InvalidArgument);
}

fn pending_with(api: &mut WriteApi, sim: &mut Sim, batch: &str, n: u64) -> String {
    let stream = api
        .create_write_stream(sim, "t", StreamType::Pending)
        .unwrap();
    let connection = api.connect(sim, &stream.name).unwrap();
    append(api, sim, &connection, Some(0), rows(batch, 0..n)).unwrap();
    api.disconnect(&connection);
    stream.name
}

// storage.proto, rpc AppendRows: "For PENDING streams, data is not made visible until the
// stream itself is finalized (via the FinalizeWriteStream rpc), and the stream is
// explicitly committed via the BatchCommitWriteStreams rpc." write-api-batch: "Until you
// commit a stream, the data is pending and not visible to reads."
#[test]
fn pending_rows_are_invisible_until_the_batch_commit_and_finalize_publishes_nothing() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let name = pending_with(&mut api, &mut sim, "W1", 2);
    assert!(sources(&api, "t").is_empty(), "appended, not visible");
    api.finalize_write_stream(&mut sim, &name).unwrap();
    assert!(
        sources(&api, "t").is_empty(),
        "finalized, still not visible"
    );
    let response = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap();
    assert!(response.stream_errors.is_empty());
    assert_eq!(sources(&api, "t").len(), 2);
    // stream.proto: "If the stream is of PENDING type, empty commit_time means it is not
    // committed."
    assert_eq!(
        api.get_write_stream(&name).unwrap().commit_time,
        response.commit_time
    );
}

// storage.proto, BatchCommitWriteStreamsResponse.stream_errors: "If non empty, certain
// streams have errors and ZERO stream is committed due to atomicity guarantee."
// commit_time: "This field will only exist when there are no stream errors."
// rpc BatchCommitWriteStreams: "Streams must be finalized before commit".
#[test]
fn a_commit_with_one_bad_stream_commits_none_and_has_no_commit_time() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let good = pending_with(&mut api, &mut sim, "W1", 2);
    let not_finalized = pending_with(&mut api, &mut sim, "W2", 1);
    api.finalize_write_stream(&mut sim, &good).unwrap();
    let response = api
        .batch_commit_write_streams(&mut sim, "t", &[good.clone(), not_finalized.clone()])
        .unwrap();
    assert_eq!(response.commit_time, None);
    let errors: Vec<(String, StorageErrorCode)> = response
        .stream_errors
        .iter()
        .map(|e| (e.entity.clone(), e.code))
        .collect();
    assert_eq!(
        errors,
        [(not_finalized, StorageErrorCode::InvalidStreamState)]
    );
    assert!(
        sources(&api, "t").is_empty(),
        "the good stream was not committed either"
    );
    assert_eq!(api.get_write_stream(&good).unwrap().commit_time, None);
}

// storage.proto, rpc BatchCommitWriteStreams: "Atomically commits a group of PENDING streams
// that belong to the same parent table. ... cannot be committed multiple times."
// StorageErrorCode: STREAM_ALREADY_COMMITTED, INVALID_STREAM_TYPE ("you try to commit a
// stream that is not pending").
#[test]
fn a_stream_commits_once_only_pending_streams_of_the_parent_table() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t", "u"]);
    let name = pending_with(&mut api, &mut sim, "W1", 2);
    api.finalize_write_stream(&mut sim, &name).unwrap();
    let first = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap();
    assert!(first.commit_time.is_some());
    let again = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap();
    assert_eq!(
        again.stream_errors[0].code,
        StorageErrorCode::StreamAlreadyCommitted
    );
    assert_eq!(again.commit_time, None);
    let (committed, _) = committed_stream(&mut api, &mut sim);
    let wrong_type = api
        .batch_commit_write_streams(&mut sim, "t", &[committed])
        .unwrap();
    assert_eq!(
        wrong_type.stream_errors[0].code,
        StorageErrorCode::InvalidStreamType
    );
    let other = pending_with(&mut api, &mut sim, "W9", 1);
    api.finalize_write_stream(&mut sim, &other).unwrap();
    let wrong_table = api
        .batch_commit_write_streams(&mut sim, "u", &[other])
        .unwrap();
    assert_eq!(
        wrong_table.stream_errors[0].code,
        StorageErrorCode::StreamNotFound
    );
    assert_eq!(sources(&api, "t").len(), 2, "rows committed exactly once");
}

// https://cloud.google.com/bigquery/docs/write-api-batch: "After the stream is finalized
// and before it is committed, the data can remain in the buffer for up to 4 hours. Pending
// streams must be committed within 24 hours."
#[test]
fn pending_streams_expire_on_the_logical_clock() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let late_after_finalize = pending_with(&mut api, &mut sim, "W1", 1);
    api.finalize_write_stream(&mut sim, &late_after_finalize)
        .unwrap();
    sim.advance(FINALIZED_BUFFER_LIMIT + 1);
    let response = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&late_after_finalize))
        .unwrap();
    assert_eq!(
        response.stream_errors[0].code,
        StorageErrorCode::InvalidStreamState
    );

    let old = pending_with(&mut api, &mut sim, "W2", 1);
    sim.advance(PENDING_COMMIT_LIMIT);
    api.finalize_write_stream(&mut sim, &old).unwrap();
    sim.advance(1);
    let response = api
        .batch_commit_write_streams(&mut sim, "t", &[old])
        .unwrap();
    assert_eq!(
        response.stream_errors[0].code,
        StorageErrorCode::InvalidStreamState
    );

    let in_time = pending_with(&mut api, &mut sim, "W3", 1);
    api.finalize_write_stream(&mut sim, &in_time).unwrap();
    sim.advance(FINALIZED_BUFFER_LIMIT - 10);
    let response = api
        .batch_commit_write_streams(&mut sim, "t", &[in_time])
        .unwrap();
    assert!(response.commit_time.is_some());
}

// write-api-batch: "A stream can only be committed once, so if the commit operation fails,
// it is safe to retry it." A lost commit response followed by a retry: the retry reports
// STREAM_ALREADY_COMMITTED, and GetWriteStream shows the commit time. The product pages do
// not say what the retry answers; the code comes from storage.proto's StorageErrorCode
// ("STREAM_ALREADY_COMMITTED = 2; Stream is already committed."), so this answer is the
// simulator's reading of the proto (a simplification the chapter lists).
#[test]
fn a_lost_commit_response_then_a_retry_reports_already_committed() {
    let mut api = WriteApi::new(&["t"]).with_faults(Faults {
        commit: &[Fate::Ok, Fate::AppliedResponseLost],
        ..Faults::NONE
    });
    // The path: AppendRows and FinalizeWriteStream answer (choices 0 and 1), the first
    // commit loses its response (choice 2 = option 1), the retry answers.
    let mut sim = Sim::replaying(&[0, 0, 1]);
    let name = pending_with(&mut api, &mut sim, "W1", 2);
    api.finalize_write_stream(&mut sim, &name).unwrap();
    let lost = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap_err();
    assert!(lost.is_indefinite());
    let retry = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap();
    assert_eq!(
        retry.stream_errors[0].code,
        StorageErrorCode::StreamAlreadyCommitted
    );
    assert!(api.get_write_stream(&name).unwrap().commit_time.is_some());
    assert_eq!(sources(&api, "t").len(), 2);
}

// The fault core's uncertain append: storage.proto says an error response "indicates rows
// were not accepted", but a lost response is no response at all. Applied-and-lost,
// not-applied and applied-later all look like DEADLINE_EXCEEDED to the caller; a retry at
// the same offset tells them apart (OK or ALREADY_EXISTS) without duplicating rows.
#[test]
fn an_uncertain_append_retried_at_the_same_offset_never_duplicates() {
    for (path, truth) in [
        (1usize, "applied, lost"),
        (2, "not applied"),
        (3, "applied later"),
    ] {
        let mut api = WriteApi::new(&["t"]).with_faults(Faults {
            append: &[
                Fate::Ok,
                Fate::AppliedResponseLost,
                Fate::NotApplied,
                Fate::AppliedLater,
            ],
            ..Faults::NONE
        });
        let mut sim = Sim::replaying(&[path]);
        let (name, connection) = committed_stream(&mut api, &mut sim);
        let first = append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..3)).unwrap_err();
        assert_eq!(first.status.code, Code::DeadlineExceeded, "{truth}");
        let reconnected = api
            .connect(&mut sim, &name)
            .expect("the broken connection was closed");
        let retry = append(&mut api, &mut sim, &reconnected, Some(0), rows("A", 0..3));
        match truth {
            "not applied" => assert_eq!(retry.unwrap().offset, Some(0)),
            _ => assert_eq!(
                retry.unwrap_err().status.code,
                Code::AlreadyExists,
                "{truth}"
            ),
        }
        api.drain(&mut sim);
        assert_eq!(sources(&api, "t").len(), 3, "{truth}");
        let timeline = labkit::fault::render_timeline(sim.events());
        assert!(timeline.contains("DEADLINE_EXCEEDED"), "{timeline}");
    }
}

// stream.proto, WriteStream.commit_time: "If a stream is of COMMITTED type, then it will
// have a commit_time same as create_time."
#[test]
fn a_committed_stream_has_its_create_time_as_commit_time() {
    let mut sim = Sim::fault_free();
    sim.advance(42);
    let mut api = WriteApi::new(&["t"]);
    let stream = api
        .create_write_stream(&mut sim, "t", StreamType::Committed)
        .unwrap();
    assert_eq!(stream.commit_time, Some(stream.create_time));
    let pending = api
        .create_write_stream(&mut sim, "t", StreamType::Pending)
        .unwrap();
    assert_eq!(pending.commit_time, None);
}

// A simplification, not a documented behaviour: FinalizeWriteStream on a stream that is
// already finalized answers its row_count again. storage.proto says only "Finalize a write
// stream so that no new data can be appended to the stream" and FinalizeWriteStreamResponse
// "Number of rows in the finalized stream"; neither it nor the product pages say what a
// second call answers. The chapter lists this among its simplifications.
#[test]
fn a_second_finalize_answers_the_same_row_count() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let name = pending_with(&mut api, &mut sim, "W1", 2);
    assert_eq!(api.finalize_write_stream(&mut sim, &name), Ok(2));
    assert_eq!(api.finalize_write_stream(&mut sim, &name), Ok(2));
    assert!(sources(&api, "t").is_empty(), "finalize publishes nothing");
}

// storage.proto, AppendRowsResponse.error: "Error returned when problems were encountered.
// If present, it indicates rows were not accepted into the system. Users can retry or
// continue with other append requests within the same connection." ... "INTERNAL: Indicates
// server side error(s) that can be retried." A refused append (the fault core's definite
// `Fate::Rejected`) is such a response: nothing appended, the same connection retries.
#[test]
fn a_refused_append_accepts_no_row_and_keeps_the_connection() {
    let mut api = WriteApi::new(&["t"]).with_faults(Faults {
        append: &[Fate::Ok, Fate::Rejected],
        ..Faults::NONE
    });
    let mut sim = Sim::replaying(&[1]);
    let (_, connection) = committed_stream(&mut api, &mut sim);
    let refused = append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..3)).unwrap_err();
    assert_eq!(refused.status.code, Code::Internal);
    assert!(
        !refused.status.is_indefinite(),
        "a response arrived: definite"
    );
    assert!(sources(&api, "t").is_empty());
    let retry = append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..3)).unwrap();
    assert_eq!(
        retry.offset,
        Some(0),
        "the same connection, the same offset"
    );
    assert_eq!(sources(&api, "t").len(), 3);
}

// A simplification, not a documented behaviour: BUFFERED streams (storage.proto: "data is
// made visible via a subsequent FlushRows rpc") are not modelled, and the simulator says
// so instead of pretending.
#[test]
fn buffered_streams_are_refused_by_this_simulator() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let refused = api
        .create_write_stream(&mut sim, "t", StreamType::Buffered)
        .unwrap_err();
    assert_eq!(refused.code, Code::InvalidArgument);
}

// A scripted fault (the seed's T4) bypasses the fault core's choice: the next AppendRows
// is applied and its response lost, whatever the schedule says; later appends choose again.
#[test]
fn a_scripted_lost_response_applies_the_rows_and_answers_deadline_exceeded() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let (name, connection) = committed_stream(&mut api, &mut sim);
    api.script_next_append(Fate::AppliedResponseLost);
    let lost = append(&mut api, &mut sim, &connection, Some(0), rows("A", 0..3)).unwrap_err();
    assert_eq!(lost.status.code, Code::DeadlineExceeded);
    assert_eq!(sources(&api, "t").len(), 3);
    let again = api.connect(&mut sim, &name).unwrap();
    let next = append(&mut api, &mut sim, &again, Some(3), rows("B", 3..5)).unwrap();
    assert_eq!(next.offset, Some(3));
}

// The scripted commit fault used by lab 09's headline test: applied, response lost.
#[test]
fn a_scripted_lost_commit_response_commits_and_answers_deadline_exceeded() {
    let mut sim = Sim::fault_free();
    let mut api = WriteApi::new(&["t"]);
    let name = pending_with(&mut api, &mut sim, "W1", 2);
    api.finalize_write_stream(&mut sim, &name).unwrap();
    api.script_next_commit(Fate::AppliedResponseLost);
    let lost = api
        .batch_commit_write_streams(&mut sim, "t", std::slice::from_ref(&name))
        .unwrap_err();
    assert!(lost.is_indefinite());
    assert!(api.get_write_stream(&name).unwrap().commit_time.is_some());
    assert_eq!(sources(&api, "t").len(), 2);
}
