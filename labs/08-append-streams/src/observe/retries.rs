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
    obs.ask("The writer sends batch A (three rows) to the default stream twice. Does the table then hold six rows?", rows_after_retry == 6);
    let with_offset = default.append(&d, Some(6), batch("A", 1000, 1003));
    obs.ask(
        "Does the default stream accept an AppendRows request that carries an offset?",
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
    obs.ask("On a created stream, A is appended at offset 0 (OK), then sent at offset 0 again. Does the table gain rows?", committed.positions().len() > 3);
    let impostor = committed.append(&s, Some(0), batch("Z", 9000, 9001));
    let already = |r: &Result<_, sim_writeapi::AppendError>| {
        r.as_ref()
            .is_err_and(|e| e.status.code == Code::AlreadyExists)
    };
    obs.ask("Batch Z, with other rows, is sent at offset 0, which A occupies. Does it get the same ALREADY_EXISTS as A's retry?", already(&impostor));
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
    obs.choose("Batch A (three rows) was appended at offset 0 of stream s1. At which offset does batch B (two rows) succeed?", accepted, evidence);
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
    obs.choose(
        "A (three rows) is at offset 0 of s1. The writer sends B at offset 5. What happens?",
        letter,
        evidence,
    );
}

/// Lost responses, a lost request, a request that lands late.
pub fn lost_and_late_requests(obs: &mut Observation) {
    let mut lost = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s = lost.create();
    let first = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let rows_after_loss = lost.positions().len();
    obs.ask("In another run A's append is applied but its response lost: the writer sees DEADLINE_EXCEEDED. Are A's rows in the table?", first.as_ref().is_err_and(|e| e.status.is_indefinite()) && rows_after_loss == 3);
    let retried = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let letter = match retried.as_ref().map_err(|e| e.status.code) {
        Err(Code::AlreadyExists) => "a",
        Ok(_) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    obs.choose("A's response is lost after the service appended it. The writer retries A at offset 0 of the same stream. What does it see?",
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
    obs.ask("Two faults: A's append is applied and its response lost, then the retry at offset 0 is lost on the way; a third attempt at offset 0 gets through. Does the table hold A exactly once?", twice.most_copies() == 1 && twice.positions().len() == 3);
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
    obs.choose("A writer journals A as SENT at s1@0 and crashes before its AppendRows leaves. The next process sends A at offset 0 of s1. What does it get?", letter, evidence);
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
    obs.ask("A's request is delayed: the writer sees DEADLINE_EXCEEDED and retries at offset 0, and the delayed original arrives too. Does the table end with A twice?", created.0 > 1);
    let letter = match (default.0, created.0) {
        (1, 1) => "a",
        (2, 1) => "b",
        (2, 2) => "c",
        (1, 2) => "d",
        _ => "none of these",
    };
    obs.choose("The delayed original and the retry, once on the default stream (no offset) and once on a created stream (offset 0): how many copies of P7:1000 end up in each?",
        letter,
        format!("default stream: {} copies (the first answered {}, the retry {}); created stream: {} copies (first {}, retry {})", default.0, default.1, default.2, created.0, created.1, created.2),
    );
}
