//! Where the identity of a write lives: a new stream, a hunted offset, a second writer on
//! the same stream, a request with a corrupted row and its repair.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};

/// A's response on the first stream is lost; the writer replays A on a new stream.
pub fn a_new_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut restart = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s1 = restart.create();
    let _ = restart.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = restart.create();
    let on_s2 = restart.append(&s2, Some(0), batch("A", 1000, 1003));
    obs.ask("After A's lost response on s1, the writer creates stream s2 and appends A at offset 0 there. Is it accepted?", on_s2.is_ok());
    let rows = restart.positions().len();
    let letter = match rows {
        3 => "a",
        0 => "b",
        9 => "c",
        6 => "d",
        _ => "none of these",
    };
    let evidence = format!(
        "after A on s1 (response lost) and A again on s2 at offset 0 the table holds {rows} rows"
    );
    obs.choose("A's response on s1 is lost (it was appended). The writer creates s2 and appends A at offset 0 there. How many rows does the table hold?", letter, evidence);
    summary.insert("rows_after_s2_replay".into(), rows.into());
}

/// A writer without a journal believes A was not written and walks the offset up until
/// the service stops objecting.
pub fn hunting_for_an_offset(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut hunter = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s = hunter.create();
    let _ = hunter.append(&s, Some(0), batch("A", 1000, 1003));
    let mut tries = Vec::new();
    for offset in 0..=10 {
        let answer = hunter.append(&s, Some(offset), batch("A", 1000, 1003));
        tries.push(format!("{offset}: {}", code(&answer)));
        if answer.is_ok() {
            break;
        }
    }
    obs.ask("After A's lost response, a writer without a journal walks the offset up from 0 until an append of A succeeds. Is some record of A then in the table twice?", hunter.most_copies() >= 2);
    summary.insert("hunting_tries".into(), tries.join(", ").into());
}

/// Writer W1 holds its connection to the stream open; writer W2 tries to append B.
pub fn a_second_writer(obs: &mut Observation) {
    let mut client = Client::new();
    let s = client.create();
    let first = client
        .api
        .connect(&mut client.sim, &s)
        .expect("W1 connects");
    let second = client.append_or_refuse(&s, 0, batch("B", 1003, 1005));
    client.api.disconnect(&first);
    obs.ask("Writer W1 keeps a connection to the stream open; writer W2 opens another to append B. Is B appended?", second);
}

/// B with a corrupted second row at offset 3; then B without it.
pub fn a_corrupted_row(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut schema = Client::new();
    let s = schema.create();
    schema
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    let mut b = batch("B", 1003, 1005);
    b[1].unknown_field = Some("discount_code".into());
    let rejected = schema.append(&s, Some(3), b.clone());
    obs.ask(
        "B's second row has a field the table does not have. Does B's first row reach the table?",
        schema.copies_of("P7:1003") > 0,
    );
    let error = rejected.err().map(|e| e.to_string()).unwrap_or_default();
    summary.insert("row_errors".into(), error.into());
    let repaired = schema.append(&s, Some(3), vec![b[0].clone()]);
    obs.ask(
        "The writer then sends B without its bad row, at offset 3 as before. Is it accepted there?",
        repaired.is_ok_and(|r| r.offset == Some(3)),
    );
}

impl Client {
    /// An append by another writer that opens its own connection: accepted or not.
    fn append_or_refuse(
        &mut self,
        stream: &str,
        offset: u64,
        rows: Vec<sim_writeapi::Row>,
    ) -> bool {
        match self.api.connect(&mut self.sim, stream) {
            Ok(connection) => {
                let request = sim_writeapi::AppendRowsRequest {
                    offset: Some(offset),
                    rows,
                };
                let response = self.api.append_rows(&mut self.sim, &connection, request);
                self.api.disconnect(&connection);
                response.is_ok()
            }
            Err(_) => false,
        }
    }
}
