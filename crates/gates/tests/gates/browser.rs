//! What the browser gates share (the book in a browser, the class report, the live
//! poll's page): finding Chromium, the flags it runs with, and a page's text without its
//! tags. One module since the gates are one binary.

use std::path::Path;
use std::process::Command;

/// True under CI, where a missing tool fails its test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The Chromium binary: `CHROMIUM`, or the first of the usual names that runs; each
/// caller says what a missing one means for its test.
pub fn find_chromium() -> Option<String> {
    let candidates: Vec<String> = match std::env::var("CHROMIUM") {
        Ok(path) => vec![path],
        Err(_) => ["chromium", "chromium-browser", "google-chrome"]
            .map(String::from)
            .to_vec(),
    };
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The flags of tooling.md §4: headless, no sandbox (CI runs as root), no GPU, nothing
/// that reaches the network, the fresh profile `profile`, one device pixel per CSS pixel
/// and a `width`×`height` window; virtual time lets the page's scripts finish.
pub fn flags(profile: &Path, width: u32, height: u32) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-proxy-server",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--virtual-time-budget=5000",
    ]
    .map(String::from)
    .into_iter()
    .chain([
        format!("--window-size={width},{height}"),
        format!("--user-data-dir={}", profile.display()),
    ])
    .collect()
}

/// `html` with every tag replaced by a space; its entities stay as written.
pub fn without_tags(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}
