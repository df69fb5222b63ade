//! The error responses of the simulated JSON API ([`StorageError`]).

use std::fmt;

/// An error response, named by its HTTP status as the JSON API reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// `404 Not Found`: no such bucket, object or generation.
    NotFound { what: String },
    /// `403 Forbidden`: the principal lacks a permission.
    Forbidden {
        principal: String,
        permission: &'static str,
    },
    /// `304 Not Modified`: a not-match precondition (`ifGenerationNotMatch`,
    /// `ifMetagenerationNotMatch`) named the current value. Not an error in HTTP terms,
    /// but the request did nothing and returned no body, as the client libraries report
    /// it (an exception of its own).
    NotModified { detail: String },
    /// `409 Conflict`: the bucket already exists.
    Conflict { what: String },
    /// `412 Precondition Failed`.
    PreconditionFailed { detail: String },
    /// `416 Requested Range Not Satisfiable`.
    RangeNotSatisfiable,
}

impl StorageError {
    /// The HTTP status code of the response.
    pub fn code(&self) -> u16 {
        match self {
            StorageError::NotFound { .. } => 404,
            StorageError::Forbidden { .. } => 403,
            StorageError::NotModified { .. } => 304,
            StorageError::Conflict { .. } => 409,
            StorageError::PreconditionFailed { .. } => 412,
            StorageError::RangeNotSatisfiable => 416,
        }
    }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::NotFound { what } => write!(f, "404 Not Found: {what}"),
            StorageError::Forbidden {
                principal,
                permission,
            } => write!(f, "403 Forbidden: {principal} does not have {permission}"),
            StorageError::NotModified { detail } => write!(f, "304 Not Modified: {detail}"),
            StorageError::Conflict { what } => write!(f, "409 Conflict: {what} already exists"),
            StorageError::PreconditionFailed { detail } => {
                write!(f, "412 Precondition Failed: {detail}")
            }
            StorageError::RangeNotSatisfiable => write!(f, "416 Requested Range Not Satisfiable"),
        }
    }
}

impl std::error::Error for StorageError {}

pub(crate) fn not_found(bucket: &str, name: &str, generation: Option<i64>) -> StorageError {
    let what = match generation {
        Some(g) => format!("gs://{bucket}/{name}#{g}"),
        None => format!("gs://{bucket}/{name}"),
    };
    StorageError::NotFound { what }
}
