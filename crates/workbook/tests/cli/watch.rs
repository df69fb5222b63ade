#![cfg(unix)]
//! `cargo labs watch` driven through a pipe (line mode: a letter, then Enter), in a
//! scratch workbook whose `cargo` is a script that prints a graded run in libtest's
//! format: the tests see the re-check on a save, the verdict and next step, the keys, the
//! switch to the next lab, and that quitting stops a running check. No test waits for a
//! time to pass; each reads the output until the line it expects (a generous limit only
//! turns a hang into a failure).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// Stands in for `cargo build … --examples -p PACKAGE`, run in the workbook's root: it
/// logs the call and reports `fake-graded` as the suite's executable, as cargo's JSON
/// messages do.
const FAKE_CARGO: &str = r#"#!/bin/sh
echo "$*" >> cargo-calls.log
for arg in "$@"; do package="$arg"; done
echo "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w#$package@0.1.0\",\"target\":{\"name\":\"graded-$package\",\"kind\":[\"example\"]},\"executable\":\"$PWD/fake-graded-$package\"}"
echo "{\"reason\":\"build-finished\",\"success\":true}"
"#;

/// Stands in for a graded suite's executable, speaking labkit's child protocol: read the
/// nonce, run the one test, print the result line. The second test passes once the lab's
/// learner file says FIXED.
const FAKE_GRADED: &str = r#"#!/bin/sh
read nonce
test="$2"
if [ -f hang ]; then
    echo $$ > hang.pid
    exec sleep 600
fi
if [ "$test" = the_first_claim_holds ] || grep -q FIXED @LEARNER_FILE@; then
    echo "<labkit-graded-result> $test passed $(@WORKBOOK@ __graded-proof "$test" "$nonce")"
    exit 0
fi
echo "the relay lost intent S2"
echo "stack backtrace:"
echo "   0: frame zero"
echo "note: Some details are omitted"
echo "replay: cargo labs replay 01 relay v2:0.2@a805e"
echo "<labkit-graded-result> $test failed"
"#;

/// The suite both labs name, as the grader reads its test list.
const FAKE_SUITE: &str = "graded::suite![the_first_claim_holds, the_second_claim_holds];\n";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A scratch workbook with the metadata and sources of labs 01 and 02, and a fake cargo.
fn scratch() -> PathBuf {
    let root = common::scratch_dir("watch");
    std::fs::write(root.join("book.toml"), "[book]\n").unwrap();
    for lab in ["01-outbox", "02-uncertain-outcomes"] {
        let from = repo().join("labs").join(lab);
        let to = root.join("labs").join(lab);
        std::fs::create_dir_all(to.join("src")).unwrap();
        for meta in ["lab.toml", "key.txt"] {
            if from.join(meta).exists() {
                std::fs::copy(from.join(meta), to.join(meta)).unwrap();
            }
        }
        common::copy_tree(&from.join("src"), &to.join("src"));
    }
    for suite in ["01_outbox.rs", "02_uncertain_outcomes.rs"] {
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests").join(suite), FAKE_SUITE).unwrap();
    }
    let fake_graded = FAKE_GRADED.replace("@WORKBOOK@", common::cli_binary());
    let graded_01 = fake_graded.replace("@LEARNER_FILE@", "labs/01-outbox/src/relay.rs");
    let graded_02 = fake_graded.replace(
        "@LEARNER_FILE@",
        "labs/02-uncertain-outcomes/src/settlement.rs",
    );
    for (name, script) in [
        ("fake-cargo", FAKE_CARGO),
        ("fake-graded-lab01-outbox", graded_01.as_str()),
        ("fake-graded-lab02-uncertain-outcomes", graded_02.as_str()),
    ] {
        let path = root.join(name);
        std::fs::write(&path, script).unwrap();
        let chmod = Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        assert!(chmod.success());
    }
    root
}

/// Answers one item of lab `n` and seals the predictions, as a learner would in another
/// terminal (`cargo labs predict N --seal` seals without running the lab).
fn seal(root: &Path, n: &str) {
    for args in [
        &["predict", n, "--set", "q01=yes"][..],
        &["predict", n, "--seal"],
    ] {
        let out = common::run_cli(root, args);
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
}

/// Appends `text` to `path` in one write, as a save that adds a line does. (A plain
/// `fs::write` truncates first: a watcher that looks between the truncation and the write
/// sees two saves, and its run numbers would depend on timing.)
fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

struct Watch {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watch {
    fn start(root: &Path, args: &[&str]) -> Watch {
        let mut child = Command::new(common::cli_binary())
            .arg("watch")
            .args(args)
            .current_dir(root)
            .env("BOUNDARY_LABS_ROOT", root)
            .env_remove("BOUNDARY_LABS_STATE")
            .env("CARGO", root.join("fake-cargo"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watch {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads output until a line contains `needle`; returns the lines read since the last
    /// call, that one included.
    fn until(&mut self, needle: &str) -> String {
        let start = self.seen.len();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(120)) {
                Ok(line) => {
                    let done = line.contains(needle);
                    self.seen.push(line);
                    if done {
                        return self.seen[start..].join("\n");
                    }
                }
                Err(_) => panic!(
                    "no line with `{needle}`; the output was:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    fn key(&mut self, key: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{key}").unwrap();
        stdin.flush().unwrap();
    }

    fn quit(mut self) -> String {
        self.key("q");
        self.until("watch ended");
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        self.seen.join("\n")
    }
}

#[test]
fn a_save_rechecks_the_lab_and_the_keys_act() {
    let root = scratch();
    let relay = root.join("labs/01-outbox/src/relay.rs");
    let mut watch = Watch::start(&root, &["01"]);

    // Nothing before the seal: no check, no hint; watch says to predict first.
    let waiting = watch.until("not yet:");
    assert!(waiting.contains("watching lab 01"), "{waiting}");
    assert!(waiting.contains("labs/01-outbox/src/relay.rs"), "{waiting}");
    assert!(waiting.contains("predictions: none yet"), "{waiting}");
    assert!(
        waiting.contains("Predict first (`cargo labs predict 01`"),
        "{waiting}"
    );
    append(&relay, "\n");
    assert!(
        watch
            .until("not yet:")
            .contains("changed: labs/01-outbox/src/relay.rs")
    );
    watch.key("h");
    watch.until("not yet:");
    watch.key("c");
    watch.until("not yet:");
    // Sealed in another terminal: the first check starts at once.
    seal(&root, "01");
    let first = watch.until("[1] verdict:");
    assert!(
        first.contains("[1] predictions sealed → checking lab 01"),
        "{first}"
    );
    assert!(
        !watch.seen.join("\n").contains("hint 1/"),
        "no hint before the seal"
    );
    assert!(
        first.contains("[1] verdict: ✗ 1/2 graded tests pass"),
        "{first}"
    );
    let next = watch.until("next:");
    assert!(
        next.contains("first failure: the_second_claim_holds"),
        "{next}"
    );
    assert!(next.contains("the relay lost intent S2"), "{next}");
    assert!(
        next.contains("replay: cargo labs replay 01"),
        "the end of the failure is kept: {next}"
    );
    assert!(!next.contains("frame zero"), "no backtrace: {next}");
    assert!(
        next.contains("next: make `the_second_claim_holds` pass"),
        "{next}"
    );

    // A one-line change in the learner's file: a re-check, green.
    append(&relay, "// FIXED\n");
    let second = watch.until("[2] verdict:");
    assert!(
        second.contains("changed: labs/01-outbox/src/relay.rs"),
        "{second}"
    );
    assert!(
        second.contains("[2] verdict: ✓ 2/2 graded tests pass"),
        "{second}"
    );
    let next = watch.until("next:");
    assert!(next.contains("lab 01 is complete"), "{next}");
    assert!(next.contains("n for lab 02"), "{next}");

    // h: the first hint (and it is remembered, as `cargo labs hint` does).
    watch.key("h");
    let hints = common::hint_count("outbox");
    let shown = watch.until("hint 1/");
    assert!(shown.contains(&format!("hint 1/{hints} (new):")), "{shown}");

    // An unknown key lists the keys; c checks again without a change.
    watch.key("x");
    assert!(watch.until("unknown key `x`").contains("q quit"));
    watch.key("c");
    assert!(watch.until("[3] verdict:").contains("check requested"));

    // n: the next lab, not sealed yet: not checked.
    watch.key("n");
    let lab2 = watch.until("not yet:");
    assert!(lab2.contains("watching lab 02"), "{lab2}");
    assert!(!lab2.contains("verdict"), "{lab2}");

    // A change to predictions.txt is read back (here: a malformed line), not graded.
    std::fs::write(
        root.join("labs/02-uncertain-outcomes/predictions.txt"),
        "this is not a prediction\n",
    )
    .unwrap();
    let predictions = watch.until("expected `id = answer`");
    assert!(predictions.contains("line 1"), "{predictions}");

    // r without predictions: the run's refusal is shown, and watching goes on.
    std::fs::remove_file(root.join("labs/02-uncertain-outcomes/predictions.txt")).unwrap();
    watch.key("r");
    assert!(watch.until("error:").contains("Predict first"));
    watch.until("not yet:");

    // Sealed: lab 02 is checked at once.
    seal(&root, "02");
    let lab2 = watch.until("[4] verdict:");
    assert!(
        lab2.contains("[4] verdict: ✗ 1/2 graded tests pass"),
        "{lab2}"
    );

    let all = watch.quit();
    assert!(!all.contains("[5]"), "no check without a reason: {all}");

    let calls = std::fs::read_to_string(root.join("cargo-calls.log")).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    let build = "build --keep-going --message-format=json-diagnostic-rendered-ansi --examples -p";
    assert_eq!(
        calls[..4],
        [
            format!("{build} lab01-outbox"),
            format!("{build} lab01-outbox"),
            format!("{build} lab01-outbox"),
            format!("{build} lab02-uncertain-outcomes"),
        ]
    );
    let hints = rusqlite::Connection::open(root.join(".labs/progress.db"))
        .unwrap()
        .query_row("SELECT shown FROM hint WHERE lab_id = 'outbox'", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    assert_eq!(hints, 1);

    // Lab 01 is graded green now, so `watch` without N starts at lab 02.
    let mut again = Watch::start(&root, &[]);
    assert!(again.until("watching lab").contains("watching lab 02"));
    again.quit();
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn quitting_does_not_wait_for_a_running_check_and_stops_it() {
    let root = scratch();
    std::fs::write(root.join("hang"), "").unwrap();
    seal(&root, "01");
    let mut watch = Watch::start(&root, &["01"]);
    watch.until("checking lab 01");
    // Wait until the (hanging) check runs.
    let pid_file = root.join("hang.pid");
    let pid = loop {
        match std::fs::read_to_string(&pid_file) {
            Ok(pid) if pid.ends_with('\n') => break pid.trim().to_string(),
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    assert!(Path::new("/proc").join(&pid).exists());
    let out = watch.quit();
    assert!(!out.contains("verdict:"), "{out}");
    // Killed is enough: a zombie waits for whichever process adopted it to reap it.
    // The kill itself is asynchronous, so allow it a moment to land.
    let alive = || {
        std::fs::read_to_string(Path::new("/proc").join(&pid).join("stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next())
                != Some("Z")
        })
    };
    for _ in 0..500 {
        if !alive() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(), "the check's process {pid} outlived watch");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn end_of_input_quits() {
    let root = scratch();
    let out = Command::new(common::cli_binary())
        .args(["watch", "01"])
        .env("BOUNDARY_LABS_ROOT", &root)
        .env("CARGO", root.join("fake-cargo"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("watching lab 01"), "{stdout}");
    assert!(stdout.trim_end().ends_with("watch ended"), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}
