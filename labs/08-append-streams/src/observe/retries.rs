//! Retries: on the default stream, at the same offset of a created stream, after a lost
//! response, after a lost request, and when the original request arrives late.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{DEFAULT_STREAM, stream_name};

/// A on the default stream: its response lost, then sent again. On a fresh service, A
/// once, then B with an offset, delayed, and B again without one; and A delayed, sent
/// again, then B.
pub fn the_default_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let d = stream_name(super::TABLE, DEFAULT_STREAM);
    let mut retried = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let _ = retried.append(&d, None, batch("A", 1000, 1003));
    let _ = retried.append(&d, None, batch("A", 1000, 1003));
    let rows_after_retry = retried.positions().len();
    let mut default = Client::with_append_fates(&[Fate::Ok, Fate::AppliedLater]);
    let _ = default.append(&d, None, batch("A", 1000, 1003));
    let counted = default.positions().len() as u64;
    let with_offset = default.append(&d, Some(counted), batch("B", 1003, 1005));
    let without = default.append(&d, None, batch("B", 1003, 1005));
    default.api.drain(&mut default.sim);
    let mut late = Client::with_append_fates(&[Fate::AppliedLater]);
    let _ = late.append(&d, None, batch("A", 1000, 1003));
    let _ = late.append(&d, None, batch("A", 1000, 1003));
    let _ = late.append(&d, None, batch("B", 1003, 1005));
    late.api.drain(&mut late.sim);
    let order = batches_in_table_order(&late.positions());
    let letter = match order.as_slice() {
        ["A", "B"] => "a",
        ["A", "A", "B"] => "b",
        ["A", "B", "A"] => "c",
        _ => "none of these",
    };
    obs.choose("A is sent to the default stream and its request is delayed; the writer, taking A for lost, sends A again, then B, with the listed append. What does the table hold, in order?", letter, format!("the table holds {:?}", late.positions()));
    summary.insert(
        "default_stream_rows_after_retry".into(),
        rows_after_retry.into(),
    );
    summary.insert(
        "default_stream_delayed_b_with_an_offset_then_without".into(),
        format!("{}, then {}", code(&with_offset), code(&without)).into(),
    );
    summary.insert(
        "default_stream_copies_of_a_after_a_delay_and_a_retry".into(),
        late.copies_of("P7:1000").into(),
    );
}

/// The batches a table holds, in table order: an A wherever a copy of A's rows starts
/// (P7:1000), a B wherever a copy of B's starts (P7:1003).
fn batches_in_table_order(positions: &[String]) -> Vec<&'static str> {
    let mut batches = Vec::new();
    for p in positions {
        match p.as_str() {
            "P7:1000" => batches.push("A"),
            "P7:1003" => batches.push("B"),
            _ => {}
        }
    }
    batches
}

/// A at offset 0 of a created stream, then A again at offset 0 and Z at offset 2.
pub fn a_retry_at_the_same_offset(summary: &mut Map<String, Value>) {
    let mut committed = Client::new();
    let s = committed.create();
    committed
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    let retry = committed.append(&s, Some(0), batch("A", 1000, 1003));
    let impostor = committed.append(&s, Some(2), batch("Z", 9000, 9002));
    summary.insert(
        "a_retried_at_0_and_z_at_2".into(),
        format!("{}, {}", code(&retry), code(&impostor)).into(),
    );
}

/// A at 0 and B at 3: the offset the next batch, C, takes. Each candidate is tried on
/// its own copy of the service.
pub fn offsets_count_rows(summary: &mut Map<String, Value>) {
    let mut client = Client::new();
    let s = client.create();
    client
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    client
        .append(&s, Some(3), batch("B", 1003, 1005))
        .expect("B at 3");
    let c_at = |offset: u64| {
        client
            .copy()
            .append(&s, Some(offset), batch("C", 1005, 1010))
    };
    let answers: Vec<String> = [2, 3, 4, 5]
        .iter()
        .map(|offset| format!("offset {offset}: {}", code(&c_at(*offset))))
        .collect();
    summary.insert("c_after_a_and_b".into(), answers.join("; ").into());
}
