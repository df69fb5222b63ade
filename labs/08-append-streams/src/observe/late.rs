//! Requests whose outcome the writer never saw: a batch sent in place of a delayed one, a
//! delayed request and its retry, a lost request followed by a delayed one, a batch
//! rebuilt from a source that changed, and the opening's "skip ahead to offset 3" under
//! each fate.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{Code, Row};

/// The three fates a question gives an append whose writer saw DEADLINE_EXCEEDED.
const FATES: [(&str, Fate); 3] = [
    ("response lost", Fate::AppliedResponseLost),
    ("request lost", Fate::NotApplied),
    ("delayed", Fate::AppliedLater),
];

/// A on s1 meets `fates`, one attempt each, then attempts go through; returns the
/// answer to attempt `n` (counting from 1) of `n` attempts at offset 0.
fn attempts_at_zero(fates: &[Fate], n: usize) -> Result<sim_writeapi::AppendResult, String> {
    let mut client = Client::with_append_fates(fates);
    let s = client.create();
    let mut last = Err(String::new());
    for _ in 0..n {
        last = (client.append(&s, Some(0), batch("A", 1000, 1003))).map_err(|e| e.to_string());
    }
    last
}

/// A's first request is delayed; then a retry at offset 0. And two faults: the request
/// lost, the retry delayed, a third attempt.
pub fn a_delayed_request(summary: &mut Map<String, Value>) {
    let retry = attempts_at_zero(&[Fate::AppliedLater], 2);
    let third = attempts_at_zero(&[Fate::NotApplied, Fate::AppliedLater], 3);
    let shown = |r: &Result<_, String>| match r {
        Ok(_) => "OK".to_string(),
        Err(e) => e.clone(),
    };
    summary.insert("retry_of_a_delayed_request".into(), shown(&retry).into());
    summary.insert(
        "third_attempt_after_a_lost_and_a_delayed_request".into(),
        shown(&third).into(),
    );
}

/// A's first request to s1 is delayed; the writer gives A up and sends B at offset 0.
pub fn a_batch_in_place_of_a_delayed_one(obs: &mut Observation) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s = client.create();
    let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
    let _ = client.append(&s, Some(0), batch("B", 1003, 1005));
    obs.ask("On a fresh service, A's first request to s1 is delayed; the writer gives A up and sends B at offset 0 of s1. Is B in the table?", client.copies_of("P7:1003") > 0);
}

/// A's first request is delayed; the source has lost 1001 since, and the writer rebuilds
/// A from it and sends the rebuilt batch at offset 0, then B at the offset after it.
pub fn a_rebuilt_batch(obs: &mut Observation) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s = client.create();
    let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
    let rebuilt: Vec<Row> = (batch("A", 1000, 1003).into_iter())
        .filter(|row| row.source != "P7:1001")
        .collect();
    let after = rebuilt.len() as u64;
    let first = client.append(&s, Some(0), rebuilt);
    let b = client.append(&s, Some(after), batch("B", 1003, 1005));
    let letter = match b.as_ref().map_err(|e| e.status.code) {
        Ok(_) => "a",
        Err(Code::AlreadyExists) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    let evidence = format!(
        "the rebuilt A at 0 answered {}, B at {after} answered {}; the table holds {:?}",
        code(&first),
        code(&b),
        client.positions()
    );
    obs.choose("A's first request to s1 is delayed. The source has since lost P7:1001; the writer rebuilds A from it, sends the rebuilt batch at offset 0, then B right after the rebuilt batch. What does B's append answer?", letter, evidence);
}

/// The opening's "skip ahead to offset 3": A at 0 saw DEADLINE_EXCEEDED, and the writer
/// sends B at 3 without resending A. Which fates of A's request let B in?
pub fn skipping_ahead(obs: &mut Observation) {
    let accepted: Vec<&str> = (FATES.iter())
        .filter(|(_, fate)| {
            let mut client = Client::with_append_fates(&[*fate]);
            let s = client.create();
            let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
            client.append(&s, Some(3), batch("B", 1003, 1005)).is_ok()
        })
        .map(|(name, _)| *name)
        .collect();
    let letter = match accepted.as_slice() {
        ["response lost", "delayed"] => "a",
        ["response lost"] => "b",
        ["response lost", "request lost", "delayed"] => "c",
        [] => "d",
        _ => "none of these",
    };
    obs.choose("A's first request to s1 ends in DEADLINE_EXCEEDED, and the writer takes the opening's \"skip ahead to offset 3\": it sends B there and not A. Under which of the three fates is B accepted?", letter, format!("B at offset 3 was accepted after: {accepted:?}"));
}

/// A's first request to s1 is delayed; the writer creates s2 and writes A at 0 and B at
/// 3 there.
pub fn a_new_stream_after_a_delay(obs: &mut Observation) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = client.create();
    let a = client.append(&s2, Some(0), batch("A", 1000, 1003));
    let b = client.append(&s2, Some(3), batch("B", 1003, 1005));
    let rows = client.positions().len();
    let letter = match rows {
        5 => "a",
        8 => "b",
        10 => "c",
        _ => "none of these",
    };
    let evidence = format!(
        "A on s2 answered {}, B on s2 {}; the table holds {rows} rows",
        code(&a),
        code(&b)
    );
    obs.choose("A's first request to s1 is delayed. The writer creates s2 and appends A at offset 0 there, then B right after it. How many rows does a query return?", letter, evidence);
}
