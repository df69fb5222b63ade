//! The observe phase: what the simulated Storage Write API does with retries, offsets, a
//! new stream and corrupted rows. Every verdict below is computed from what the service
//! just answered and what a query of the table then shows; the answer keys live in
//! `lab.toml`.

use labkit::fault::{Fate, Sim};
use labkit::{Observation, Report};
use sim_writeapi::{
    AppendError, AppendResult, AppendRowsRequest, Code, DEFAULT_STREAM, Faults, Row, StreamType,
    WriteApi, stream_name,
};

const TABLE: &str = "ledger";

/// The rows of a batch of source partition P7: `first..end`, tagged with the batch id.
fn batch(id: &str, first: u64, end: u64) -> Vec<Row> {
    (first..end)
        .map(|p| Row::new(format!("P7:{p}"), id))
        .collect()
}

/// A small client: one service, one fault-free `Sim` unless a schedule is given.
struct Client {
    api: WriteApi,
    sim: Sim,
}

impl Client {
    fn new() -> Self {
        Client {
            api: WriteApi::new(&[TABLE]),
            sim: Sim::fault_free(),
        }
    }

    /// A client whose `choice`-th `AppendRows` (counting from 0) loses its response after
    /// the rows were appended.
    fn losing_response_of_append(choice: usize) -> Self {
        let mut path = vec![0; choice];
        path.push(1);
        Client {
            api: WriteApi::new(&[TABLE]).with_faults(Faults {
                append: &[Fate::Ok, Fate::AppliedResponseLost],
                ..Faults::NONE
            }),
            sim: Sim::replaying(&path),
        }
    }

    fn create(&mut self) -> String {
        self.api
            .create_write_stream(&mut self.sim, TABLE, StreamType::Committed)
            .expect("create stream")
            .name
    }

    // ANCHOR: append
    /// One `AppendRows` on a fresh connection, as a simple client does it.
    fn append(
        &mut self,
        stream: &str,
        offset: Option<u64>,
        rows: Vec<Row>,
    ) -> Result<AppendResult, AppendError> {
        let connection = self.api.connect(&mut self.sim, stream).expect("connect");
        let response = self.api.append_rows(
            &mut self.sim,
            &connection,
            AppendRowsRequest { offset, rows },
        );
        self.api.disconnect(&connection);
        response
    }
    // ANCHOR_END: append

    /// The source positions a query of the table sees, in table order.
    fn positions(&self) -> Vec<String> {
        self.api
            .read_table(TABLE)
            .into_iter()
            .map(|r| r.row.source)
            .collect()
    }

    fn copies_of_each(&self) -> usize {
        let positions = self.positions();
        positions
            .iter()
            .map(|p| positions.iter().filter(|q| *q == p).count())
            .max()
            .unwrap_or(0)
    }
}

fn code(result: &Result<AppendResult, AppendError>) -> String {
    match result {
        Ok(r) => format!("OK at {:?}", r.offset),
        Err(e) => e.status.code.name().to_string(),
    }
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("append-streams");
    let mut summary = serde_json::Map::new();

    // 1. The default stream: a retry is a second append.
    let mut default = Client::new();
    let d = stream_name(TABLE, DEFAULT_STREAM);
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
    summary.insert(
        "default_stream_rows_after_retry".into(),
        rows_after_retry.into(),
    );

    // 2. A committed stream with offsets: the retry at the same offset.
    let mut committed = Client::new();
    let s = committed.create();
    committed
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A at 0");
    let retry = committed.append(&s, Some(0), batch("A", 1000, 1003));
    obs.check(
        "a retry at the same offset appends the rows again",
        committed.positions().len() > 3,
    );
    obs.check(
        "a retry at the same offset answers ALREADY_EXISTS",
        retry
            .as_ref()
            .is_err_and(|e| e.status.code == Code::AlreadyExists),
    );
    // Different rows at the same occupied offset get the same answer.
    let impostor = committed.append(&s, Some(0), batch("Z", 9000, 9001));
    obs.check(
        "ALREADY_EXISTS proves the offset holds the retried rows",
        impostor.is_ok()
            || !impostor
                .as_ref()
                .is_err_and(|e| e.status.code == Code::AlreadyExists),
    );

    // 3. Offsets count rows: B after A's three rows. Each attempt runs on its own copy of
    // the service, so that every candidate offset meets the same stream (A only).
    let b_at = |offset: u64| {
        let mut copy = Client {
            api: committed.api.clone(),
            sim: Sim::fault_free(),
        };
        copy.append(&s, Some(offset), batch("B", 1003, 1005))
    };
    let at_one = b_at(1);
    obs.check("the second request goes at offset 1", at_one.is_ok());
    let at_three = b_at(3);
    obs.check(
        "batch B goes at offset 3 because offsets count rows",
        at_three.as_ref().is_ok_and(|r| r.offset == Some(3)),
    );
    let candidates = [("a", 1), ("b", 2), ("c", 3), ("d", 5)];
    let answers: Vec<(&str, String)> = candidates
        .iter()
        .map(|(letter, offset)| {
            (
                *letter,
                format!("offset {offset}: {}", code(&b_at(*offset))),
            )
        })
        .collect();
    let accepted = answers
        .iter()
        .find(|(_, seen)| seen.contains("OK"))
        .map(|(letter, _)| *letter)
        .unwrap_or("none");
    let seen: Vec<&str> = answers.iter().map(|(_, seen)| seen.as_str()).collect();
    obs.answer(
        "offset-of-b",
        accepted,
        format!("B's append answered {}", seen.join("; ")),
    );

    // 4. A lost response, then a retry at the same offset.
    let mut lost = Client::losing_response_of_append(0);
    let s = lost.create();
    let first = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let rows_after_loss = lost.positions().len();
    obs.check(
        "a lost response can hide an append that happened",
        first.as_ref().is_err_and(|e| e.status.is_indefinite()) && rows_after_loss == 3,
    );
    let retried = lost.append(&s, Some(0), batch("A", 1000, 1003));
    let letter = match retried.as_ref().map_err(|e| e.status.code) {
        Ok(_) => "a",
        Err(Code::AlreadyExists) => "b",
        Err(Code::OutOfRange) => "c",
        Err(_) => "d",
    };
    obs.answer(
        "retry-after-lost-response",
        letter,
        format!("the first append answered {}, the table then held {rows_after_loss} rows, the retry answered {}", code(&first), code(&retried)),
    );

    // 5. The unsafe restart: a new stream S2 and A replayed at offset 0.
    let mut restart = Client::losing_response_of_append(0);
    let s1 = restart.create();
    let _ = restart.append(&s1, Some(0), batch("A", 1000, 1003));
    let s2 = restart.create();
    let on_s2 = restart.append(&s2, Some(0), batch("A", 1000, 1003));
    obs.check(
        "a new stream S2 at offset 0 accepts the same rows again",
        on_s2.is_ok(),
    );
    obs.check(
        "replaying on S2 keeps each source record once in the table",
        restart.copies_of_each() == 1,
    );
    let rows = restart.positions().len();
    obs.answer(
        "rows-after-s2",
        match rows {
            3 => "a",
            6 => "b",
            0 => "c",
            _ => "d",
        },
        format!("after A on S1 (response lost) and A again on S2 at offset 0 the table holds {rows} rows"),
    );
    summary.insert("rows_after_s2_replay".into(), rows.into());

    // 6. Hunting: a writer without a journal believes A was not written and walks the
    // offset up until the service stops objecting.
    let mut hunter = Client::losing_response_of_append(0);
    let s = hunter.create();
    let _ = hunter.append(&s, Some(0), batch("A", 1000, 1003));
    let mut offset = 0;
    let mut tries = Vec::new();
    loop {
        let answer = hunter.append(&s, Some(offset), batch("A", 1000, 1003));
        tries.push(format!("{offset}: {}", code(&answer)));
        if answer.is_ok() || offset >= 10 {
            break;
        }
        offset += 1;
    }
    obs.check(
        "hunting for a free offset keeps each record once",
        hunter.copies_of_each() == 1,
    );
    summary.insert("hunting_tries".into(), tries.join(", ").into());

    // 7. A corrupted row in a request.
    let mut schema = Client::new();
    let s = schema.create();
    let mut b = batch("B", 1003, 1005);
    b[1].unknown_field = Some("discount_code".into());
    let rejected = schema.append(&s, Some(0), b);
    obs.check(
        "a request with one corrupted row appends the other rows",
        !schema.positions().is_empty(),
    );
    summary.insert(
        "row_errors".into(),
        rejected
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
            .into(),
    );

    // 8. ALREADY_EXISTS without proof: the journal says B was only PREPARED (never sent),
    // yet offset 3 is occupied, by another client's rows.
    let mut drill = Client::new();
    let s = drill.create();
    drill
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A");
    drill
        .append(&s, Some(3), batch("X", 7000, 7002))
        .expect("someone else's rows");
    let b_answer = drill.append(&s, Some(3), batch("B", 1003, 1005));
    let copies_of_b = drill.positions().iter().filter(|p| *p == "P7:1003").count();
    obs.answer(
        "already-exists-without-proof",
        match copies_of_b {
            0 => "b",
            1 => "a",
            _ => "c",
        },
        format!(
            "B's append answered {}; copies of B's first row in the table: {copies_of_b}",
            code(&b_answer)
        ),
    );

    // 9. The seed's proceed / hold / reconcile decision after a lost response: try each.
    let decide = |choice: &str| -> (usize, usize) {
        let mut world = Client::losing_response_of_append(0);
        let s = world.create();
        let _ = world.append(&s, Some(0), batch("A", 1000, 1003));
        let retry = world.append(&s, Some(0), batch("A", 1000, 1003));
        let already = retry.is_err_and(|e| e.status.code == Code::AlreadyExists);
        match choice {
            // Proceed: the journal proves A, so confirm it and write B at offset 3.
            "a" if already => {
                let _ = world.append(&s, Some(3), batch("B", 1003, 1005));
            }
            // Hold: nothing more happens until a human looks.
            "b" => {}
            // "Reconcile" by replaying on a new stream: A and B on S2.
            "c" => {
                let s2 = world.create();
                let _ = world.append(&s2, Some(0), batch("A", 1000, 1005));
            }
            _ => {}
        }
        (world.positions().len(), world.copies_of_each())
    };
    let outcomes: Vec<(&str, (usize, usize))> =
        ["a", "b", "c"].iter().map(|c| (*c, decide(c))).collect();
    let best = outcomes
        .iter()
        .find(|(_, (rows, copies))| *rows == 5 && *copies == 1)
        .map(|(c, _)| *c)
        .unwrap_or("none");
    obs.answer(
        "proceed-hold-reconcile",
        best,
        format!("(rows in table, most copies of one record) per decision: {outcomes:?}"),
    );

    obs.finish(None, serde_json::Value::Object(summary))
}
