//! The CLI's one error type. Its kind decides the exit code, so a script (or a test) can
//! tell a learner's mistake from a failing lab from a broken machine.

use std::path::Path;

/// Every way a `cargo labs` command can fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: an unknown lab or command, a malformed file, a wrong flag. Exit 2.
    #[error("{0}")]
    Input(String),
    /// The lab itself failed: a graded test, a compile error, a hang. Exit 1.
    #[error("{0}")]
    Lab(String),
    /// The machine: a file that cannot be read or written, a program that cannot start,
    /// a database that cannot be opened. Exit 3.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The machine a grader runs on cannot grade (a missing dependency, no sandbox, a
    /// full disk): never a learner's zero. The message says what to fix. Exit 4.
    #[error("{0}")]
    Environment(String),
    /// The progress store. Exit 3.
    #[error("the progress store: {0}")]
    Store(#[from] rusqlite::Error),
    /// The command was stopped from outside (Ctrl-C). Exit 130.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }

    pub fn lab(message: impl Into<String>) -> Error {
        Error::Lab(message.into())
    }

    /// An I/O error on `path`, saying what was being done: "cannot write labs/01/…".
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }

    pub fn reading(path: &Path, source: std::io::Error) -> Error {
        Error::io(format!("cannot read {}", path.display()), source)
    }

    pub fn writing(path: &Path, source: std::io::Error) -> Error {
        Error::io(format!("cannot write {}", path.display()), source)
    }

    /// The process exit code for this kind of failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) => 2,
            Error::Lab(_) => 1,
            Error::Io { .. } | Error::Store(_) => 3,
            Error::Environment(_) => 4,
            Error::Interrupted => 130,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn each_kind_has_its_exit_code() {
        assert_eq!(Error::input("x").exit_code(), 2);
        assert_eq!(Error::lab("x").exit_code(), 1);
        let io = Error::io("cannot read x", std::io::Error::other("gone"));
        assert_eq!(io.exit_code(), 3);
        assert_eq!(io.to_string(), "cannot read x: gone");
        assert_eq!(Error::Interrupted.exit_code(), 130);
        assert_eq!(Error::Environment("x".into()).exit_code(), 4);
    }
}
