//! Retries: on the default stream, at the same offset of a created stream, after a lost
//! response, after a lost request, and when the original request arrives late.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{Code, DEFAULT_STREAM, stream_name};

/// Batch A twice on the default stream, then once with an offset.
pub fn the_default_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut default = Client::new();
    let d = stream_name(super::TABLE, DEFAULT_STREAM);
    default
        .append(&d, None, batch("A", 1000, 1003))
        .expect("first append");
    default
        .append(&d, None, batch("A", 1000, 1003))
        .expect("retry");
    let rows_after_retry = default.positions().len();
    obs.check(
        "a retry on the default stream appends the rows again",
        rows_after_retry == 6,
    );
    let with_offset = default.append(&d, Some(6), batch("A", 1000, 1003));
    obs.check(
        "the default stream accepts an explicit offset",
        with_offset.is_ok(),
    );
    let rows = rows_after_retry.into();
    summary.insert("default_stream_rows_after_retry".into(), rows);
}

/// A at offset 0 of a created stream, then A again, then other rows, at offset 0.
pub fn a_retry_at_the_same_offset(obs: &mut Observation) {
    let mut committed = Client::new();
    let s = committed.create();
    committed
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    committed.append(&s, Some(0), batch("A", 1000, 1003)).ok();
    obs.check(
        "a retry at the same offset appends the rows again",
        committed.positions().len() > 3,
    );
    let impostor = committed.append(&s, Some(0), batch("Z", 9000, 9001));
    let already = |r: &Result<_, sim_writeapi::AppendError>| {
        r.as_ref()
            .is_err_and(|e| e.status.code == Code::AlreadyExists)
    };
    obs.check(
        "ALREADY_EXISTS proves the offset holds the retried rows",
        !already(&impostor),
    );
}

/// B after A's three rows: each candidate offset is tried on its own copy of the
/// service, so that every one meets the same stream (A only).
pub fn offsets_count_rows(obs: &mut Observation) {
    let mut client = Client::new();
    let s = client.create();
    client
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    let b_at = |offset: u64| {
        client
            .copy()
            .append(&s, Some(offset), batch("B", 1003, 1005))
    };
    let candidates = [("a", 1), ("b", 2), ("c", 5), ("d", 3)];
    let seen: Vec<(&str, String)> = (candidates.iter())
        .map(|(letter, offset)| {
            (
                *letter,
                format!("offset {offset}: {}", code(&b_at(*offset))),
            )
        })
        .collect();
    let accepted = (seen.iter())
        .find(|(_, answer)| answer.contains("OK"))
        .map_or("none", |(letter, _)| *letter);
    let answers: Vec<&str> = seen.iter().map(|(_, answer)| answer.as_str()).collect();
    let evidence = format!("B's append answered {}", answers.join("; "));
    obs.answer("offset-of-b", accepted, evidence);
    let beyond = b_at(5);
    let letter = match &beyond {
        Ok(r) if r.offset == Some(5) => "a",
        Ok(_) => "b",
        Err(e) if e.status.code == Code::OutOfRange => "c",
        Err(e) if e.status.code == Code::AlreadyExists => "d",
        Err(_) => "none of these",
    };
    let rows = client.copy().positions().len();
    let evidence = format!(
        "B at offset 5 answered {}; the table holds {rows} rows",
        code(&beyond)
    );
    obs.answer("offset-beyond-the-end", letter, evidence);
}

/// Lost responses, a lost request, a request that lands late.
pub fn lost_and_late_requests(obs: &mut Observation) {
    let mut lost = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s = lost.create();
    let first = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let rows_after_loss = lost.positions().len();
    obs.check(
        "a lost response can hide an append that happened",
        first.as_ref().is_err_and(|e| e.status.is_indefinite()) && rows_after_loss == 3,
    );
    let retried = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let letter = match retried.as_ref().map_err(|e| e.status.code) {
        Err(Code::AlreadyExists) => "a",
        Ok(_) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    obs.answer(
        "retry-after-lost-response",
        letter,
        format!("the first append answered {}, the table then held {rows_after_loss} rows, the retry answered {}", code(&first), code(&retried)),
    );
    // Two faults at once: the response lost, then the retry lost before the service.
    let fates = [Fate::AppliedResponseLost, Fate::NotApplied];
    let mut twice = Client::with_append_fates(&fates);
    let s = twice.create();
    for _ in 0..3 {
        let _ = twice.append(&s, Some(0), batch("A", 1000, 1003));
    }
    obs.check(
        "a third attempt at the same offset keeps A once",
        twice.most_copies() == 1 && twice.positions().len() == 3,
    );
    // A crash after SENT, before the request left: the next process sends at offset 0.
    let mut unsent = Client::new();
    let s = unsent.create();
    let resent = unsent.append(&s, Some(0), batch("A", 1000, 1003));
    let letter = match resent.as_ref().map_err(|e| e.status.code) {
        Err(Code::AlreadyExists) => "a",
        Ok(_) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    let evidence = format!("the resend answered {}", code(&resent));
    obs.answer("resend-after-a-crash-before-the-append", letter, evidence);
    late_originals(obs);
}

/// The original request lands late, and the writer retried meanwhile: on a created stream
/// at the same offset, and on the default stream.
fn late_originals(obs: &mut Observation) {
    let copies = |stream: Option<&str>| {
        let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
        let s = match stream {
            Some(name) => name.to_string(),
            None => client.create(),
        };
        let offset = stream.is_none().then_some(0);
        let first = client.append(&s, offset, batch("A", 1000, 1003));
        let retry = client.append(&s, offset, batch("A", 1000, 1003));
        client.api.drain(&mut client.sim);
        (client.copies_of("P7:1000"), code(&first), code(&retry))
    };
    let created = copies(None);
    let default_name = stream_name(super::TABLE, DEFAULT_STREAM);
    let default = copies(Some(&default_name));
    obs.check(
        "a delayed original and its retry put A in the table twice",
        created.0 > 1,
    );
    let letter = match (default.0, created.0) {
        (1, 1) => "a",
        (2, 1) => "b",
        (2, 2) => "c",
        (1, 2) => "d",
        _ => "none of these",
    };
    obs.answer(
        "late-original-copies",
        letter,
        format!("default stream: {} copies (the first answered {}, the retry {}); created stream: {} copies (first {}, retry {})", default.0, default.1, default.2, created.0, created.1, created.2),
    );
}
