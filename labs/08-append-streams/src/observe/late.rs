//! Requests whose outcome the writer never saw: a batch sent in place of a delayed one, a
//! delayed request and its retry, a lost request followed by a delayed one, a batch
//! rebuilt from a source that changed, the opening's "skip ahead to offset 3" under each
//! fate, and a new stream after a delay, with and without finalizing the old one.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{Code, Row};

/// The three fates an append whose writer saw DEADLINE_EXCEEDED may have met.
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
pub fn a_batch_in_place_of_a_delayed_one(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s = client.create();
    let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
    let b = client.append(&s, Some(0), batch("B", 1003, 1005));
    obs.ask(
        "A's first request to s1 is delayed; the writer gives A up and sends B at offset 0 instead. Is B accepted?",
        b.is_ok(),
    );
    summary.insert(
        "b_at_0_in_place_of_a_delayed_a".into(),
        format!("{}; the table holds {:?}", code(&b), client.positions()).into(),
    );
}

/// A's first request, whose second row is corrupted, is delayed; the source is corrected
/// since, and the writer rebuilds A from it and sends it at offset 0.
pub fn a_delayed_corrupted_request(obs: &mut Observation) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s = client.create();
    let mut a = batch("A", 1000, 1003);
    a[1].invalid_value = Some("amount -1 is out of range".into());
    let _ = client.append(&s, Some(0), a);
    let rebuilt = client.append(&s, Some(0), batch("A", 1000, 1003));
    obs.ask("A's second row carries a value its column cannot take, and A's first request to s1 is delayed. Meanwhile the source is corrected; the writer rebuilds A from it, three good rows, and sends it at offset 0. Is the rebuilt A accepted?", rebuilt.is_ok());
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
pub fn skipping_ahead(summary: &mut Map<String, Value>) {
    let accepted: Vec<&str> = (FATES.iter())
        .filter(|(_, fate)| {
            let mut client = Client::with_append_fates(&[*fate]);
            let s = client.create();
            let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
            client.append(&s, Some(3), batch("B", 1003, 1005)).is_ok()
        })
        .map(|(name, _)| *name)
        .collect();
    summary.insert("skip_ahead_accepted_after".into(), accepted.into());
}

/// A's first request to s1 is delayed; the writer creates s2 and writes A at 0 and B at
/// 3 there.
pub fn a_new_stream_after_a_delay(summary: &mut Map<String, Value>) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = client.create();
    let a = client.append(&s2, Some(0), batch("A", 1000, 1003));
    let b = client.append(&s2, Some(3), batch("B", 1003, 1005));
    summary.insert(
        "a_and_b_on_s2_after_a_delay_on_s1".into(),
        format!(
            "A on s2 answered {}, B on s2 {}; the table holds {} rows",
            code(&a),
            code(&b),
            client.positions().len()
        )
        .into(),
    );
}

/// A's first request to s1 is delayed; the writer finalizes s1 to fence it off, then
/// sends A at 0 of s2.
pub fn a_fence_after_a_delay(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut client = Client::with_append_fates(&[Fate::AppliedLater]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let row_count = client.api.finalize_write_stream(&mut client.sim, &s1);
    let s2 = client.create();
    let _ = client.append(&s2, Some(0), batch("A", 1000, 1003));
    obs.ask("A's first request to s1 is delayed. The writer calls FinalizeWriteStream on s1, so that nothing more can be appended there, then sends A at offset 0 of a new stream, s2. Is some record of A in the table twice?", client.copies_of("P7:1000") > 1);
    summary.insert(
        "finalize_of_s1_after_a_delay".into(),
        format!("{row_count:?}").into(),
    );
}
