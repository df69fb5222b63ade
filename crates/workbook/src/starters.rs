//! The published starters: the learner files as the workbook ships them, for `reset`,
//! the book and the tests, found without git in the student edition.

use crate::error::{Error, Result};
use crate::meta::Lab;
use std::path::Path;
use std::process::Command;

/// Where the student edition keeps the published starters, for `reset` without git.
pub const STARTERS: &str = ".starters";

/// The published text of one learner file: the copy under `.starters/` (the student
/// edition), the file itself while it is unchanged, or git's copy of the published blob
/// (the teacher's edition).
pub fn published_starter(root: &Path, lab: &Lab, file: &str) -> Result<String> {
    let key = lab.learner_path(file);
    let blob = lab
        .meta
        .published
        .get(&key)
        .ok_or_else(|| Error::input(format!("lab.toml has no published version of {key}")))?;
    let copy = root.join(STARTERS).join(lab.slug()).join(file);
    if let Ok(text) = std::fs::read_to_string(&copy) {
        if crate::blob::blob_id(text.as_bytes()) == *blob {
            return Ok(text);
        }
        return Err(Error::input(format!(
            "{} is not the published starter (its hash differs from lab.toml's)",
            copy.display()
        )));
    }
    if let Ok(text) = std::fs::read_to_string(lab.dir.join(file))
        && crate::blob::blob_id(text.as_bytes()) == *blob
    {
        return Ok(text);
    }
    let out = Command::new("git")
        .args(["cat-file", "blob", blob])
        .current_dir(root)
        .output()
        .map_err(|e| {
            Error::input(format!(
                "no published copy of {key}: {} does not exist and git cannot be run ({e})",
                copy.display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::input(format!(
            "no published copy of {key}: {} does not exist and git does not have blob {blob}",
            copy.display()
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| Error::input(e.to_string()))
}
