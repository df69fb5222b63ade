//! Retries: on the default stream, at the same offset of a created stream, after a lost
//! response, after a lost request, and when the original request arrives late.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{Code, DEFAULT_STREAM, stream_name};

/// A on the default stream: its response lost, then sent again; then B with an offset,
/// delayed, and B again without one; then, on a fresh service, A delayed and sent again.
pub fn the_default_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let d = stream_name(super::TABLE, DEFAULT_STREAM);
    let fates = [Fate::AppliedResponseLost, Fate::Ok, Fate::AppliedLater];
    let mut default = Client::with_append_fates(&fates);
    let _ = default.append(&d, None, batch("A", 1000, 1003));
    let _ = default.append(&d, None, batch("A", 1000, 1003));
    let rows_after_retry = default.positions().len();
    let a_twice = ["P7:1000", "P7:1001", "P7:1002"].map(|p| default.copies_of(p) == 2);
    obs.ask("A goes to the default stream; its response is lost after the rows were appended, and the writer sends A there again. Is each of A's records in the table twice?", a_twice.iter().all(|twice| *twice));
    let with_offset = default.append(&d, Some(6), batch("B", 1003, 1005));
    let without = default.append(&d, None, batch("B", 1003, 1005));
    default.api.drain(&mut default.sim);
    obs.ask("The writer then sends B to the default stream with an offset, the number of rows it has counted there; that request is delayed, and the writer sends B again without an offset. Is B in the table twice?", default.copies_of("P7:1003") == 2);
    let mut late = Client::with_append_fates(&[Fate::AppliedLater]);
    let _ = late.append(&d, None, batch("A", 1000, 1003));
    let _ = late.append(&d, None, batch("A", 1000, 1003));
    late.api.drain(&mut late.sim);
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

/// A at offset 0 of a created stream, then A again at offset 0 and Z at offset 2.
pub fn a_retry_at_the_same_offset(obs: &mut Observation) {
    let mut committed = Client::new();
    let s = committed.create();
    committed
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    let retry = committed.append(&s, Some(0), batch("A", 1000, 1003));
    let impostor = committed.append(&s, Some(2), batch("Z", 9000, 9002));
    let already = |r: &Result<_, sim_writeapi::AppendError>| {
        r.as_ref()
            .is_err_and(|e| e.status.code == Code::AlreadyExists)
    };
    obs.ask("On s1, A is at offset 0. Batch Z, with rows of its own, is sent at offset 2. Does it get ALREADY_EXISTS, as a retry of A at offset 0 would?", already(&impostor) && already(&retry));
}

/// A at 0 and B at 3: the offset the next batch, C, takes. Each candidate is tried on
/// its own copy of the service.
pub fn offsets_count_rows(obs: &mut Observation) {
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
    let candidates = [("a", 2), ("b", 4), ("c", 3), ("d", 5)];
    let seen: Vec<(&str, String)> = (candidates.iter())
        .map(|(letter, offset)| {
            (
                *letter,
                format!("offset {offset}: {}", code(&c_at(*offset))),
            )
        })
        .collect();
    let accepted = (seen.iter())
        .find(|(_, answer)| answer.contains("OK"))
        .map_or("none", |(letter, _)| *letter);
    let answers: Vec<&str> = seen.iter().map(|(_, answer)| answer.as_str()).collect();
    let evidence = format!("C's append answered {}", answers.join("; "));
    obs.choose("A is at offset 0 of s1 and B right after it. At which offset does the next batch, C, succeed?", accepted, evidence);
}
