//! Where the identity of a write lives: a new stream for B, two writers taking turns on
//! one stream, a request with a corrupted row and its repair, a hunted offset.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{Code, Row};

/// A's response on s1 is lost; the writer leaves A there and sends B to a new stream.
pub fn a_new_stream_for_b(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut client = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = client.create();
    let on_s2 = client.append(&s2, Some(0), batch("B", 1003, 1005));
    obs.ask("A's response on s1 is lost after its rows were appended; the writer leaves A there and sends B at offset 0 of a new stream, s2. Is each record of A and B in the table exactly once?", client.positions().len() == 5 && client.most_copies() == 1);
    summary.insert("b_on_a_new_stream".into(), code(&on_s2).into());
}

/// Writers W1 and W2 take turns on s1, each with the listed `append`.
pub fn two_writers_taking_turns(obs: &mut Observation) {
    let mut client = Client::new();
    let s = client.create();
    let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
    let w2 = client.append(&s, Some(3), batch("B", 1003, 1005));
    let _ = client.append(&s, Some(0), batch("A", 1000, 1003));
    obs.ask("Writers W1 and W2 take turns on s1, each with the listed append: W1 sends A at offset 0, W2 sends B right after A's rows, W1 sends A at offset 0 again. Is W2's append accepted?", w2.is_ok());
}

/// A with a corrupted second row; then B at 3 on one copy of the service, and the
/// repair (A without the bad row at 0, then B at 3 as planned) on another.
pub fn a_corrupted_row(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut client = Client::new();
    let s = client.create();
    let mut a = batch("A", 1000, 1003);
    a[1].invalid_value = Some("amount -1 is out of range".into());
    let rejected = client.append(&s, Some(0), a.clone());
    let error = rejected.err().map(|e| e.to_string()).unwrap_or_default();
    let mut repair = client.copy();
    let kept = vec![a[0].clone(), a[2].clone()];
    let repaired = repair.append(&s, Some(0), kept);
    let b_after_repair = repair.append(&s, Some(3), batch("B", 1003, 1005));
    obs.ask("A's second row carries a value its column cannot take. The writer sends A again at offset 0 without that row, then B at the offset planned for it before the repair. Is B accepted?", b_after_repair.is_ok());
    summary.insert(
        "repaired_a_then_b_at_3".into(),
        format!("{}, then {}", code(&repaired), code(&b_after_repair)).into(),
    );
    let b = client.append(&s, Some(3), batch("B", 1003, 1005));
    let letter = match b.as_ref().map_err(|e| e.status.code) {
        Ok(_) => "a",
        Err(Code::AlreadyExists) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    let evidence = format!("A answered {error}; B at offset 3 answered {}", code(&b));
    obs.choose("A's second row carries a value its column cannot take; the writer ignores the error and sends B to s1 at the offset planned for it. What does B get?", letter, evidence);
    summary.insert("row_errors".into(), error.into());
    behind_a_failed_request(obs, a);
}

/// A (with its bad row) and B sent on one connection before A's answer arrives.
fn behind_a_failed_request(obs: &mut Observation, a: Vec<Row>) {
    let mut client = Client::new();
    let s = client.create();
    let answers =
        client.append_pipelined(&s, vec![(Some(0), a), (Some(3), batch("B", 1003, 1005))]);
    let b = &answers[1];
    let letter = match b.as_ref().map_err(|e| e.status.code) {
        Ok(r) if r.offset == Some(3) => "a",
        Err(Code::OutOfRange) => "b",
        Ok(_) => "c",
        Err(Code::Aborted) if client.positions().is_empty() => "d",
        Err(_) => "none of these",
    };
    let evidence = format!("A answered {}; B answered {}", code(&answers[0]), code(b));
    obs.choose("Variation: on one connection to s1, the writer sends A at offset 0 and, before A's answer arrives, B at offset 3; A's second row carries a value its column cannot take. What does B get?", letter, evidence);
}

/// A's first request is delayed. A writer without a journal believes A was not written
/// and walks the offset up until the service stops objecting; then it sends B at the
/// next offset.
pub fn hunting_for_an_offset(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut hunter = Client::with_append_fates(&[Fate::AppliedLater]);
    let s = hunter.create();
    let _ = hunter.append(&s, Some(0), batch("A", 1000, 1003));
    let mut tries = Vec::new();
    let mut next = None;
    for offset in 0..=10 {
        let answer = hunter.append(&s, Some(offset), batch("A", 1000, 1003));
        tries.push(format!("{offset}: {}", code(&answer)));
        if answer.is_ok() {
            next = Some(offset + 3);
            break;
        }
    }
    if let Some(offset) = next {
        let b = hunter.append(&s, Some(offset), batch("B", 1003, 1005));
        tries.push(format!("B at {offset}: {}", code(&b)));
    }
    obs.ask("A's first request to s1 is delayed. A writer without a journal walks A's offset up from 0 until an append of A succeeds, then sends B at the next offset. Is some record of A in the table twice?", hunter.copies_of("P7:1000") > 1);
    summary.insert("hunting_tries".into(), tries.join(", ").into());
}
