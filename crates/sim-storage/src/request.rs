//! What a request carries and answers: an object's metadata ([`Meta`]), preconditions
//! ([`Preconditions`]) and how they are checked, an upload ([`Upload`]), a delete
//! ([`DeleteRequest`]), and the audit trail's record of a request ([`AuditEntry`]).

use crate::StorageError;

/// The metadata of one generation of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub bucket: String,
    pub name: String,
    pub generation: i64,
    pub metageneration: i64,
    pub size: u64,
    pub cache_control: Option<String>,
    /// False for a noncurrent generation kept by Object Versioning.
    pub live: bool,
}

/// `ifGenerationMatch`, `ifGenerationNotMatch`, `ifMetagenerationMatch` and
/// `ifMetagenerationNotMatch`. `if_generation_match: Some(0)` means "only if there is no
/// live version of the object"; `if_generation_not_match: Some(0)` means "only if there
/// is one". A match that fails answers `412`; a not-match that fails (the value is the
/// current one) answers `304 Not Modified`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preconditions {
    pub if_generation_match: Option<i64>,
    pub if_generation_not_match: Option<i64>,
    pub if_metageneration_match: Option<i64>,
    pub if_metageneration_not_match: Option<i64>,
}

impl Preconditions {
    pub fn none() -> Self {
        Preconditions::default()
    }

    pub fn generation(generation: i64) -> Self {
        Preconditions {
            if_generation_match: Some(generation),
            ..Preconditions::default()
        }
    }

    /// `ifGenerationNotMatch`: "only if the live generation is not this one" (a reader
    /// that holds `generation` asks for the bytes only if they changed).
    pub fn generation_not(generation: i64) -> Self {
        Preconditions {
            if_generation_not_match: Some(generation),
            ..Preconditions::default()
        }
    }

    /// `ifMetagenerationMatch`: "only if the metadata is still this version".
    pub fn metageneration(metageneration: i64) -> Self {
        Preconditions {
            if_metageneration_match: Some(metageneration),
            ..Preconditions::default()
        }
    }

    pub fn does_not_exist() -> Self {
        Preconditions::generation(0)
    }
}

/// An `objects.insert` request body and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Upload {
    pub data: Vec<u8>,
    pub cache_control: Option<String>,
    pub preconditions: Preconditions,
}

impl Upload {
    pub fn new(data: impl Into<Vec<u8>>) -> Self {
        Upload {
            data: data.into(),
            ..Upload::default()
        }
    }

    pub fn if_generation_match(mut self, generation: i64) -> Self {
        self.preconditions.if_generation_match = Some(generation);
        self
    }

    pub fn if_metageneration_match(mut self, metageneration: i64) -> Self {
        self.preconditions.if_metageneration_match = Some(metageneration);
        self
    }

    pub fn cache_control(mut self, value: &str) -> Self {
        self.cache_control = Some(value.to_string());
        self
    }
}

/// An `objects.delete` request: which generation (the live one when `None`) and under
/// which preconditions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeleteRequest {
    pub generation: Option<i64>,
    pub preconditions: Preconditions,
}

/// One request as the audit trail recorded it (the simulator's truth, like a Data
/// Access audit log entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEntry {
    pub principal: String,
    pub method: String,
    pub bucket: String,
    pub name: String,
    /// The generation the request created or deleted, when it succeeded.
    pub generation: Option<i64>,
    pub status: u16,
}

/// Checks preconditions against the generation they target (`None`: no live object).
/// The not-match conditions are checked first, as Google's storage testbench does; a
/// not-match against no live object fails like a match ("If no live object exists, the
/// precondition fails").
pub(crate) fn check(pre: &Preconditions, target: Option<&Meta>) -> Result<(), StorageError> {
    let not_match = [
        (
            "ifGenerationNotMatch",
            "generation",
            pre.if_generation_not_match,
            target.map(|m| m.generation),
        ),
        (
            "ifMetagenerationNotMatch",
            "metageneration",
            pre.if_metageneration_not_match,
            target.map(|m| m.metageneration),
        ),
    ];
    for (parameter, property, unwanted, have) in not_match {
        let Some(unwanted) = unwanted else { continue };
        match have {
            None => {
                return Err(StorageError::PreconditionFailed {
                    detail: format!("{parameter}={unwanted}, and there is no live object"),
                });
            }
            Some(have) if have == unwanted => {
                return Err(StorageError::NotModified {
                    detail: format!(
                        "{parameter}={unwanted}, and the current {property} is that one"
                    ),
                });
            }
            Some(_) => {}
        }
    }
    if let Some(want) = pre.if_generation_match {
        let have = target.map(|m| m.generation).unwrap_or(0);
        if have != want {
            return Err(StorageError::PreconditionFailed {
                detail: format!("ifGenerationMatch={want}, current generation is {have}"),
            });
        }
    }
    if let Some(want) = pre.if_metageneration_match {
        let have = target.map(|m| m.metageneration).unwrap_or(0);
        if have != want {
            return Err(StorageError::PreconditionFailed {
                detail: format!("ifMetagenerationMatch={want}, current metageneration is {have}"),
            });
        }
    }
    Ok(())
}
