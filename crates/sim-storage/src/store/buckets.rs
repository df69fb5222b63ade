//! Buckets (created with Object Versioning on or off) and their IAM bindings, and the
//! permission check every request makes first.

use super::ObjectStore;
use super::db::Cached;
use crate::StorageError;
use crate::iam::{Permission, Role};
use rusqlite::params;

impl ObjectStore {
    /// `buckets.insert`, with Object Versioning on or off. A bucket that exists is a
    /// `409 Conflict`: its settings and its objects (noncurrent generations included) are
    /// left as they were.
    pub fn create_bucket(&mut self, bucket: &str, versioning: bool) -> Result<(), StorageError> {
        let created = self
            .db
            .execute_cached(
                "INSERT OR IGNORE INTO buckets (name, versioning) VALUES (?1, ?2)",
                params![bucket, versioning],
            )
            .expect("create bucket");
        if created == 0 {
            return Err(StorageError::Conflict {
                what: format!("gs://{bucket}"),
            });
        }
        self.buckets.insert(bucket.to_string(), versioning);
        Ok(())
    }

    /// Adds an IAM binding (member, role) to the bucket's policy.
    pub fn grant(&mut self, bucket: &str, member: &str, role: Role) {
        self.db
            .execute_cached(
                "INSERT OR IGNORE INTO bindings (bucket, member, role) VALUES (?1, ?2, ?3)",
                params![bucket, member, role.name()],
            )
            .expect("grant");
        self.bindings
            .insert((bucket.to_string(), member.to_string(), role));
    }

    /// Whether `principal` holds `permission` on `bucket` (directly or via `allUsers`).
    pub fn can(&self, principal: &str, bucket: &str, permission: Permission) -> bool {
        self.bindings.iter().any(|(b, member, role)| {
            b == bucket && (member == principal || member == "allUsers") && role.grants(permission)
        })
    }

    pub(super) fn require(
        &self,
        principal: &str,
        bucket: &str,
        permission: Permission,
    ) -> Result<(), StorageError> {
        self.versioning(bucket)?;
        if self.can(principal, bucket, permission) {
            Ok(())
        } else {
            Err(StorageError::Forbidden {
                principal: principal.to_string(),
                permission: permission.name(),
            })
        }
    }

    pub(super) fn versioning(&self, bucket: &str) -> Result<bool, StorageError> {
        self.buckets
            .get(bucket)
            .copied()
            .ok_or_else(|| StorageError::NotFound {
                what: format!("gs://{bucket}"),
            })
    }
}
