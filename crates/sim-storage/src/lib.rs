//! A simulated object store modelled on Cloud Storage, for the workbook's labs.
//!
//! It keeps the real service's vocabulary: **buckets** hold **objects**; every upload
//! of an object creates a new **generation**, and every metadata update of one
//! generation bumps its **metageneration**. Generations are large numbers (16 digits,
//! like the microsecond timestamps the real service hands out), increasing, with gaps:
//! identities to compare, never numbers to compute with. Mutations and reads take the
//! JSON API's preconditions (`ifGenerationMatch`, `ifGenerationNotMatch`,
//! `ifMetagenerationMatch`, `ifMetagenerationNotMatch`, with `ifGenerationMatch=0`
//! meaning "only if there is no live version") and fail with `412 Precondition Failed`
//! when a match does not hold, `304 Not Modified` when a not-match names the current
//! value. Reads can name a `generation` and a byte range. Creating a bucket that exists
//! is `409 Conflict`. Permissions follow the predefined IAM roles (`roles/storage.objectViewer`,
//! `objectCreator`, `objectUser`, `objectAdmin`), including the rule that replacing an
//! object needs `storage.objects.delete` as well as `storage.objects.create`.
//!
//! The origin ([`ObjectStore`]) is strongly consistent: a read or a list after a
//! successful write sees the write. A [`PublicCache`] in front of it serves publicly
//! readable objects and may answer with an old copy until the copy's `max-age` ends;
//! every response says which layer answered ([`Layer`]).
//!
//! State lives in SQLite (in memory, or in a file when a scenario needs the store to
//! outlive a process), so that "the bucket" is durable state a crash does not touch.
//! Bucket settings, IAM bindings and the generation clock are also kept in memory
//! (written through), and an in-memory store's connection is emptied and reused by the
//! next in-memory store on the same thread: an exploration opens one store per schedule.
//! A reused store is as empty as a new one (`tests/documented.rs` checks it).
//!
//! # Simplifications (say them in the chapter too)
//!
//! * Generations come from one logical clock per store, in microseconds from
//!   [`GENERATION_EPOCH_MICROS`], moved on by a seeded gap of 1 ms to 4 s at each upload:
//!   deterministic (the same requests in the same order get the same numbers; no wall
//!   clock is read), increasing for every object and across objects. The real service
//!   promises only that a generation identifies one version of one object; code must
//!   compare generations for equality and never compute with them.
//! * No soft delete, retention, holds, ETags, composite or resumable uploads,
//!   customer-supplied encryption. Object Versioning is a per-bucket
//!   flag: when it is off, a replaced or deleted generation is gone at once; when on, it
//!   stays readable by its generation number.
//! * IAM is bucket-level only (uniform bucket-level access), takes effect immediately
//!   (the real service documents that granting and revoking access is eventually
//!   consistent), and knows four roles. The permission check runs before the
//!   precondition check.
//! * The cache is one shared cache with a logical clock in seconds that the caller
//!   passes in; no `no-cache` revalidation, no `Age` header, no eviction before
//!   `max-age`. It never caches objects that `allUsers` cannot read.
//! * The audit trail ([`ObjectStore::audit`]) stands in for Cloud Audit Logs: it is the
//!   simulator's truth about who wrote what, for the labs' checkers, not for application
//!   code.
//! * Batch requests exist only for deletes, as in the real JSON API (no batch uploads);
//!   each part is an independent request.

mod cache;
mod error;
mod iam;
mod request;
mod store;

pub use cache::{Layer, PublicCache, Served, cache_lifetime};
pub use error::StorageError;
pub use iam::{Permission, Role};
pub use request::{AuditEntry, DeleteRequest, Meta, Preconditions, Upload};
pub use store::{DEFAULT_GENERATION_SEED, GENERATION_EPOCH_MICROS, ObjectStore};

/// The principal that stands for "anyone on the internet" in IAM bindings.
pub const ALL_USERS: &str = "allUsers";
