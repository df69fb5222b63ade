//! The public cache in front of the origin.

use crate::ALL_USERS;
use crate::{Meta, ObjectStore, Preconditions, StorageError};
use std::collections::BTreeMap;

/// Which layer answered a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The strongly consistent origin.
    Origin,
    /// A cached copy, which may be older than the origin's live version.
    Cache,
}

/// A response from the cache: the data, its metadata as cached, and who answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    pub meta: Meta,
    pub data: Vec<u8>,
    pub layer: Layer,
    /// Seconds since the copy was fetched from the origin (0 when the origin answered).
    pub age: u64,
}

#[derive(Clone, Debug)]
struct Copy {
    meta: Meta,
    data: Vec<u8>,
    fetched_at: u64,
    max_age: u64,
}

/// The lifetime a cache may keep a response, from the object's Cache-Control; `None`
/// when it must not be cached. An object readable by `allUsers` without Cache-Control
/// gets the documented default `public, max-age=3600`.
pub fn cache_lifetime(cache_control: Option<&str>) -> Option<u64> {
    let value = cache_control.unwrap_or("public, max-age=3600");
    let directives: Vec<&str> = value.split(',').map(str::trim).collect();
    if directives
        .iter()
        .any(|d| matches!(*d, "private" | "no-store" | "no-cache"))
    {
        return None;
    }
    directives
        .iter()
        .find_map(|d| d.strip_prefix("max-age="))
        .and_then(|seconds| seconds.parse().ok())
}

/// A shared cache for anonymous (`allUsers`) reads of publicly readable objects. Time
/// is a logical clock in seconds that the caller passes in.
#[derive(Clone, Debug, Default)]
pub struct PublicCache {
    copies: BTreeMap<(String, String), Copy>,
}

impl PublicCache {
    pub fn new() -> Self {
        PublicCache::default()
    }

    /// An anonymous download of the live version of `bucket/name` at time `now`.
    pub fn get_media(
        &mut self,
        origin: &ObjectStore,
        now: u64,
        bucket: &str,
        name: &str,
    ) -> Result<Served, StorageError> {
        let key = (bucket.to_string(), name.to_string());
        if let Some(copy) = self.copies.get(&key) {
            let age = now.saturating_sub(copy.fetched_at);
            if age < copy.max_age {
                return Ok(Served {
                    meta: copy.meta.clone(),
                    data: copy.data.clone(),
                    layer: Layer::Cache,
                    age,
                });
            }
        }
        // A miss or a stale copy: ask the origin as an anonymous user.
        self.copies.remove(&key);
        let (meta, data) =
            origin.get_media(ALL_USERS, bucket, name, None, None, Preconditions::none())?;
        if let Some(max_age) = cache_lifetime(meta.cache_control.as_deref()) {
            self.copies.insert(
                key,
                Copy {
                    meta: meta.clone(),
                    data: data.clone(),
                    fetched_at: now,
                    max_age,
                },
            );
        }
        Ok(Served {
            meta,
            data,
            layer: Layer::Origin,
            age: 0,
        })
    }
}
