//! The sandbox `grade-class` builds and runs submissions in, where bubblewrap (`bwrap`,
//! Debian's `bubblewrap` package) works: a file system that shows, read-only, only the
//! system's programs and libraries, the linker's configuration, the Rust toolchain and the
//! cargo registry, plus the scratch tree and build folder it grades in — no other file of
//! the machine, the teacher's workbook and home included; a private `/tmp` of capped
//! size; no network; no other process; no terminal; for graded tests, none of the
//! grader's environment variables (a token in them would be one print away from the
//! grade report); everything killed with its parent.
//! Without it, `grade-class` refuses to grade unless the teacher says `--no-sandbox`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A working bubblewrap.
#[derive(Clone, Debug)]
pub struct Sandbox {
    program: PathBuf,
}

/// What one sandboxed command may see and touch, besides the system and the toolchain.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Folders shown read-only.
    pub readable: Vec<PathBuf>,
    /// Folders the command may write to.
    pub writable: Vec<PathBuf>,
    /// Whether `/proc` exists inside (cargo needs it; graded tests do not, and without it
    /// no test can read its own memory through the file system).
    pub proc_fs: bool,
    /// Whether cargo may write to its registry (to unpack the crates the teacher's own
    /// build fetched, once, before any submission is built).
    pub registry_writable: bool,
    /// The size of the private `/tmp`.
    pub tmp_bytes: u64,
    /// Whether the command sees only the environment variables set on it (and `PATH`),
    /// none of the grader's own.
    pub clear_env: bool,
    /// The folder the command starts in.
    pub dir: PathBuf,
}

/// The system folders every build needs: programs, libraries, the loader's cache, the
/// C toolchain's alternatives.
const SYSTEM: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
];

/// Where rustup and cargo keep the toolchain and the registry.
pub fn toolchain_homes() -> (PathBuf, PathBuf) {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let rustup =
        std::env::var_os("RUSTUP_HOME").map_or_else(|| home.join(".rustup"), PathBuf::from);
    let cargo = std::env::var_os("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from);
    (rustup, cargo)
}

impl Sandbox {
    /// Bubblewrap, if it can start a sandbox here; otherwise what bubblewrap said (it
    /// cannot inside some containers, or where user namespaces are off, as on GitHub's
    /// Ubuntu runners until the AppArmor restriction is lifted).
    pub fn detect() -> Result<Sandbox, String> {
        let program =
            PathBuf::from(std::env::var_os("BOUNDARY_BWRAP").unwrap_or_else(|| "bwrap".into()));
        let out = Command::new(&program)
            .args([
                "--ro-bind",
                "/",
                "/",
                "--unshare-all",
                "--die-with-parent",
                "--clearenv",
                "--",
                "true",
            ])
            .stdin(Stdio::null())
            .output();
        match out {
            Ok(out) if out.status.success() => Ok(Sandbox { program }),
            Ok(out) => {
                let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
                Err(format!(
                    "bubblewrap cannot start a sandbox here ({}): {}",
                    out.status,
                    if said.is_empty() {
                        "it printed no error".to_string()
                    } else {
                        said
                    }
                ))
            }
            Err(e) => Err(format!(
                "bubblewrap (`{}`) cannot be run: {e}",
                program.display()
            )),
        }
    }

    /// The system folders and the toolchain, read-only; cargo's home on a scratch file
    /// system with its registry and binaries on top, so cargo can take its locks.
    fn base(&self, wrapped: &mut Command, policy: &Policy) {
        for path in SYSTEM.iter().map(Path::new) {
            match std::fs::read_link(path) {
                Ok(target) => wrapped.arg("--symlink").arg(target).arg(path),
                Err(_) if path.exists() => wrapped.arg("--ro-bind").arg(path).arg(path),
                Err(_) => continue,
            };
        }
        let (rustup, cargo) = toolchain_homes();
        if rustup.exists() {
            wrapped.arg("--ro-bind").arg(&rustup).arg(&rustup);
        }
        wrapped.arg("--tmpfs").arg(&cargo);
        for part in ["bin", "registry", "git", "config.toml", "config"] {
            let path = cargo.join(part);
            if path.exists() {
                let flag = match part {
                    "registry" | "git" if policy.registry_writable => "--bind",
                    _ => "--ro-bind",
                };
                wrapped.arg(flag).arg(&path).arg(&path);
            }
        }
    }

    /// `command`, run inside the sandbox under `policy`: the same program, arguments and
    /// environment.
    pub fn wrap(&self, command: &Command, policy: &Policy) -> Command {
        let mut wrapped = Command::new(&self.program);
        self.base(&mut wrapped, policy);
        // Both memory file systems a process can write, `/tmp` and `/dev/shm` (bubblewrap's
        // `/dev` has one, as big as the machine allows), have the same cap.
        let tmp_bytes = policy.tmp_bytes.max(1 << 20).to_string();
        wrapped.args(["--dev", "/dev", "--size", &tmp_bytes, "--tmpfs", "/tmp"]);
        wrapped.args(["--size", &tmp_bytes, "--tmpfs", "/dev/shm"]);
        wrapped.args(if policy.proc_fs {
            ["--proc", "/proc"]
        } else {
            ["--tmpfs", "/proc"]
        });
        for path in &policy.readable {
            wrapped.arg("--ro-bind").arg(path).arg(path);
        }
        for path in &policy.writable {
            wrapped.arg("--bind").arg(path).arg(path);
        }
        if policy.clear_env {
            wrapped
                .arg("--clearenv")
                .args(["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]);
            for (key, value) in command.get_envs() {
                if let Some(value) = value {
                    wrapped.arg("--setenv").arg(key).arg(value);
                }
            }
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
        let (_, cargo) = toolchain_homes();
        wrapped.env("CARGO_HOME", cargo);
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(key, value),
                None => wrapped.env_remove(key),
            };
        }
        wrapped
    }
}
