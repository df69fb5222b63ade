//! The observe phase: what the object store promises for one object, and what it does
//! not promise for a set of them.
//!
//! Everything runs against the simulated Cloud Storage origin (`sim_storage`, SQLite in
//! memory) and the public cache in front of it, one request at a time, with no faults.
//! Every verdict below is computed from the responses; nothing here holds an answer:
//! `cargo labs run` compares what the run observed with your sealed predictions. One
//! function per section, in the order the run reports them.

mod cache;
mod objects;
mod reads;
mod sets;

use labkit::{Observation, Report};
use serde_json::{Map, Value};
use sim_storage::{ALL_USERS, ObjectStore, Preconditions, Role, StorageError, Upload};

const BUCKET: &str = "datasets";
const PUBLISHER_A: &str = "serviceAccount:publisher-a@bank-data.iam";
const PUBLISHER_B: &str = "serviceAccount:publisher-b@bank-data.iam";
const CREATOR: &str = "serviceAccount:uploader@bank-data.iam";

/// What the run measured besides the verdicts, for the report's details.
type Facts = Map<String, Value>;

/// A new origin with one bucket (Object Versioning on or off): two publishers with
/// `objectUser`, an uploader with `objectCreator`, and public read access.
fn store_with(versioning: bool) -> ObjectStore {
    let mut store = ObjectStore::in_memory();
    store
        .create_bucket(BUCKET, versioning)
        .expect("a new store has no buckets");
    for principal in [PUBLISHER_A, PUBLISHER_B] {
        store.grant(BUCKET, principal, Role::ObjectUser);
    }
    store.grant(BUCKET, CREATOR, Role::ObjectCreator);
    store.grant(BUCKET, ALL_USERS, Role::ObjectViewer);
    store
}

/// The store most sections use: Object Versioning off, as in the graded world.
fn store() -> ObjectStore {
    store_with(false)
}

/// The live bytes of `name`, read at the origin.
fn live(store: &ObjectStore, name: &str) -> Result<Vec<u8>, StorageError> {
    store
        .get_media(PUBLISHER_A, BUCKET, name, None, None, Preconditions::none())
        .map(|(_, data)| data)
}

/// The bytes of one generation of `name`.
fn version(store: &ObjectStore, name: &str, generation: i64) -> Result<Vec<u8>, StorageError> {
    let none = Preconditions::none();
    store
        .get_media(PUBLISHER_A, BUCKET, name, Some(generation), None, none)
        .map(|(_, data)| data)
}

/// Uploads `bytes` to `name` as `principal` with no precondition; the new generation.
fn put(store: &mut ObjectStore, principal: &str, name: &str, bytes: Vec<u8>) -> Option<i64> {
    store
        .insert(principal, BUCKET, name, Upload::new(bytes))
        .ok()
        .map(|meta| meta.generation)
}

/// The HTTP status of a response.
fn status<T>(result: &Result<T, StorageError>) -> u16 {
    result.as_ref().map(|_| 200).unwrap_or_else(|e| e.code())
}

/// Runs the observe phase and returns its report.
pub fn run() -> Report {
    let mut obs = Observation::new("file-sets");
    let mut facts = Facts::new();
    objects::racing_creates(&mut obs, &mut facts);
    objects::approved_delete(&mut obs, &mut facts);
    reads::ranged_reads(&mut obs, &mut facts);
    sets::mixed_runs(&mut obs, &mut facts);
    sets::cached_set(&mut obs, &mut facts);
    sets::reversed_uploads(&mut facts);
    cache::public_cache(&mut facts);
    cache::cache_variations(&mut obs, &mut facts);
    cache::uploader_steps(&mut obs, &mut facts);
    cache::origin_and_cache_at_30(&mut facts);
    reads::conditional_reads(&mut facts);
    // Variations asked as multiple-choice questions.
    objects::race_then_batch(&mut obs, &mut facts);
    obs.finish(
        Some(ObjectStore::sqlite_version().to_string()),
        Value::Object(facts),
    )
}
