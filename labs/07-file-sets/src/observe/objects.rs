//! One object at a time: racing creates, a delete the cleanup job approved for one
//! generation, and a batch of deletes after the race.

use super::{
    BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, live, put, status, store, store_with, version,
};
use labkit::Observation;
use serde_json::json;
use sim_storage::{DeleteRequest, Meta, ObjectStore, Preconditions, StorageError, Upload};

type Inserted = Result<Meta, StorageError>;

/// The race listing: two publishers upload plain.json, then both create guarded.json.
fn race() -> (ObjectStore, [Inserted; 4]) {
    // ANCHOR: race
    let mut s = store();
    let a = s.insert(PUBLISHER_A, BUCKET, "plain.json", Upload::new("from A"));
    let b = s.insert(PUBLISHER_B, BUCKET, "plain.json", Upload::new("from B"));
    let create = |text: &str| Upload::new(text).if_generation_match(0);
    let guarded_b = s.insert(PUBLISHER_B, BUCKET, "guarded.json", create("from B"));
    let guarded_a = s.insert(PUBLISHER_A, BUCKET, "guarded.json", create("from A"));
    // ANCHOR_END: race
    (s, [a, b, guarded_b, guarded_a])
}

/// A create-only upload (`ifGenerationMatch=0`) of `text`.
fn create_only(text: &str) -> Upload {
    Upload::new(text).if_generation_match(0)
}

/// 1. Two publishers upload the same object, first without, then with a precondition;
///    then guarded.json is deleted and A sends its create again.
pub fn racing_creates(obs: &mut Observation, facts: &mut Facts) {
    let (mut s, [a, b, guarded_b, guarded_a]) = race();
    let (plain, guarded) = (live(&s, "plain.json"), live(&s, "guarded.json"));
    obs.ask(
        "After the four inserts of the plain.json listing, do plain.json and guarded.json hold the same publisher's bytes?",
        plain.is_ok() && plain == guarded,
    );
    let any = DeleteRequest::default();
    let deleted = s.delete(PUBLISHER_B, BUCKET, "guarded.json", any);
    let again = s.insert(PUBLISHER_A, BUCKET, "guarded.json", create_only("from A"));
    let recreated = live(&s, "guarded.json");
    obs.ask(
        "After the plain.json listing, guarded.json is deleted and A sends its create of guarded.json again. Does guarded.json then hold the bytes it held before the delete?",
        recreated.is_ok() && recreated == guarded,
    );
    // A variation: B's upload of plain.json is create-only too.
    let mut v = store();
    v.insert(PUBLISHER_A, BUCKET, "plain.json", Upload::new("from A"))
        .ok();
    let b_create_only = v.insert(PUBLISHER_B, BUCKET, "plain.json", create_only("from B"));
    facts.insert(
        "racing_creates".into(),
        json!({
            "plain": [status(&a), status(&b)],
            "guarded_b_then_a": [status(&guarded_b), status(&guarded_a)],
            "after_delete": [status(&deleted), status(&again)],
            "plain_create_only_b": status(&b_create_only),
        }),
    );
}

/// What the old.csv listing observed, and the store it leaves.
struct Cleanup {
    s: ObjectStore,
    g1: i64,
    g2: i64,
    deletes: [u16; 2],
    after_pinned: Option<Vec<u8>>,
    next: Result<Vec<u8>, StorageError>,
}

/// The old.csv listing on `s`: a cleanup job approved generation g1 of old.csv for
/// deletion; a new upload replaced it. The job deletes pinned to g1, asks for
/// generation g1 + 1, and last deletes without a precondition.
fn cleanup(mut s: ObjectStore) -> Cleanup {
    // ANCHOR: delete
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
    let deletes = [status(&pinned_delete), status(&unpinned_delete)];
    Cleanup {
        s,
        g1,
        g2,
        deletes,
        after_pinned,
        next,
    }
}

/// 2. The old.csv listing, without and with Object Versioning.
pub fn approved_delete(obs: &mut Observation, facts: &mut Facts) {
    let c = cleanup(store());
    obs.ask(
        "In the old.csv listing, does `after_pinned` hold the bytes of B's upload?",
        c.after_pinned.as_deref() == Some(b"replacement".as_slice()),
    );
    let left = [None, Some(c.g1), Some(c.g2)].into_iter().any(|g| match g {
        None => live(&c.s, "old.csv").is_ok(),
        Some(g) => version(&c.s, "old.csv", g).is_ok(),
    });
    // With versioning the last delete keeps the replacement as noncurrent, so g1 is
    // unreadable at the end only if the first delete removed it.
    let versioned = cleanup(store_with(true));
    let approved = version(&versioned.s, "old.csv", versioned.g1);
    obs.ask(
        "In a bucket with Object Versioning on, does the old.csv listing's first delete remove the approved version?",
        versioned.deletes[0] == 200 && approved.is_err(),
    );
    let answer = match c.next.as_deref() {
        Err(e) if e.code() == 404 => "a",
        Ok(b"replacement") => "b",
        Err(e) if e.code() == 412 => "c",
        Ok(b"approved") => "d",
        _ => "?",
    };
    obs.choose(
        "What does `next`, in the old.csv listing, get?",
        answer,
        format!(
            "generations {} and {}; ?generation={} answered {}",
            c.g1,
            c.g2,
            c.g1 + 1,
            status(&c.next)
        ),
    );
    facts.insert(
        "approved_delete".into(),
        json!({
            "generations": [c.g1, c.g2],
            "deletes": c.deletes,
            "versioned_deletes": versioned.deletes,
            "versioned_g1": status(&approved),
            "any_version_left": left,
        }),
    );
}

/// A variation: after the race listing, A reads plain.json's generation and deletes
/// both objects in one batch request, each part pinned to that generation.
pub fn race_then_batch(obs: &mut Observation, facts: &mut Facts) {
    let (mut s, _) = race();
    let none = Preconditions::none();
    let read = s.get(PUBLISHER_A, BUCKET, "plain.json", None, none);
    let pinned = DeleteRequest {
        generation: None,
        preconditions: Preconditions::generation(read.map_or(-1, |m| m.generation)),
    };
    let parts = [("plain.json", pinned), ("guarded.json", pinned)];
    let answers = s.batch_delete(PUBLISHER_A, BUCKET, &parts);
    let left: Vec<(&str, Vec<u8>)> = ["plain.json", "guarded.json"]
        .into_iter()
        .filter_map(|name| live(&s, name).ok().map(|bytes| (name, bytes)))
        .collect();
    let answer = match left.as_slice() {
        [] => "a",
        [_, _] => "b",
        [("guarded.json", bytes)] if bytes == b"from B" => "c",
        [("guarded.json", bytes)] if bytes == b"from A" => "d",
        _ => "?",
    };
    let statuses: Vec<u16> = answers.iter().map(status).collect();
    let names: Vec<&str> = left.iter().map(|(name, _)| *name).collect();
    obs.choose(
        "After the four inserts of the plain.json listing, A reads plain.json's generation and sends one batch request deleting plain.json and guarded.json, each part with ifGenerationMatch set to that generation. What is left?",
        answer,
        format!("the parts answered {statuses:?}; left: {names:?}"),
    );
    facts.insert("race_then_batch".into(), json!(statuses));
}
