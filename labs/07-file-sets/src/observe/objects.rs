//! One object at a time: racing creates, a delete the cleanup job approved for one
//! generation, and a batch of deletes.

use super::{BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, live, put, status, store, version};
use labkit::Observation;
use serde_json::json;
use sim_storage::{DeleteRequest, Preconditions, Upload};

/// 1. Two publishers upload the same object, first without, then with a precondition.
pub fn racing_creates(obs: &mut Observation, facts: &mut Facts) {
    // ANCHOR: race
    let mut s = store();
    let a = s.insert(PUBLISHER_A, BUCKET, "plain.json", Upload::new("from A"));
    let b = s.insert(PUBLISHER_B, BUCKET, "plain.json", Upload::new("from B"));
    let create = |text: &str| Upload::new(text).if_generation_match(0);
    let guarded_a = s.insert(PUBLISHER_A, BUCKET, "guarded.json", create("from A"));
    let guarded_b = s.insert(PUBLISHER_B, BUCKET, "guarded.json", create("from B"));
    // ANCHOR_END: race
    obs.ask(
        "Publishers A and B upload plain.json in turn, without a precondition. Do both get 200?",
        a.is_ok() && b.is_ok(),
    );
    obs.ask(
        "Afterwards, does a read of plain.json return A's bytes?",
        live(&s, "plain.json").ok().as_deref() == Some(b"from A".as_slice()),
    );
    obs.ask(
        "Both then create guarded.json with ifGenerationMatch=0, A first. Does B's create get 412?",
        guarded_a.is_ok() && status(&guarded_b) == 412,
    );
    // A variation: A's object is deleted, and B sends its create again.
    let deleted = s.delete(
        PUBLISHER_A,
        BUCKET,
        "guarded.json",
        DeleteRequest::default(),
    );
    let again = s.insert(PUBLISHER_B, BUCKET, "guarded.json", create("from B"));
    obs.ask(
        "Then A's guarded.json is deleted, and B sends the same create again. Does it succeed?",
        deleted.is_ok() && again.is_ok(),
    );
    facts.insert(
        "racing_creates".into(),
        json!({
            "plain": [status(&a), status(&b)],
            "guarded": [status(&guarded_a), status(&guarded_b)],
            "after_delete": status(&again),
        }),
    );
}

/// 2. A cleanup job approved generation g1 of old.csv for deletion; a new upload
///    replaced it. The job deletes pinned to g1, asks for generation g1 + 1, and last
///    deletes without a precondition.
pub fn approved_delete(obs: &mut Observation, facts: &mut Facts) {
    // ANCHOR: delete
    let mut s = store();
    let g1 = put(&mut s, PUBLISHER_A, "old.csv", b"approved".to_vec()).unwrap_or(-1);
    let g2 = put(&mut s, PUBLISHER_B, "old.csv", b"replacement".to_vec()).unwrap_or(-1);
    let pinned = DeleteRequest {
        generation: None,
        preconditions: Preconditions::generation(g1),
    };
    let pinned_delete = s.delete(PUBLISHER_A, BUCKET, "old.csv", pinned);
    let after_pinned = live(&s, "old.csv").ok();
    let next = version(&s, "old.csv", g1 + 1);
    let any = DeleteRequest::default();
    let unpinned_delete = s.delete(PUBLISHER_A, BUCKET, "old.csv", any);
    // ANCHOR_END: delete
    obs.ask("A cleanup job approved generation g1 of old.csv; an upload replaced it since. Does a delete with no generation and no precondition remove the replacement?", unpinned_delete.is_ok() && status(&live(&s, "old.csv")) == 404);
    obs.ask(
        "Does the job's delete with ifGenerationMatch=g1 remove the replacement?",
        pinned_delete.is_ok() && after_pinned.is_none(),
    );
    obs.ask("Is the replacement's generation g1 + 1?", g2 == g1 + 1);
    let answer = match next.as_deref() {
        Ok(b"replacement") => "a",
        Ok(b"approved") => "d",
        Err(e) if e.code() == 404 => "b",
        Err(e) if e.code() == 412 => "c",
        _ => "?",
    };
    obs.choose("While the replacement is live, the cleanup job asks for old.csv?generation=g1+1, g1 being the generation it approved. What does it get?",
        answer,
        format!(
            "generations {g1} and {g2}; ?generation={} answered {}",
            g1 + 1,
            status(&next)
        ),
    );
    facts.insert(
        "approved_and_replacement_generations".into(),
        json!([g1, g2]),
    );
}

/// A variation: one batch request deletes both files of a set, each pinned to the
/// generation the job listed, after positions.csv was replaced.
pub fn batch_delete(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    let accounts = put(&mut s, PUBLISHER_A, "set/accounts.csv", b"a1".to_vec());
    let positions = put(&mut s, PUBLISHER_A, "set/positions.csv", b"p1".to_vec());
    put(&mut s, PUBLISHER_B, "set/positions.csv", b"p2".to_vec());
    let pinned = |generation: Option<i64>| DeleteRequest {
        generation: None,
        preconditions: Preconditions::generation(generation.unwrap_or(-1)),
    };
    let parts = [
        ("set/accounts.csv", pinned(accounts)),
        ("set/positions.csv", pinned(positions)),
    ];
    let answers = s.batch_delete(PUBLISHER_A, BUCKET, &parts);
    let remaining: Vec<&str> = ["set/accounts.csv", "set/positions.csv"]
        .into_iter()
        .filter(|name| live(&s, name).is_ok())
        .collect();
    let answer = match remaining.as_slice() {
        ["set/accounts.csv", "set/positions.csv"] => "c",
        [] => "b",
        ["set/positions.csv"] => "a",
        ["set/accounts.csv"] => "d",
        _ => "?",
    };
    let statuses: Vec<u16> = answers.iter().map(status).collect();
    obs.choose("A job lists set/accounts.csv and set/positions.csv; positions.csv is replaced; the job sends one batch request deleting both, each with ifGenerationMatch set to the generation it listed. What is left?",
        answer,
        format!("the parts answered {statuses:?}; left: {remaining:?}"),
    );
    facts.insert("batch_delete".into(), json!(statuses));
}
