//! The object requests: `objects.insert`, `get` (metadata or media, whole or a byte
//! range), `patch`, `delete` (alone or in a batch) and `list`, each checked against its
//! preconditions and recorded in the audit trail.

use super::ObjectStore;
use super::db::Cached;
use crate::error::not_found;
use crate::iam::Permission;
use crate::request::check;
use crate::{DeleteRequest, Meta, Preconditions, StorageError, Upload};
use rusqlite::params;
use std::ops::Range;

impl ObjectStore {
    /// `objects.insert`: uploads a new generation, which becomes the live version.
    pub fn insert(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        upload: Upload,
    ) -> Result<Meta, StorageError> {
        let result = self.insert_inner(principal, bucket, name, upload);
        let outcome = result.as_ref().map(|m| Some(m.generation));
        self.record(principal, "objects.insert", bucket, name, outcome);
        result
    }

    fn insert_inner(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        upload: Upload,
    ) -> Result<Meta, StorageError> {
        self.require(principal, bucket, Permission::Create)?;
        let versioning = self.versioning(bucket)?;
        let live = self.meta(bucket, name, None);
        check(&upload.preconditions, live.as_ref())?;
        if let Some(old) = &live {
            // Replacing an existing object also needs storage.objects.delete.
            self.require(principal, bucket, Permission::Delete)?;
            self.retire(bucket, name, old.generation, versioning);
        }
        let generation = self.next_generation();
        self.db
            .execute_cached(
                "INSERT INTO objects (bucket, name, generation, metageneration, data, cache_control, live)
                 VALUES (?1, ?2, ?3, 1, ?4, ?5, 1)",
                params![bucket, name, generation, upload.data, upload.cache_control],
            )
            .expect("insert object");
        Ok(Meta {
            bucket: bucket.to_string(),
            name: name.to_string(),
            generation,
            metageneration: 1,
            size: upload.data.len() as u64,
            cache_control: upload.cache_control,
            live: true,
        })
    }

    /// `objects.get` (metadata): the live version, or the named generation.
    pub fn get(
        &self,
        principal: &str,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
        preconditions: Preconditions,
    ) -> Result<Meta, StorageError> {
        self.require(principal, bucket, Permission::Get)?;
        let meta = self
            .meta(bucket, name, generation)
            .ok_or_else(|| not_found(bucket, name, generation))?;
        check(&preconditions, Some(&meta))?;
        Ok(meta)
    }

    /// `objects.get?alt=media`: the data of the live version or of the named
    /// generation, whole or one byte range (`Range: bytes=start-(end-1)`).
    pub fn get_media(
        &self,
        principal: &str,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
        range: Option<Range<u64>>,
        preconditions: Preconditions,
    ) -> Result<(Meta, Vec<u8>), StorageError> {
        let meta = self.get(principal, bucket, name, generation, preconditions)?;
        let data: Vec<u8> = self
            .db
            .prepare_cached_query_row(
                "SELECT data FROM objects WHERE bucket = ?1 AND name = ?2 AND generation = ?3",
                params![bucket, name, meta.generation],
                |row| row.get(0),
            )
            .expect("read object data");
        let data = match range {
            None => data,
            Some(r) => {
                let size = data.len() as u64;
                if r.start >= size || r.start >= r.end {
                    return Err(StorageError::RangeNotSatisfiable);
                }
                data[r.start as usize..r.end.min(size) as usize].to_vec()
            }
        };
        Ok((meta, data))
    }

    /// `objects.patch`: changes the metadata of the live version (here: Cache-Control)
    /// and bumps its metageneration.
    pub fn patch(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        cache_control: Option<&str>,
        preconditions: Preconditions,
    ) -> Result<Meta, StorageError> {
        let result = (|| {
            self.require(principal, bucket, Permission::Update)?;
            let live = self
                .meta(bucket, name, None)
                .ok_or_else(|| not_found(bucket, name, None))?;
            check(&preconditions, Some(&live))?;
            self.db
                .execute_cached(
                    "UPDATE objects SET metageneration = metageneration + 1, cache_control = ?4
                     WHERE bucket = ?1 AND name = ?2 AND generation = ?3",
                    params![bucket, name, live.generation, cache_control],
                )
                .expect("patch object");
            Ok(self
                .meta(bucket, name, Some(live.generation))
                .expect("patched"))
        })();
        let outcome = result.as_ref().map(|m| Some(m.generation));
        self.record(principal, "objects.patch", bucket, name, outcome);
        result
    }

    /// `objects.delete`: the live version, or the named generation.
    pub fn delete(
        &mut self,
        principal: &str,
        bucket: &str,
        name: &str,
        request: DeleteRequest,
    ) -> Result<(), StorageError> {
        let result = (|| {
            self.require(principal, bucket, Permission::Delete)?;
            let target = self
                .meta(bucket, name, request.generation)
                .ok_or_else(|| not_found(bucket, name, request.generation))?;
            check(&request.preconditions, Some(&target))?;
            // Deleting the live version without naming a generation keeps it as
            // noncurrent when versioning is on; naming a generation deletes it for good.
            let versioning = self.versioning(bucket)?;
            let keep = target.live && versioning && request.generation.is_none();
            self.retire(bucket, name, target.generation, keep);
            Ok(target.generation)
        })();
        let outcome = result.as_ref().map(|g| Some(*g));
        self.record(principal, "objects.delete", bucket, name, outcome);
        result.map(|_| ())
    }

    /// A JSON API batch of deletes: each part is handled as its own request, in order,
    /// and answered on its own. Nothing makes the parts succeed or fail together.
    pub fn batch_delete(
        &mut self,
        principal: &str,
        bucket: &str,
        parts: &[(&str, DeleteRequest)],
    ) -> Vec<Result<(), StorageError>> {
        parts
            .iter()
            .map(|(name, request)| self.delete(principal, bucket, name, *request))
            .collect()
    }

    /// `objects.list`: the live objects whose names start with `prefix`, by name.
    pub fn list(
        &self,
        principal: &str,
        bucket: &str,
        prefix: &str,
    ) -> Result<Vec<Meta>, StorageError> {
        self.require(principal, bucket, Permission::List)?;
        let mut statement = self
            .db
            .prepare_cached(
                "SELECT name, generation, metageneration, length(data), cache_control
                 FROM objects WHERE bucket = ?1 AND live = 1 AND substr(name, 1, length(?2)) = ?2
                 ORDER BY name",
            )
            .expect("prepare list");
        let rows = statement
            .query_map(params![bucket, prefix], |row| {
                Ok(Meta {
                    bucket: bucket.to_string(),
                    name: row.get(0)?,
                    generation: row.get(1)?,
                    metageneration: row.get(2)?,
                    size: row.get::<_, i64>(3)? as u64,
                    cache_control: row.get(4)?,
                    live: true,
                })
            })
            .expect("list objects");
        Ok(rows.map(|r| r.expect("read listed object")).collect())
    }
}
