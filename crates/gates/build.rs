//! Looks for Chromium once per build of the gates: where none runs, and the build is not
//! CI's, the browser tests are compiled as ignored (`cfg(no_chromium)`), so `cargo test`
//! lists them as ignored with their reason instead of passing them. Under `CI` they are
//! always compiled to run, and fail where Chromium is missing.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_chromium)");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    // Installing or removing a browser changes a folder of PATH: look again then.
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path).filter(|d| d.is_dir()) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let candidates: Vec<String> = match std::env::var("CHROMIUM") {
        Ok(path) => vec![path],
        Err(_) => ["chromium", "chromium-browser", "google-chrome"]
            .map(String::from)
            .to_vec(),
    };
    let found = candidates.iter().any(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !found && !in_ci {
        println!("cargo::rustc-cfg=no_chromium");
    }
}
