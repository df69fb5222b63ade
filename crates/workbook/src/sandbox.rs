//! The sandbox `grade-class` builds and runs submissions in, where bubblewrap (`bwrap`,
//! Debian's `bubblewrap` package) is installed and works: the whole file system
//! read-only, the teacher's workbook and every submission hidden, a private `/tmp`, no
//! network, no other process visible, no terminal, and everything killed with its parent. Without it
//! the grade says, on every row, that it was not sandboxed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A working bubblewrap.
#[derive(Clone, Debug)]
pub struct Sandbox {
    program: PathBuf,
}

/// What one sandboxed command may see and touch.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Folders hidden behind an empty file system (the teacher's workbook, submissions).
    pub hidden: Vec<PathBuf>,
    /// Folders shown read-only again on top of what is hidden.
    pub readable: Vec<PathBuf>,
    /// Folders the command may write to.
    pub writable: Vec<PathBuf>,
    /// Whether `/proc` exists inside (cargo needs it; graded tests do not, and without it
    /// no test can read its own memory).
    pub proc_fs: bool,
    /// The folder the command starts in.
    pub dir: PathBuf,
}

impl Sandbox {
    /// Bubblewrap, if it is on the PATH and can start a sandbox here (it cannot inside
    /// some containers, or where user namespaces are off).
    pub fn detect() -> Option<Sandbox> {
        let program = PathBuf::from("bwrap");
        let works = Command::new(&program)
            .args([
                "--ro-bind",
                "/",
                "/",
                "--unshare-all",
                "--die-with-parent",
                "--",
                "true",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        works.then_some(Sandbox { program })
    }

    /// `command`, run inside the sandbox under `policy`: the same program, arguments and
    /// environment.
    pub fn wrap(&self, command: &Command, policy: &Policy) -> Command {
        let mut wrapped = Command::new(&self.program);
        let bind = |wrapped: &mut Command, flag: &str, path: &Path| {
            wrapped.arg(flag).arg(path).arg(path);
        };
        wrapped.args(["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp"]);
        if policy.proc_fs {
            wrapped.args(["--proc", "/proc"]);
        } else {
            wrapped.args(["--tmpfs", "/proc"]);
        }
        for path in &policy.hidden {
            wrapped.arg("--tmpfs").arg(path);
        }
        for path in &policy.readable {
            bind(&mut wrapped, "--ro-bind", path);
        }
        for path in &policy.writable {
            bind(&mut wrapped, "--bind", path);
        }
        wrapped
            .args([
                "--unshare-all",
                "--die-with-parent",
                "--new-session",
                "--chdir",
            ])
            .arg(&policy.dir)
            .arg("--")
            .arg(command.get_program())
            .args(command.get_args());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(key, value),
                None => wrapped.env_remove(key),
            };
        }
        wrapped
    }
}
