//! The `cargo labs` command line: progress, predictions, runs, graded checks, hints,
//! resets, grades (a learner's own, and a class's), the student edition, replays,
//! figures and the book. It runs labs as child processes and reads what they report; it
//! never links lab code.

pub mod blob;
pub mod bookpp;
pub mod class;
pub mod cli;
pub mod error;
pub mod export;
pub mod grade;
pub mod integrity;
pub mod keys;
pub mod lab_binary;
pub mod meta;
pub mod mutants;
pub mod observed;
pub mod pages;
pub mod poll;
pub mod predictions;
pub mod process;
pub mod progress;
pub mod reader;
pub mod sandbox;
pub mod scaffold;
pub mod serve;
pub mod settings;
pub mod similarity;
pub mod starters;
pub mod steps;
pub mod text;
pub mod watch;
pub mod workbook;

use error::{Error, Result};
use std::path::{Path, PathBuf};

/// Finds the workbook's root: `BOUNDARY_LABS_ROOT`, or the nearest folder upwards from
/// `start` that holds `book.toml` and `labs/`.
pub fn find_root(start: &Path) -> Result<PathBuf> {
    if let Some(root) = std::env::var_os("BOUNDARY_LABS_ROOT") {
        return Ok(PathBuf::from(root));
    }
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join("book.toml").is_file() && d.join("labs").is_dir() {
            return Ok(d.to_path_buf());
        }
        dir = d.parent();
    }
    Err(Error::input(format!(
        "{} is not inside the workbook (no book.toml and labs/ above it); run `cargo labs` from the cloned folder",
        start.display()
    )))
}

/// Where progress lives: `BOUNDARY_LABS_STATE`, or `.labs/` in the root.
pub fn state_dir(root: &Path) -> PathBuf {
    std::env::var_os("BOUNDARY_LABS_STATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".labs"))
}

/// Writes a file through a temporary file and a rename, so a crash never leaves half a
/// file where the learner's file was.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp-write");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// Copies `path` to a fresh `path.backup-N` and returns the backup's path.
pub fn backup(path: &Path) -> std::io::Result<PathBuf> {
    let mut n = 1;
    loop {
        let name = format!(
            "{}.backup-{n}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let candidate = path.with_file_name(name);
        if !candidate.exists() {
            std::fs::copy(path, &candidate)?;
            return Ok(candidate);
        }
        n += 1;
    }
}
