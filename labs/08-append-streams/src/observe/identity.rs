//! Where the identity of a write lives: a new stream for B, two writers taking turns on
//! one stream or kept apart by an open connection, a request with a corrupted row, its
//! repair and the requests behind it, a hunted offset.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{AppendRowsRequest, Row};

/// A's response on s1 is lost; the writer leaves A there and sends B to a new stream.
pub fn a_new_stream_for_b(summary: &mut Map<String, Value>) {
    let mut client = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = client.create();
    let on_s2 = client.append(&s2, Some(0), batch("B", 1003, 1005));
    let once = client.positions().len() == 5 && client.most_copies() == 1;
    summary.insert(
        "b_on_a_new_stream".into(),
        format!("{}; every record once: {once}", code(&on_s2)).into(),
    );
}

/// Writers W1 and W2 take turns on s1, each with the listed `append`.
pub fn two_writers_taking_turns(obs: &mut Observation) {
    let mut client = Client::new();
    let s = client.create();
    let answers = [
        client.append(&s, Some(0), batch("A", 1000, 1003)),
        client.append(&s, Some(3), batch("B", 1003, 1005)),
        client.append(&s, Some(0), batch("A", 1000, 1003)),
    ]
    .map(|answer| code(&answer));
    let names: Vec<&str> = (answers.iter())
        .map(|c| {
            if c.starts_with("OK") {
                "OK"
            } else {
                c.as_str()
            }
        })
        .collect();
    let letter = match names.as_slice() {
        ["OK", "FAILED_PRECONDITION", "ALREADY_EXISTS"] => "a",
        ["OK", "OK", "FAILED_PRECONDITION"] => "b",
        ["OK", "OK", "ALREADY_EXISTS"] => "c",
        _ => "none of these",
    };
    obs.choose("Writers W1 and W2 take turns on s1, each with the listed append: W1 sends A at offset 0, W2 sends B right after A's rows, W1 sends A at offset 0 again. What do the three appends answer, in order?", letter, format!("the appends answered {answers:?}"));
    one_open_connection(obs);
}

/// W1 keeps one connection to s1 open for A and B; W2, between the two, sends two rows of
/// its own at offset 3 on a connection of its own.
fn one_open_connection(obs: &mut Observation) {
    let mut client = Client::new();
    let s = client.create();
    let w1 = (client.api.connect(&mut client.sim, &s)).expect("W1 connects");
    let a = AppendRowsRequest {
        offset: Some(0),
        rows: batch("A", 1000, 1003),
    };
    let _ = client.api.append_rows(&mut client.sim, &w1, a);
    if let Ok(w2) = client.api.connect(&mut client.sim, &s) {
        let x = AppendRowsRequest {
            offset: Some(3),
            rows: batch("X", 7000, 7002),
        };
        let _ = client.api.append_rows(&mut client.sim, &w2, x);
        client.api.disconnect(&w2);
    }
    let b = AppendRowsRequest {
        offset: Some(3),
        rows: batch("B", 1003, 1005),
    };
    let _ = client.api.append_rows(&mut client.sim, &w1, b);
    client.api.disconnect(&w1);
    obs.ask("W1 opens a connection to s1 and keeps it open while it sends A at offset 0 and then B right after A's rows on it. Between the two sends, W2 sends two rows of its own to s1, right after A's rows, on a connection of its own. Are W2's rows in the table?", client.copies_of("P7:7000") > 0);
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
    summary.insert(
        "repaired_a_then_b_at_3".into(),
        format!("{}, then {}", code(&repaired), code(&b_after_repair)).into(),
    );
    let b = client.append(&s, Some(3), batch("B", 1003, 1005));
    summary.insert(
        "b_at_3_after_a_was_refused".into(),
        format!("A answered {error}; B at offset 3 answered {}", code(&b)).into(),
    );
    summary.insert("row_errors".into(), error.into());
    behind_a_failed_request(obs, a);
}

/// A (with its bad row) and B without an offset sent on one connection before A's
/// answer arrives; then B sent again without an offset with the listed append.
fn behind_a_failed_request(obs: &mut Observation, a: Vec<Row>) {
    let mut client = Client::new();
    let s = client.create();
    let answers = client.append_pipelined(&s, vec![(Some(0), a), (None, batch("B", 1003, 1005))]);
    let again = client.append(&s, None, batch("B", 1003, 1005));
    let positions = client.positions();
    let b_rows = ["P7:1003", "P7:1004"];
    let copies_of_b = client.copies_of("P7:1003");
    let a_rows = positions.len() - copies_of_b * b_rows.len();
    let letter = match (a_rows, copies_of_b) {
        (0, 1) if positions[..2] == b_rows => "a",
        (0, 2) => "b",
        (2, 2) => "c",
        (2, 1) => "d",
        _ => "none of these",
    };
    let evidence = format!(
        "A answered {}; B behind it {}; B sent again {}; s1 holds {positions:?}",
        code(&answers[0]),
        code(&answers[1]),
        code(&again)
    );
    obs.choose("Variation: on one connection to s1, the writer sends A at offset 0 and, before A's answer arrives, B without an offset; A's second row carries a value its column cannot take. Then, leaving A for later, the writer sends B again without an offset, with the listed append. What does s1 hold?", letter, evidence);
}

/// A's first request is delayed. A writer without a journal believes A was not written
/// and walks the offset up until the service stops objecting; then it sends B at the
/// next offset.
pub fn hunting_for_an_offset(summary: &mut Map<String, Value>) {
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
    tries.push(format!(
        "copies of P7:1000: {}",
        hunter.copies_of("P7:1000")
    ));
    summary.insert("hunting_tries".into(), tries.join(", ").into());
}
