//! Every behaviour the simulator models, pinned by the Cloud Storage documentation it
//! follows (page and sentence, quoted in the comment above each test).

use pretty_assertions::assert_eq;
use sim_storage::{
    ALL_USERS, DeleteRequest, GENERATION_EPOCH_MICROS, Layer, ObjectStore, Preconditions,
    PublicCache, Role, StorageError, Upload,
};

const OWNER: &str = "serviceAccount:owner@example.iam";
const BUCKET: &str = "datasets";

fn store(versioning: bool) -> ObjectStore {
    let mut store = ObjectStore::in_memory();
    store.create_bucket(BUCKET, versioning).unwrap();
    store.grant(BUCKET, OWNER, Role::ObjectAdmin);
    store
}

fn read(store: &ObjectStore, name: &str) -> Result<Vec<u8>, StorageError> {
    store
        .get_media(OWNER, BUCKET, name, None, None, Preconditions::none())
        .map(|(_, data)| data)
}

// https://cloud.google.com/python/docs/reference/storage/latest/generation_metageneration
// "Each time you upload a new version of a file to a Blob ("Object" in the GCS
// back-end docs), the Blob's generation is changed, and its metageneration is reset
// to 1 (the first metadata version for that generation of the blob)."
#[test]
fn every_upload_creates_a_new_generation_with_metageneration_one() {
    let mut store = store(false);
    let first = store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v1"))
        .unwrap();
    store
        .patch(
            OWNER,
            BUCKET,
            "a.csv",
            Some("no-store"),
            Preconditions::none(),
        )
        .unwrap();
    let second = store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v2"))
        .unwrap();
    assert_ne!(first.generation, second.generation);
    assert_eq!(second.metageneration, 1);
    assert_eq!(read(&store, "a.csv").unwrap(), b"v2");
}

// Same page: "Each time you patch or update the bucket's / blob's metadata, its
// metageneration is incremented."
#[test]
fn a_metadata_update_bumps_the_metageneration_and_keeps_the_generation() {
    let mut store = store(false);
    let created = store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v1"))
        .unwrap();
    let patched = store
        .patch(
            OWNER,
            BUCKET,
            "a.csv",
            Some("public, max-age=60"),
            Preconditions::none(),
        )
        .unwrap();
    assert_eq!(
        (patched.generation, patched.metageneration),
        (created.generation, 2)
    );
}

// https://cloud.google.com/storage/docs/request-preconditions
// "ifGenerationMatch ... Request proceeds if the generation of the target resource
// matches the value used in the precondition. If the values don't match, the request
// fails with a 412 Precondition Failed response."
#[test]
fn if_generation_match_guards_an_overwrite() {
    let mut store = store(false);
    let first = store
        .insert(OWNER, BUCKET, "m.json", Upload::new("v1"))
        .unwrap();
    let second = store
        .insert(
            OWNER,
            BUCKET,
            "m.json",
            Upload::new("v2").if_generation_match(first.generation),
        )
        .unwrap();
    let stale = store
        .insert(
            OWNER,
            BUCKET,
            "m.json",
            Upload::new("v3").if_generation_match(first.generation),
        )
        .unwrap_err();
    assert_eq!(stale.code(), 412);
    assert_eq!(read(&store, "m.json").unwrap(), b"v2");
    assert_ne!(first.generation, second.generation);
}

// Same page, the same sentence for "ifMetagenerationMatch": "Request proceeds if the
// metageneration of the target resource matches the value used in the precondition.
// If the values don't match, the request fails with a 412 Precondition Failed response."
#[test]
fn if_metageneration_match_guards_a_metadata_update() {
    let mut store = store(false);
    store
        .insert(OWNER, BUCKET, "m.json", Upload::new("v1"))
        .unwrap();
    let guarded = Preconditions::metageneration(1);
    store
        .patch(OWNER, BUCKET, "m.json", Some("no-store"), guarded)
        .unwrap();
    let stale = store
        .patch(OWNER, BUCKET, "m.json", Some("public"), guarded)
        .unwrap_err();
    assert_eq!(stale.code(), 412);
}

// https://cloud.google.com/python/docs/reference/storage/latest/generation_metageneration
// "As a special case, passing 0 as the value for if_generation_match makes the
// operation succeed only if there are no live versions of the blob."
#[test]
fn if_generation_match_zero_creates_only_when_no_live_version_exists() {
    let mut store = store(false);
    let create = || Upload::new("run-2").if_generation_match(0);
    let winner = store.insert(OWNER, BUCKET, "m.json", create());
    let loser = store.insert(OWNER, BUCKET, "m.json", create());
    assert!(winner.is_ok());
    assert_eq!(loser.unwrap_err().code(), 412);
    // Once the live version is deleted, creating is allowed again.
    store
        .delete(OWNER, BUCKET, "m.json", DeleteRequest::default())
        .unwrap();
    assert!(store.insert(OWNER, BUCKET, "m.json", create()).is_ok());
}

// https://cloud.google.com/storage/docs/request-preconditions
// "Preconditions are often used to prevent race conditions in mutating requests, such
// as uploads, deletes, or metadata updates." A delete carrying ifGenerationMatch of
// the approved generation fails with 412 once a later generation replaced it; an
// unconditional delete removes the replacement.
#[test]
fn a_delete_pinned_to_a_generation_fails_once_it_was_replaced() {
    let mut store = store(false);
    let approved = store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v1"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v2"))
        .unwrap();
    let pinned = DeleteRequest {
        generation: None,
        preconditions: Preconditions::generation(approved.generation),
    };
    assert_eq!(
        store
            .delete(OWNER, BUCKET, "a.csv", pinned)
            .unwrap_err()
            .code(),
        412
    );
    assert_eq!(read(&store, "a.csv").unwrap(), b"v2");
    store
        .delete(OWNER, BUCKET, "a.csv", DeleteRequest::default())
        .unwrap();
    assert_eq!(read(&store, "a.csv").unwrap_err().code(), 404);
}

// https://cloud.google.com/storage/docs/consistency
// "When you write an object to Cloud Storage, such as when you upload, compose, or copy
// an object, the object is immediately available for reading and metadata operations as
// soon as you receive a success response to your write request." and "If a deletion
// request succeeds, an immediate attempt to download the object or its metadata results
// in a 404 Not Found status code."
#[test]
fn the_origin_is_strongly_consistent_for_reads_after_writes_and_deletes() {
    let mut store = store(false);
    store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v1"))
        .unwrap();
    assert_eq!(read(&store, "a.csv").unwrap(), b"v1");
    store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("v2"))
        .unwrap();
    assert_eq!(read(&store, "a.csv").unwrap(), b"v2");
    store
        .delete(OWNER, BUCKET, "a.csv", DeleteRequest::default())
        .unwrap();
    assert_eq!(read(&store, "a.csv").unwrap_err().code(), 404);
}

// https://cloud.google.com/storage/docs/consistency
// "Bucket listing and object listing are strongly consistent: when you create a bucket
// or object and then immediately perform the relevant list operation, the newly created
// bucket or object appears in the returned list"
#[test]
fn object_listing_is_strongly_consistent() {
    let mut store = store(false);
    store
        .insert(OWNER, BUCKET, "runs/r1/accounts.csv", Upload::new("a"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "runs/r1/positions.csv", Upload::new("p"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "runs/r2/accounts.csv", Upload::new("a"))
        .unwrap();
    let names: Vec<String> = store
        .list(OWNER, BUCKET, "runs/r1/")
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["runs/r1/accounts.csv", "runs/r1/positions.csv"]);
}

// https://cloud.google.com/storage/docs/xml-api/get-object-download
// "GET requests for objects can include a Range header ..." and, for the `generation`
// parameter, "You can use this if you want to fetch a specific object version."
// https://cloud.google.com/storage/docs/request-preconditions: "Preconditions are also
// often used when retrieving object metadata and data in successive requests, to ensure
// the object did not change in the time between the two requests."
#[test]
fn unpinned_ranged_reads_can_stitch_two_versions_and_pinned_ones_cannot() {
    let mut store = store(false);
    let v1 = store
        .insert(OWNER, BUCKET, "f", Upload::new("AAAABBBB"))
        .unwrap();
    let head = |s: &ObjectStore, generation| {
        s.get_media(
            OWNER,
            BUCKET,
            "f",
            generation,
            Some(0..4),
            Preconditions::none(),
        )
    };
    let tail = |s: &ObjectStore, generation| {
        s.get_media(
            OWNER,
            BUCKET,
            "f",
            generation,
            Some(4..8),
            Preconditions::none(),
        )
    };
    let (meta, first) = head(&store, None).unwrap();
    assert_eq!(meta.generation, v1.generation);
    store
        .insert(OWNER, BUCKET, "f", Upload::new("CCCCDDDD"))
        .unwrap();
    // Unpinned: the second range comes from the new version.
    let (_, second) = tail(&store, None).unwrap();
    assert_eq!([first.clone(), second].concat(), b"AAAADDDD");
    // Pinned to the first generation: without versioning it is gone (404), never mixed.
    assert_eq!(tail(&store, Some(v1.generation)).unwrap_err().code(), 404);
    // ifGenerationMatch on the read says the same thing with 412.
    let guarded = store.get_media(
        OWNER,
        BUCKET,
        "f",
        None,
        Some(4..8),
        Preconditions::generation(v1.generation),
    );
    assert_eq!(guarded.unwrap_err().code(), 412);
}

// https://cloud.google.com/storage/docs/object-versioning
// "Cloud Storage retains a noncurrent object version each time you replace or delete a
// live object version, as long as you don't specify the generation number of the live
// version." A pinned reader of a replaced object still gets the version it started with.
#[test]
fn with_versioning_a_pinned_read_still_gets_the_replaced_generation() {
    let mut store = store(true);
    let v1 = store
        .insert(OWNER, BUCKET, "f", Upload::new("AAAABBBB"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "f", Upload::new("CCCCDDDD"))
        .unwrap();
    let (meta, tail) = store
        .get_media(
            OWNER,
            BUCKET,
            "f",
            Some(v1.generation),
            Some(4..8),
            Preconditions::none(),
        )
        .unwrap();
    assert_eq!((meta.live, tail.as_slice()), (false, b"BBBB".as_slice()));
}

// https://cloud.google.com/storage/docs/xml-api/get-object-download: "GET requests for
// objects can include a Range header as defined in the HTTP 1.1 RFC"; under that RFC a
// range that starts past the end is answered 416 Requested Range Not Satisfiable.
#[test]
fn a_range_past_the_end_is_not_satisfiable() {
    let mut store = store(false);
    store
        .insert(OWNER, BUCKET, "f", Upload::new("abc"))
        .unwrap();
    let past = store.get_media(OWNER, BUCKET, "f", None, Some(5..9), Preconditions::none());
    assert_eq!(past.unwrap_err().code(), 416);
}

// https://cloud.google.com/storage/docs/batch
// "When Cloud Storage receives a batch request, it applies the outer request's query
// parameters and headers (as appropriate) to each part, and then treats each part as if
// it were a separate HTTP request." Nothing spans several objects: one part can succeed
// while the next fails.
#[test]
fn a_batch_is_not_atomic_across_objects() {
    let mut store = store(false);
    let a = store.insert(OWNER, BUCKET, "a", Upload::new("a")).unwrap();
    store.insert(OWNER, BUCKET, "b", Upload::new("b")).unwrap();
    let results = store.batch_delete(
        OWNER,
        BUCKET,
        &[
            (
                "a",
                DeleteRequest {
                    generation: Some(a.generation),
                    ..Default::default()
                },
            ),
            (
                "b",
                DeleteRequest {
                    generation: None,
                    preconditions: Preconditions::generation(1),
                },
            ),
        ],
    );
    let codes: Vec<u16> = results
        .iter()
        .map(|r| r.as_ref().map(|_| 200).unwrap_or_else(|e| e.code()))
        .collect();
    assert_eq!(codes, [200, 412]);
    assert_eq!(read(&store, "a").unwrap_err().code(), 404);
    assert_eq!(read(&store, "b").unwrap(), b"b");
}

// https://cloud.google.com/storage/docs/caching
// "While caching can improve performance, you also risk serving stale content if you
// make updates to your object but a cache continues to serve the earlier version of the
// object." and "max-age=TIME_IN_SECONDS: the length of time an object can be cached
// before it's considered stale."
#[test]
fn the_public_cache_serves_an_old_copy_until_max_age_ends() {
    let mut store = store(false);
    store.grant(BUCKET, ALL_USERS, Role::ObjectViewer);
    store
        .insert(
            OWNER,
            BUCKET,
            "m.json",
            Upload::new("run-1").cache_control("public, max-age=60"),
        )
        .unwrap();
    let mut cache = PublicCache::new();
    let first = cache.get_media(&store, 0, BUCKET, "m.json").unwrap();
    store
        .insert(
            OWNER,
            BUCKET,
            "m.json",
            Upload::new("run-2").cache_control("public, max-age=60"),
        )
        .unwrap();
    let stale = cache.get_media(&store, 59, BUCKET, "m.json").unwrap();
    let fresh = cache.get_media(&store, 60, BUCKET, "m.json").unwrap();
    assert_eq!(
        [
            (first.layer, first.data),
            (stale.layer, stale.data),
            (fresh.layer, fresh.data)
        ],
        [
            (Layer::Origin, b"run-1".to_vec()),
            (Layer::Cache, b"run-1".to_vec()),
            (Layer::Origin, b"run-2".to_vec()),
        ]
    );
    // The origin itself is never stale.
    assert_eq!(read(&store, "m.json").unwrap(), b"run-2");
}

// https://cloud.google.com/storage/docs/caching: "no-store: the object can't be cached."
// https://cloud.google.com/storage/docs/json_api/v1/objects (cacheControl): "If omitted,
// and the object is accessible to all anonymous users, the default will be public,
// max-age=3600."
#[test]
fn no_store_is_never_cached_and_the_default_lifetime_is_an_hour() {
    assert_eq!(sim_storage::cache_lifetime(Some("no-store")), None);
    assert_eq!(
        sim_storage::cache_lifetime(Some("private, max-age=60")),
        None
    );
    assert_eq!(sim_storage::cache_lifetime(None), Some(3600));
    let mut store = store(false);
    store.grant(BUCKET, ALL_USERS, Role::ObjectViewer);
    store
        .insert(
            OWNER,
            BUCKET,
            "m",
            Upload::new("1").cache_control("no-store"),
        )
        .unwrap();
    let mut cache = PublicCache::new();
    cache.get_media(&store, 0, BUCKET, "m").unwrap();
    store
        .insert(
            OWNER,
            BUCKET,
            "m",
            Upload::new("2").cache_control("no-store"),
        )
        .unwrap();
    let again = cache.get_media(&store, 1, BUCKET, "m").unwrap();
    assert_eq!((again.layer, again.data), (Layer::Origin, b"2".to_vec()));
}

// https://cloud.google.com/storage/docs/caching: an object is cached only if "The
// object is publicly accessible."
#[test]
fn the_cache_does_not_answer_for_objects_anonymous_users_cannot_read() {
    let mut store = store(false);
    store.insert(OWNER, BUCKET, "m", Upload::new("1")).unwrap();
    let mut cache = PublicCache::new();
    assert_eq!(
        cache.get_media(&store, 0, BUCKET, "m").unwrap_err().code(),
        403
    );
}

// https://cloud.google.com/storage/docs/access-control/iam-permissions
// "To replace an existing object, both storage.objects.create and
// storage.objects.delete permissions are required." (The objectCreator role has
// create only; objectViewer has get and list.)
#[test]
fn replacing_an_object_needs_delete_as_well_as_create() {
    let creator = "user:creator@example.com";
    let viewer = "user:viewer@example.com";
    let mut store = store(false);
    store.grant(BUCKET, creator, Role::ObjectCreator);
    store.grant(BUCKET, viewer, Role::ObjectViewer);
    assert!(
        store
            .insert(creator, BUCKET, "new.csv", Upload::new("x"))
            .is_ok()
    );
    let replace = store
        .insert(creator, BUCKET, "new.csv", Upload::new("y"))
        .unwrap_err();
    assert_eq!(
        replace,
        StorageError::Forbidden {
            principal: creator.into(),
            permission: "storage.objects.delete"
        }
    );
    assert_eq!(
        store
            .insert(viewer, BUCKET, "v.csv", Upload::new("z"))
            .unwrap_err()
            .code(),
        403
    );
    assert_eq!(read(&store, "new.csv").unwrap(), b"x");
    // The audit trail records who tried what.
    let denied: Vec<(String, u16)> = store
        .audit()
        .into_iter()
        .filter(|e| e.status == 403)
        .map(|e| (e.principal, e.status))
        .collect();
    assert_eq!(
        denied,
        [(creator.to_string(), 403), (viewer.to_string(), 403)]
    );
}

// https://cloud.google.com/storage/docs/access-control/iam-roles, the table of
// predefined roles (read at its mirror developers.google.cn/storage/docs/access-control/
// iam-roles): Storage Object Creator (roles/storage.objectCreator) "Allows users to
// create objects. Does not give permission to view, delete, or replace objects." An
// object has no owner who may do more: the uploader cannot delete what it created.
#[test]
fn object_creator_creates_but_cannot_view_or_delete_even_its_own_object() {
    let creator = "user:creator@example.com";
    let mut store = store(false);
    store.grant(BUCKET, creator, Role::ObjectCreator);
    let created = store.insert(creator, BUCKET, "runs/run-3/a.csv", Upload::new("x"));
    assert!(created.is_ok());
    let none = Preconditions::none();
    let view = store.get_media(creator, BUCKET, "runs/run-3/a.csv", None, None, none);
    assert_eq!(view.unwrap_err().code(), 403);
    let delete = store.delete(
        creator,
        BUCKET,
        "runs/run-3/a.csv",
        DeleteRequest::default(),
    );
    assert_eq!(
        delete.unwrap_err(),
        StorageError::Forbidden {
            principal: creator.into(),
            permission: "storage.objects.delete"
        }
    );
    assert_eq!(read(&store, "runs/run-3/a.csv").unwrap(), b"x");
}

// https://cloud.google.com/storage/docs/access-control/iam-roles, the table of predefined
// roles: Storage Object Admin (roles/storage.objectAdmin) "Grants full control over
// objects, including listing, creating, viewing, and deleting objects." (as the table is
// quoted in docs.rs cloud-storage, `StandardIamRole::ObjectAdmin`); Storage Object Viewer
// (roles/storage.objectViewer) "Grants access to view objects and their metadata,
// excluding ACLs. Can also list the objects and managed folders in a bucket." So a reader
// given objectAdmin can replace and delete any object, a reader given objectViewer none.
#[test]
fn object_admin_replaces_and_deletes_any_object_and_object_viewer_none() {
    let admin = "user:admin@example.com";
    let viewer = "user:viewer@example.com";
    let mut store = store(false);
    store.grant(BUCKET, admin, Role::ObjectAdmin);
    store.grant(BUCKET, viewer, Role::ObjectViewer);
    store
        .insert(OWNER, BUCKET, "a.csv", Upload::new("x"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "b.csv", Upload::new("y"))
        .unwrap();
    let denied = store.delete(viewer, BUCKET, "a.csv", DeleteRequest::default());
    assert_eq!(denied.unwrap_err().code(), 403);
    assert!(
        store
            .insert(admin, BUCKET, "a.csv", Upload::new("z"))
            .is_ok()
    );
    assert_eq!(read(&store, "a.csv").unwrap(), b"z");
    assert!(
        store
            .delete(admin, BUCKET, "b.csv", DeleteRequest::default())
            .is_ok()
    );
    assert!(read(&store, "b.csv").is_err());
}

// Not a documented behaviour but the simulator's own promise: an in-memory store is new
// every time, although its SQLite connection may be a pooled one, emptied (the audit
// trail, the objects, the bindings and the generation clock start again).
#[test]
fn every_in_memory_store_starts_empty_and_issues_the_same_generations() {
    let first_run = || {
        let mut store = store(false);
        let meta = store
            .insert(OWNER, BUCKET, "a.csv", Upload::new("x"))
            .unwrap();
        (
            meta.generation,
            store.audit().len(),
            store.list(OWNER, BUCKET, "").unwrap().len(),
        )
    };
    let fresh = first_run();
    for _ in 0..6 {
        assert_eq!(first_run(), fresh);
    }
    let mut reused = ObjectStore::in_memory();
    assert_eq!(
        reused.create_bucket(BUCKET, false),
        Ok(()),
        "the bucket of an earlier store is gone"
    );
    assert!(!reused.can(OWNER, BUCKET, sim_storage::Permission::Get));
}

// The state is in SQLite: a store reopened from its file has the same objects.
#[test]
fn a_file_backed_store_survives_reopening() {
    let dir = std::env::temp_dir().join(format!("sim-storage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bucket.db");
    let _ = std::fs::remove_file(&path);
    {
        let mut store = ObjectStore::open(&path).unwrap();
        store.create_bucket(BUCKET, false).unwrap();
        store.grant(BUCKET, OWNER, Role::ObjectAdmin);
        store
            .insert(OWNER, BUCKET, "a", Upload::new("kept"))
            .unwrap();
    }
    let store = ObjectStore::open(&path).unwrap();
    assert_eq!(read(&store, "a").unwrap(), b"kept");
    std::fs::remove_dir_all(&dir).unwrap();
}

// https://cloud.google.com/storage/docs/object-versioning (same sentence): deleting the
// live version without a generation keeps it as noncurrent; naming the generation
// deletes it for good. Noncurrent versions are not listed.
#[test]
fn with_versioning_an_unpinned_delete_keeps_a_noncurrent_version() {
    let mut store = store(true);
    let v1 = store
        .insert(OWNER, BUCKET, "f", Upload::new("one"))
        .unwrap();
    store
        .delete(OWNER, BUCKET, "f", DeleteRequest::default())
        .unwrap();
    assert_eq!(read(&store, "f").unwrap_err().code(), 404);
    assert!(store.list(OWNER, BUCKET, "").unwrap().is_empty());
    let kept = store.get_media(
        OWNER,
        BUCKET,
        "f",
        Some(v1.generation),
        None,
        Preconditions::none(),
    );
    assert_eq!(kept.unwrap().1, b"one");
    let forever = DeleteRequest {
        generation: Some(v1.generation),
        preconditions: Preconditions::none(),
    };
    store.delete(OWNER, BUCKET, "f", forever).unwrap();
    let gone = store.get_media(
        OWNER,
        BUCKET,
        "f",
        Some(v1.generation),
        None,
        Preconditions::none(),
    );
    assert_eq!(gone.unwrap_err().code(), 404);
}

// Generations are identities, not counters.
// https://cloud.google.com/storage/docs/object-versioning, the table of properties:
// "generation | Identifies the content (data) generation, and updates when the content of
// an object is replaced. There is no relationship between the generation numbers of
// unrelated objects, even if the objects are in the same bucket."
// The older page https://cloud.google.com/storage/docs/generations-preconditions (as
// stored in 2014): "The generation number is a monotonically increasing integer that
// updates when the data associated with an object name changes."
// Their shape, 16 digits (a timestamp in microseconds in practice, which no page
// promises): https://cloud.google.com/storage/docs/authentication/canonical-requests uses
// "https://storage.googleapis.com/example-bucket/cat-pics/tabby.jpeg?generation=1360887697105000",
// and so does the Java client's test `BlobIdTest.testToFromGsUtilUriWithGeneration`
// ("gs://bucket/path/to/blob#1360887697105000").
#[test]
fn generations_are_large_increasing_numbers_with_gaps() {
    let uploads = |store: &mut ObjectStore| -> Vec<(String, i64)> {
        ["a.csv", "a.csv", "b.csv", "a.csv", "b.csv", "a.csv"]
            .into_iter()
            .map(|name| {
                let meta = store.insert(OWNER, BUCKET, name, Upload::new("x")).unwrap();
                (meta.name, meta.generation)
            })
            .collect()
    };
    let mut store = store(true);
    let seen = uploads(&mut store);
    for (name, generation) in &seen {
        assert_eq!(generation.to_string().len(), 16, "{name}#{generation}");
        assert!(*generation > GENERATION_EPOCH_MICROS);
    }
    // Per object: increasing, and never the previous generation plus one.
    for object in ["a.csv", "b.csv"] {
        let of_object: Vec<i64> = seen
            .iter()
            .filter(|(n, _)| n == object)
            .map(|(_, g)| *g)
            .collect();
        for pair in of_object.windows(2) {
            assert!(pair[1] > pair[0], "{object}: {pair:?}");
            assert_ne!(pair[1], pair[0] + 1, "{object}: {pair:?}");
        }
    }
    // Deterministic: the same requests in the same order get the same numbers (no wall
    // clock), and another seed gives other numbers.
    assert_eq!(uploads(&mut store_seeded(DEFAULT_SEED_FOR_TEST)), seen);
    assert_ne!(uploads(&mut store_seeded(7)), seen);
}

const DEFAULT_SEED_FOR_TEST: u64 = sim_storage::DEFAULT_GENERATION_SEED;

fn store_seeded(seed: u64) -> ObjectStore {
    let mut store = ObjectStore::in_memory_seeded(seed);
    store.create_bucket(BUCKET, true).unwrap();
    store.grant(BUCKET, OWNER, Role::ObjectAdmin);
    store
}

// A store reopened from its file goes on from its own clock: a generation is never
// issued twice.
#[test]
fn a_reopened_store_never_issues_a_generation_again() {
    let dir = std::env::temp_dir().join(format!("sim-storage-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bucket.db");
    let _ = std::fs::remove_file(&path);
    let first = {
        let mut store = ObjectStore::open(&path).unwrap();
        store.create_bucket(BUCKET, false).unwrap();
        store.grant(BUCKET, OWNER, Role::ObjectAdmin);
        store.insert(OWNER, BUCKET, "a", Upload::new("1")).unwrap()
    };
    let mut store = ObjectStore::open(&path).unwrap();
    let second = store.insert(OWNER, BUCKET, "a", Upload::new("2")).unwrap();
    assert!(second.generation > first.generation);
    std::fs::remove_dir_all(&dir).unwrap();
}

// https://cloud.google.com/storage/docs/json_api/v1/status-codes, "409 Conflict": "The
// following is an example of an error response you receive if you try to create a bucket
// using the name of a bucket you already own." ... "message": "You already own this
// bucket. Please select another name." Nothing is replaced: the bucket keeps its
// versioning setting and its noncurrent generations.
#[test]
fn creating_a_bucket_that_exists_is_a_conflict_and_changes_nothing() {
    let mut store = store(true);
    let v1 = store
        .insert(OWNER, BUCKET, "f", Upload::new("one"))
        .unwrap();
    store
        .insert(OWNER, BUCKET, "f", Upload::new("two"))
        .unwrap();
    let again = store.create_bucket(BUCKET, false).unwrap_err();
    assert_eq!(again.code(), 409);
    // The noncurrent generation is still there, and versioning is still on: a third
    // upload keeps the second as noncurrent too.
    let noncurrent = |store: &ObjectStore, generation| {
        store
            .get_media(
                OWNER,
                BUCKET,
                "f",
                Some(generation),
                None,
                Preconditions::none(),
            )
            .map(|(_, data)| data)
    };
    assert_eq!(noncurrent(&store, v1.generation).unwrap(), b"one");
    let v2 = store
        .get(OWNER, BUCKET, "f", None, Preconditions::none())
        .unwrap();
    store
        .insert(OWNER, BUCKET, "f", Upload::new("three"))
        .unwrap();
    assert_eq!(noncurrent(&store, v2.generation).unwrap(), b"two");
}

// https://cloud.google.com/storage/docs/json_api/v1/objects/get, parameter
// ifGenerationNotMatch: "Makes the operation conditional on whether the object's current
// generation does not match the given value. If no live object exists, the precondition
// fails. Setting to 0 makes the operation succeed only if there is a live version of the
// object." https://cloud.google.com/storage/docs/request-preconditions, the table of
// preconditions (as the Node.js client's `File` documentation reproduces it):
// "ifGenerationNotMatch: Request proceeds if the generation of the target resource does
// not match the value used in the precondition. If the values match, the request fails
// with a 304 Not Modified response."
#[test]
fn if_generation_not_match_reads_only_what_changed() {
    let mut store = store(false);
    let held = store
        .insert(OWNER, BUCKET, "m.json", Upload::new("run-1"))
        .unwrap();
    let if_changed = |store: &ObjectStore, generation| {
        store.get_media(
            OWNER,
            BUCKET,
            "m.json",
            None,
            None,
            Preconditions::generation_not(generation),
        )
    };
    // Unchanged: 304 and no bytes.
    assert_eq!(if_changed(&store, held.generation).unwrap_err().code(), 304);
    store
        .insert(OWNER, BUCKET, "m.json", Upload::new("run-2"))
        .unwrap();
    // Replaced: the new bytes.
    assert_eq!(if_changed(&store, held.generation).unwrap().1, b"run-2");
    // 0: "only if there is a live version".
    assert!(if_changed(&store, 0).is_ok());
    let absent = store.insert(
        OWNER,
        BUCKET,
        "absent.json",
        Upload {
            preconditions: Preconditions::generation_not(0),
            ..Upload::new("x")
        },
    );
    assert_eq!(absent.unwrap_err().code(), 412);
}

// https://cloud.google.com/storage/docs/request-preconditions: "Preconditions are also
// often used when retrieving object metadata and data in successive requests, to ensure
// the object did not change in the time between the two requests." For metadata:
// https://cloud.google.com/python/docs/reference/storage/latest/generation_metageneration,
// "Using if_generation_match": "Passing the if_generation_match parameter to a method
// which retrieves a blob resource (e.g., Blob.reload) or modifies the blob (e.g.,
// Blob.update) makes the operation conditional on whether the blob's current generation
// matches the given value."; its section on if_metageneration_match says the same of the
// metageneration (paraphrased). The request-preconditions table (as the Node.js client's
// `File` documentation reproduces it), ifMetagenerationNotMatch: "Request proceeds if the
// meta-generation of the target resource does not match the value used in the
// precondition. If the values match, the request fails with a 304 Not Modified response."
#[test]
fn metageneration_preconditions_guard_reads_too() {
    let mut store = store(false);
    store
        .insert(
            OWNER,
            BUCKET,
            "m.json",
            Upload::new("run-1").cache_control("public, max-age=60"),
        )
        .unwrap();
    // A reader reads the metadata, decides from it, then fetches the data under
    // ifMetagenerationMatch; the metadata is patched in between.
    let meta = store
        .get(OWNER, BUCKET, "m.json", None, Preconditions::none())
        .unwrap();
    store
        .patch(
            OWNER,
            BUCKET,
            "m.json",
            Some("no-store"),
            Preconditions::none(),
        )
        .unwrap();
    let read = |store: &ObjectStore, pre| store.get_media(OWNER, BUCKET, "m.json", None, None, pre);
    assert_eq!(
        read(&store, Preconditions::metageneration(meta.metageneration))
            .unwrap_err()
            .code(),
        412
    );
    let current = store
        .get(OWNER, BUCKET, "m.json", None, Preconditions::none())
        .unwrap();
    let unchanged = Preconditions {
        if_metageneration_not_match: Some(current.metageneration),
        ..Preconditions::default()
    };
    assert_eq!(read(&store, unchanged).unwrap_err().code(), 304);
    assert_eq!(
        read(
            &store,
            Preconditions::metageneration(current.metageneration)
        )
        .unwrap()
        .1,
        b"run-1"
    );
}
