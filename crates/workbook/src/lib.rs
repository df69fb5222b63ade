//! The `cargo labs` command line: progress, predictions, runs, graded checks, hints,
//! resets, grades, replays, figures and the book. It runs labs as cargo subprocesses and
//! reads their JSON reports; it never links lab code.

pub mod commands;
pub mod grade;
pub mod meta;
pub mod predictions;
pub mod progress;
pub mod runner;
pub mod scaffold;
pub mod watch;

use std::path::{Path, PathBuf};

/// An error the CLI reports to the learner: a message, and the exit code to end with.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    /// Bad input: an unknown lab, a malformed file, a wrong flag (exit code 2).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }

    /// The lab itself failed: a graded test, a compile error, a hang (exit code 1).
    pub fn lab(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::input(message)
    }
}

/// Finds the workbook's root: `BOUNDARY_LABS_ROOT`, or the nearest folder upwards from
/// `start` that holds `book.toml` and `labs/`.
pub fn find_root(start: &Path) -> Result<PathBuf, String> {
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
    Err(format!(
        "{} is not inside the workbook (no book.toml and labs/ above it); run `cargo labs` from the cloned folder",
        start.display()
    ))
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
