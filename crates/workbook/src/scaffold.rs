//! `cargo labs new NN-slug "Title"`: scaffolds a lab in the layout of CONTRIBUTING.md
//! that the consistency gate accepts as it is: the starter compiles and fails one graded
//! test on an invariant, the solution passes, the observed verdicts equal the answer keys,
//! the chapter's includes resolve and the published hashes are right. The scenario is a
//! small placeholder (a sender retries after lost responses; the receiver must recognise
//! a retry): replace it with the lab's own, keeping the shape.

use crate::error::{Error as Failure, Result};
use crate::meta::{LabMeta, load_labs, predictions_page};
use crate::write_atomically;
use std::path::{Path, PathBuf};

/// The names one lab's files are made of, all derived from `NN-slug`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// `11-retries`: the folder under labs/ and solutions/, the chapter's file name.
    pub slug: String,
    /// `11`
    pub number: String,
    /// `retries`: the stable id in lab.toml.
    pub id: String,
    /// `retries`: the `[lib] name`, shared by starter and solution.
    pub lib: String,
    /// `Retried writes`
    pub title: String,
}

impl Names {
    /// Validates `NN-slug` (two digits, a dash, lower-case words joined by dashes) and a
    /// one-line title.
    pub fn parse(slug: &str, title: &str) -> std::result::Result<Names, String> {
        let usage = format!(
            "`{slug}` is not a lab folder name: use two digits, a dash and lower-case words joined by dashes, e.g. `11-retried-writes`"
        );
        let (number, id) = slug.split_once('-').ok_or_else(|| usage.clone())?;
        let words_ok = id.split('-').all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
        if number.len() != 2
            || !number.chars().all(|c| c.is_ascii_digit())
            || !id.starts_with(|c: char| c.is_ascii_lowercase())
            || !words_ok
        {
            return Err(usage);
        }
        let title = title.trim();
        if title.is_empty() || title.contains(['\n', '\r']) {
            return Err("the title is one non-empty line, e.g. \"Retried writes\"".into());
        }
        Ok(Names {
            slug: slug.to_string(),
            number: number.to_string(),
            id: id.to_string(),
            lib: id.replace('-', "_"),
            title: title.to_string(),
        })
    }

    fn package(&self) -> String {
        format!("lab{}", self.slug)
    }

    fn solution_package(&self) -> String {
        format!("solution{}", self.slug)
    }

    fn suite(&self) -> String {
        format!("tests/{}.rs", self.slug.replace('-', "_"))
    }

    fn chapter(&self) -> String {
        format!("book/src/{}.md", self.slug)
    }

    /// Fills a template: `@NN@`, `@SLUG@`, `@ID@`, `@LIB@`, `@TITLE@`, `@PACKAGE@`,
    /// `@SOLUTION@`, `@SUITE@`, `@CHAPTER@`.
    fn fill(&self, template: &str) -> String {
        template
            .replace("@NN@", &self.number)
            .replace("@SLUG@", &self.slug)
            .replace("@ID@", &self.id)
            .replace("@LIB@", &self.lib)
            .replace("@TITLE@", &self.title)
            .replace("@PACKAGE@", &self.package())
            .replace("@SOLUTION@", &self.solution_package())
            .replace("@SUITE@", &self.suite())
            .replace("@CHAPTER@", &self.chapter())
    }
}

/// A TOML basic string for `text` (quotes and backslashes escaped).
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// The files of a new lab, as (path relative to the root, content), lab.toml last
/// (it needs the published hashes of the others) and without the predictions page.
pub fn files(names: &Names) -> Vec<(String, String)> {
    let lab = format!("labs/{}", names.slug);
    let solution = format!("solutions/{}", names.slug);
    let lab_manifest = names.fill(LAB_MANIFEST).replace(
        "\"@DESCRIPTION@\"",
        &toml_string(&format!(
            "Lab {}: {} (the learner's crate).",
            names.number, names.title
        )),
    );
    let solution_manifest = names.fill(SOLUTION_MANIFEST).replace(
        "\"@DESCRIPTION@\"",
        &toml_string(&format!(
            "Lab {} reference solution: the learner's crate with the build phase done.",
            names.number
        )),
    );
    vec![
        (format!("{lab}/Cargo.toml"), lab_manifest),
        (format!("{lab}/src/lib.rs"), names.fill(LAB_LIB)),
        (format!("{lab}/src/main.rs"), names.fill(LAB_MAIN)),
        (format!("{lab}/src/observe.rs"), names.fill(OBSERVE)),
        (format!("{lab}/src/harness.rs"), names.fill(HARNESS)),
        (format!("{lab}/src/receiver.rs"), names.fill(STARTER)),
        (format!("{solution}/Cargo.toml"), solution_manifest),
        (format!("{solution}/src/lib.rs"), names.fill(SOLUTION_LIB)),
        (format!("{solution}/src/receiver.rs"), names.fill(SOLUTION)),
        (names.suite(), names.fill(SUITE)),
        (names.chapter(), names.fill(CHAPTER)),
    ]
}

/// The files whose git blob ids go into `[published]`.
fn published_paths(names: &Names) -> Vec<String> {
    let lab = format!("labs/{}", names.slug);
    vec![
        format!("{lab}/src/harness.rs"),
        format!("{lab}/src/observe.rs"),
        format!("{lab}/src/receiver.rs"),
        names.suite(),
    ]
}

/// Adds `- [Title](NN-slug.md)` to SUMMARY.md among the chapters, in number order.
pub fn add_to_summary(summary: &str, names: &Names) -> String {
    let entry = format!("- [{}]({}.md)", names.title, names.slug);
    let chapter_number = |line: &str| -> Option<String> {
        let file = line.trim().strip_prefix("- [")?.rsplit_once("](")?.1;
        let (number, _) = file.split_once('-')?;
        (number.len() == 2 && number.chars().all(|c| c.is_ascii_digit()))
            .then(|| number.to_string())
    };
    let mut lines: Vec<String> = summary.lines().map(str::to_string).collect();
    let numbered: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| chapter_number(l).map(|n| (i, n)))
        .collect();
    let at = match numbered.iter().find(|(_, n)| *n > names.number) {
        Some((i, _)) => *i,
        None => numbered.last().map(|(i, _)| i + 1).unwrap_or(lines.len()),
    };
    lines.insert(at, entry);
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Scaffolds the lab under `root` and returns the paths it wrote. Refuses to overwrite
/// anything, and refuses a number or id another lab already has.
pub fn scaffold(root: &Path, slug: &str, title: &str) -> Result<Vec<PathBuf>> {
    let names = Names::parse(slug, title).map_err(Failure::input)?;
    let existing = load_labs(root)?;
    if let Some(lab) = existing
        .labs
        .iter()
        .find(|l| l.meta.number == names.number || l.meta.id == names.id)
    {
        return Err(Failure::input(format!(
            "lab {} ({}) already has that number or id; pick another",
            lab.meta.number,
            lab.slug()
        )));
    }
    let files = files(&names);
    let lab_toml = format!("labs/{}/lab.toml", names.slug);
    let predictions = format!("book/src/predictions/{}.md", names.slug);
    for path in files
        .iter()
        .map(|(p, _)| p.as_str())
        .chain([lab_toml.as_str(), predictions.as_str()])
    {
        if root.join(path).exists() {
            return Err(Failure::input(format!(
                "{path} exists already; `cargo labs new` never overwrites a file"
            )));
        }
    }
    let summary_path = root.join("book/src/SUMMARY.md");
    let summary =
        std::fs::read_to_string(&summary_path).map_err(|e| Failure::reading(&summary_path, e))?;
    let mut written = Vec::new();
    let write = |path: &str, text: &str, written: &mut Vec<PathBuf>| -> Result<()> {
        let full = root.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Failure::writing(parent, e))?;
        }
        std::fs::write(&full, text).map_err(|e| Failure::writing(&full, e))?;
        written.push(full);
        Ok(())
    };
    for (path, text) in &files {
        write(path, text, &mut written)?;
    }
    // The templates are formatted; a long library name can still wrap a line differently.
    let sources: Vec<&PathBuf> = written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    let _ = std::process::Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(&sources)
        .output();
    let mut published = String::new();
    for path in published_paths(&names) {
        let blob = crate::blob::file_blob(&root.join(&path))
            .map_err(|e| Failure::reading(&root.join(&path), e))?;
        published.push_str(&format!("\"{path}\" = \"{blob}\"\n"));
    }
    let lab_toml_text = names
        .fill(LAB_TOML)
        .replace("\"@TITLE_TOML@\"", &toml_string(&names.title))
        .replace("@PUBLISHED@\n", &published);
    let meta: LabMeta = toml::from_str(&lab_toml_text)
        .map_err(|e| Failure::input(format!("the generated lab.toml does not parse: {e}")))?;
    write(&lab_toml, &lab_toml_text, &mut written)?;
    let lab = crate::meta::Lab::new(root.join("labs").join(&names.slug), meta)
        .map_err(|e| Failure::input(format!("the generated lab.toml is incomplete: {e}")))?;
    write(&predictions, &predictions_page(&lab), &mut written)?;
    write_atomically(&summary_path, &add_to_summary(&summary, &names))
        .map_err(|e| Failure::writing(&summary_path, e))?;
    written.push(summary_path);
    Ok(written)
}

const LAB_MANIFEST: &str = r#"[package]
name = "@PACKAGE@"
description = "@DESCRIPTION@"
version.workspace = true
edition.workspace = true
rust-version.workspace = true
publish.workspace = true
license.workspace = true

[lib]
name = "@LIB@"
path = "src/lib.rs"

[[bin]]
name = "@PACKAGE@"
path = "src/main.rs"

[[test]]
name = "graded"
path = "../../@SUITE@"
harness = false

[dependencies]
labkit.workspace = true
serde_json.workspace = true

[lints]
workspace = true
"#;

const SOLUTION_MANIFEST: &str = r#"[package]
name = "@SOLUTION@"
description = "@DESCRIPTION@"
version.workspace = true
edition.workspace = true
rust-version.workspace = true
publish.workspace = true
license.workspace = true

[lib]
name = "@LIB@"
path = "src/lib.rs"

[[test]]
name = "graded"
path = "../../@SUITE@"
harness = false

[dependencies]
labkit.workspace = true
serde_json.workspace = true

[lints]
workspace = true
"#;

const LAB_LIB: &str = r#"//! Lab @NN@ — @TITLE@.
//!
//! * `observe`: the scenario the learner predicts, then runs. Complete; run it with
//!   `cargo labs run @NN@`.
//! * `harness`: the world the build phase is graded in (a sender that retries after lost
//!   responses, crash points). Complete.
//! * `receiver`: **your part** — the receiver that applies each message once. Grade it
//!   with `cargo labs check @NN@`.

pub mod harness;
pub mod observe;
pub mod receiver;
"#;

const LAB_MAIN: &str = r#"use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: @LIB@::observe::run,
        scenarios: @LIB@::harness::SCENARIOS,
        figures: @LIB@::harness::figures,
    })
}
"#;

const SOLUTION_LIB: &str = r#"//! Lab @NN@ reference solution: the learner's crate with `receiver.rs` solved. The observe
//! phase and the harness are the lab's own files, compiled here unchanged.

#[path = "../../../labs/@SLUG@/src/harness.rs"]
pub mod harness;
#[path = "../../../labs/@SLUG@/src/observe.rs"]
pub mod observe;
pub mod receiver;
"#;

const OBSERVE: &str = r#"//! The observe phase: a receiver that applies every delivery, and a sender that retries
//! after a lost response. Every verdict below is computed from what the code just did;
//! the answer keys live in lab.toml.

use crate::harness::{Delivery, Ledger, messages};
use labkit::{Observation, Report};

// ANCHOR: naive
/// The naive receiver: applies whatever arrives.
fn apply_every_delivery(ledger: &mut Ledger, delivery: &Delivery) {
    ledger.apply(delivery);
}
// ANCHOR_END: naive

/// Runs the scenario and reports what it observed.
pub fn run() -> Report {
    let mut obs = Observation::new("@SLUG@");
    let message = &messages()[0];
    let mut ledger = Ledger::default();
    // The first attempt is applied; its response is lost, so the sender saw nothing.
    apply_every_delivery(&mut ledger, message);
    obs.check(
        "a lost response means the effect was not applied",
        ledger.times_applied(&message.message_id) == 0,
    );
    // The sender retries with the same message id.
    apply_every_delivery(&mut ledger, message);
    let applied = ledger.times_applied(&message.message_id);
    obs.check(
        "a retry after a lost response applies the effect again",
        applied > 1,
    );
    let answer = match applied {
        0 => "a",
        1 => "b",
        _ => "c",
    };
    obs.answer(
        "effects-after-retry",
        answer,
        format!("{} was applied {applied} time(s)", message.message_id),
    );
    obs.finish(
        None,
        serde_json::json!({ "applied": applied, "total": ledger.total() }),
    )
}
"#;

const HARNESS: &str = r#"//! The world the build phase is graded in: a sender delivers each message to the
//! receiver over a network that can lose the response, retries what it did not see
//! acknowledged, and can crash before a retry. Complete; the graded suite drives it.

use crate::receiver::receive;
use labkit::fault::{self, Crash, Exploration, Fate, Glyph, Scope, Sim, Token, Verdict, Violation};

/// One delivery: the message's identity and the effect it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub message_id: String,
    pub amount: i64,
}

/// The receiver's durable state: every effect it applied, in order.
#[derive(Debug, Default)]
pub struct Ledger {
    applied: Vec<Delivery>,
}

impl Ledger {
    /// Applies one effect.
    pub fn apply(&mut self, delivery: &Delivery) {
        self.applied.push(delivery.clone());
    }

    /// Has an effect with this message id been applied?
    pub fn is_applied(&self, message_id: &str) -> bool {
        self.times_applied(message_id) > 0
    }

    pub fn times_applied(&self, message_id: &str) -> usize {
        self.applied
            .iter()
            .filter(|d| d.message_id == message_id)
            .count()
    }

    pub fn total(&self) -> i64 {
        self.applied.iter().map(|d| d.amount).sum()
    }
}

/// The messages every scenario sends.
pub fn messages() -> Vec<Delivery> {
    vec![
        Delivery {
            message_id: "m1".into(),
            amount: 100,
        },
        Delivery {
            message_id: "m2".into(),
            amount: 250,
        },
    ]
}

// ANCHOR: send
/// Sends one message until the sender sees it acknowledged. A response can be lost after
/// the receiver applied the effect; the sender then retries with the same message id, or
/// crashes first.
pub fn send(sim: &mut Sim, ledger: &mut Ledger, delivery: &Delivery) -> Result<(), Crash> {
    loop {
        let fate = sim.fate("network:deliver", &[Fate::Ok, Fate::AppliedResponseLost]);
        receive(ledger, delivery);
        let glyph = if fate.is_indefinite() {
            Glyph::Indefinite
        } else {
            Glyph::Normal
        };
        sim.event("sender", glyph, || {
            let seen = if fate == Fate::Ok {
                "OK"
            } else {
                "DEADLINE_EXCEEDED"
            };
            (
                format!("deliver {} -> {seen}", delivery.message_id),
                fate.label().to_string(),
            )
        });
        if fate == Fate::Ok {
            return Ok(());
        }
        sim.crash_point("sender:before-retry")?;
    }
}
// ANCHOR_END: send

/// Delivers the outbox from the sender's durable position `next` onwards.
fn send_all(
    sim: &mut Sim,
    ledger: &mut Ledger,
    outbox: &[Delivery],
    next: &mut usize,
) -> Result<(), Crash> {
    while let Some(delivery) = outbox.get(*next) {
        send(sim, ledger, delivery)?;
        *next += 1;
    }
    Ok(())
}

/// The graded scenario: the sender delivers every message, crashing and restarting as
/// the schedule says; once the faults are over, every message must have taken effect
/// exactly once.
pub fn delivery_scenario(sim: &mut Sim) -> Verdict {
    let outbox = messages();
    let mut ledger = Ledger::default();
    let mut next = 0;
    for _attempt in 0..3 {
        match send_all(sim, &mut ledger, &outbox, &mut next) {
            Ok(()) => break,
            Err(crash) => sim.event("sender", Glyph::Recover, || {
                ("restart from the outbox".into(), format!("after {crash}"))
            }),
        }
    }
    sim.heal();
    if send_all(sim, &mut ledger, &outbox, &mut next).is_err() {
        return Err(Violation::new(
            "a healed run does not crash",
            &["The sender crashed after the faults were over.".into()],
        ));
    }
    for delivery in &outbox {
        let applied = ledger.times_applied(&delivery.message_id);
        if applied != 1 {
            return Err(Violation::new(
                "every message takes effect exactly once",
                &[
                    format!("Let {} be a message the sender sent.", delivery.message_id),
                    format!("Then the receiver applied it {applied} time(s)."),
                    "Contradiction: a retry with the same message id is the same effect.".into(),
                ],
            ));
        }
    }
    Ok(())
}

/// Every schedule of `delivery_scenario` with up to `max_faults` faults.
pub fn explore_delivery(max_faults: usize) -> Exploration {
    let scope = Scope {
        lab: "@NN@",
        scenario: "delivery",
        max_faults,
    };
    fault::explore(scope, delivery_scenario)
}

fn replay_delivery(token: &Token) -> fault::Replay {
    fault::replay(token, delivery_scenario)
}

/// The scenarios `cargo labs replay @NN@` knows.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[("delivery", replay_delivery)];

/// The chapter's SVG figures, as (file name, content); `cargo labs figures` writes them
/// to book/src/figures. Draw them with `labkit::figure::Sequence` or `BarChart`.
pub fn figures() -> Vec<(&'static str, String)> {
    Vec::new()
}
"#;

const STARTER: &str = r#"//! The build phase: your receiver.
//!
//! `receive` runs once per delivery. The sender retries a delivery whose response was
//! lost, with the same message id, so one message can arrive more than once.
//!
//! Goal, under every schedule the graded suite explores: every message takes effect
//! exactly once. Grade it with `cargo labs check @NN@`.

use crate::harness::{Delivery, Ledger};

// ANCHOR: receive
/// Applies the effect one delivery carries.
pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
    // TODO: a retry carries the message id of the first attempt. Recognise an effect
    // that is applied already (`Ledger::is_applied`) before applying it.
    ledger.apply(delivery);
}
// ANCHOR_END: receive
"#;

const SOLUTION: &str = r#"//! The build phase, solved: the receiver recognises a retry by its message id.

use crate::harness::{Delivery, Ledger};

/// Applies the effect one delivery carries, once per message id.
pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
    if !ledger.is_applied(&delivery.message_id) {
        ledger.apply(delivery);
    }
}
"#;

const SUITE: &str = r#"//! Lab @NN@ graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check @NN@`.

use labkit::fault::{self, Scope, Token};

use @LIB@::harness::{delivery_scenario, explore_delivery};

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    the_fault_free_run_applies_every_message_once,
    every_message_takes_effect_once_when_responses_are_lost,
    every_schedule_replays_identically,
];

fn the_fault_free_run_applies_every_message_once() {
    explore_delivery(0).assert_ok();
}

fn every_message_takes_effect_once_when_responses_are_lost() {
    let exploration = explore_delivery(2);
    exploration.assert_ok();
    assert!(
        exploration.per_level[2] > 0,
        "two-fault schedules were explored"
    );
}

fn every_schedule_replays_identically() {
    // Every schedule with up to one fault of the code under test, each replayed twice.
    let scope = Scope {
        lab: "@NN@",
        scenario: "delivery",
        max_faults: 1,
    };
    let sample: Vec<Token> = fault::explore_all(scope, delivery_scenario)
        .runs
        .into_iter()
        .map(|run| run.token)
        .collect();
    let checked = fault::check_determinism(&sample, delivery_scenario);
    assert_eq!(checked, Ok(sample.len()));
}
"#;

const LAB_TOML: &str = r#"id = "@ID@"
number = "@NN@"
title = "@TITLE_TOML@"
package = "@PACKAGE@"
solution_package = "@SOLUTION@"
chapter = "@CHAPTER@"
graded_suite = "@SUITE@"
learner_files = ["src/receiver.rs"]
time_limit_secs = 120
starter_fails = ["every_message_takes_effect_once_when_responses_are_lost"]
hints = [
    "Read the failing timeline: which delivery did the receiver apply twice, and what did the sender see the first time?",
    "A retry carries the same message id as the first attempt. Look it up with `Ledger::is_applied` before applying.",
]

[points]
predictions = 10
graded = 20

[published]
@PUBLISHED@

[[check]]
claim = "a lost response means the effect was not applied"
holds = false
explain = "Misconception. The receiver applied the effect; only the response was lost. The sender cannot tell the two apart."

[[check]]
claim = "a retry after a lost response applies the effect again"
holds = true
explain = "A receiver that applies whatever arrives turns every retry into a second effect. Identity is what makes a retry a retry."

[[question]]
id = "effects-after-retry"
prompt = "The first attempt is applied and its response lost; the sender retries with the same message id. How many times has the naive receiver applied the effect?"
answer = "c"
explain = "Twice: the first attempt was applied although the sender saw no response, and the retry was applied again."
[question.options]
a = "None: the sender saw no response."
b = "Once: the retry replaces the first attempt."
c = "Twice."
"#;

const CHAPTER: &str = r#"# @TITLE@

> Scaffolded by `cargo labs new`. Replace this text with the chapter; keep its sections.
> Cite the real service's documentation for every behaviour the lab models.

## What the service promises, and what it does not

A response that does not arrive is not a failure: the receiver may have applied the
effect. Retrying is safe only when the receiver recognises the retry.

## The observe phase

The receiver of the observe phase applies whatever arrives:

```rust,ignore
{{#include ../../labs/@SLUG@/src/observe.rs:naive}}
```

### Predict

{{#include predictions/@SLUG@.md}}

Record your answers with `cargo labs predict @NN@`, then `cargo labs run @NN@`.

### What the run shows

Say here what the run observed, after the predictions, never before them: which claims
held, which misconceptions did not, and what that means for the boundary.

## The build phase

The harness sends every message until it sees a response, and may crash before a retry:

```rust,ignore
{{#include ../../labs/@SLUG@/src/harness.rs:send}}
```

You write the receiver in `labs/@SLUG@/src/receiver.rs`:

```rust,ignore
{{#include ../../labs/@SLUG@/src/receiver.rs:receive}}
```

`cargo labs check @NN@` explores every schedule with up to two lost responses or crashes.

## Simplifications

- Say where the simulator departs from the real service, and why the lab still holds.

## Acceptance criteria for a real system

- Every effect carries an identity chosen before the first attempt.
- The receiver records the identity in the same transaction as the effect.

## References

- The documentation page behind every behaviour the lab models.
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_folder_name() {
        let names = Names::parse("11-retried-writes", " Retried writes ").unwrap();
        assert_eq!(names.number, "11");
        assert_eq!(names.id, "retried-writes");
        assert_eq!(names.lib, "retried_writes");
        assert_eq!(names.title, "Retried writes");
        assert_eq!(names.suite(), "tests/11_retried_writes.rs");
        for bad in [
            "1-x",
            "11",
            "11-",
            "11-Bad",
            "11-a--b",
            "11-9lives",
            "ab-cd",
            "11-a_b",
        ] {
            assert!(Names::parse(bad, "T").is_err(), "`{bad}` is refused");
        }
        assert!(Names::parse("11-ok", "two\nlines").is_err());
        assert!(Names::parse("11-ok", "  ").is_err());
    }

    #[test]
    fn the_chapter_joins_summary_in_number_order() {
        let summary = "# Summary\n\n[Intro](introduction.md)\n\n# Chapters\n\n- [One](01-a.md)\n- [Three](03-c.md)\n\n[Glossary](glossary.md)\n";
        let two = Names::parse("02-b", "Two").unwrap();
        let four = Names::parse("04-d", "Four").unwrap();
        assert!(
            add_to_summary(summary, &two)
                .contains("- [One](01-a.md)\n- [Two](02-b.md)\n- [Three](03-c.md)\n")
        );
        assert!(
            add_to_summary(summary, &four)
                .contains("- [Three](03-c.md)\n- [Four](04-d.md)\n\n[Glossary](glossary.md)")
        );
    }
}
