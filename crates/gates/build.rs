//! Looks for the tools some gates need: the mdBook CLI, and Chromium for the browser
//! checks. When one is missing, outside CI, the tests that need it are compiled with
//! `#[ignore = "…"]`, so `cargo test` reports them as ignored, with the reason, in its own
//! lines and summary, never as `ok`. Under `CI` nothing is ignored: a test whose tool is
//! missing runs and fails, saying what to install.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_mdbook)");
    println!("cargo::rustc-check-cfg=cfg(no_chromium)");
    println!("cargo::rustc-check-cfg=cfg(as_root)");
    // Root is exempt from the cap on a graded test's processes (RLIMIT_NPROC): the test
    // that proves the cap is ignored, with that reason, when the tests run as root.
    let uid = std::process::Command::new("id").arg("-u").output();
    if uid.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0") {
        println!("cargo::rustc-cfg=as_root");
    }
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let chromium: Vec<String> = match std::env::var("CHROMIUM") {
        Ok(path) => vec![path],
        Err(_) => ["chromium", "chromium-browser", "google-chrome"]
            .map(String::from)
            .to_vec(),
    };
    for (cfg, names) in [
        ("no_mdbook", vec!["mdbook".to_string()]),
        ("no_chromium", chromium),
    ] {
        match names.iter().find_map(|name| find(name)) {
            // A tool removed later is noticed: the build script runs again.
            Some(found) => println!("cargo::rerun-if-changed={}", found.display()),
            None => {
                if !in_ci {
                    println!("cargo::rustc-cfg={cfg}");
                }
                // A tool installed later is noticed too: a folder on PATH changes.
                for dir in path_dirs() {
                    println!("cargo::rerun-if-changed={}", dir.display());
                }
            }
        }
    }
}

/// The folders of `PATH` that exist.
fn path_dirs() -> Vec<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| d.is_dir())
        .collect()
}

/// The executable `name` is: itself when it is a path, else the first match on `PATH`.
fn find(name: &str) -> Option<PathBuf> {
    let direct = Path::new(name);
    if direct.components().count() > 1 {
        return direct.is_file().then(|| direct.to_path_buf());
    }
    let exe = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    path_dirs()
        .into_iter()
        .map(|dir| dir.join(&exe))
        .find(|candidate| candidate.is_file())
}
