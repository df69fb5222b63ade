//! `cargo labs new NN-slug "Title"`: scaffolds a lab in the layout of CONTRIBUTING.md
//! that the gates accept as it is: the starter compiles and fails one graded test on an
//! invariant, the solution passes, the observed verdicts equal the answer keys, the
//! catalogue's wrong solutions are rejected, the chapter's includes resolve and the
//! published hashes are right.
//!
//! What it writes is the template lab in `crates/workbook/templates`: a small but whole
//! lab (a sender retries after lost responses; the learner's receiver must recognise a
//! retry), laid out there as the workbook lays out a lab (`labs/99-template`,
//! `solutions/99-template` with its catalogue, `tests/99_template.rs`,
//! `book/src/99-template.md` and its figure). Every relative path in it (the solution's
//! `#[path]`s, the manifests' suite, the chapter's includes) is therefore right both
//! there and in the new lab, and only names change: [`substitutions`] lists them. The
//! catalogue's entries are mutant.toml files whose `[[edit]]`s apply to the solution's
//! `receiver.rs`; their names are filled as the solution's are, so they still apply. The
//! template lab and its solution are workspace members, so rustfmt, clippy,
//! rust-analyzer and the root `cargo test` see them as the code they are.
//!
//! The templates are in the teacher's edition only; `build.rs` sets
//! `cfg(scaffold_templates)` when they are there to be embedded.

use crate::error::{Error as Failure, Result};
use crate::meta::{LabMeta, load_labs, predictions_page};
use crate::write_atomically;
use std::path::{Path, PathBuf};

/// One file of the template lab: its path under `crates/workbook/templates` (which is
/// also its path in the workbook, once the names are replaced) and its text.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    pub path: &'static str,
    pub text: &'static str,
    /// Copied byte for byte (a generated figure, whose numbers are not names).
    pub verbatim: bool,
}

macro_rules! templates {
    ($($kind:ident $path:literal,)*) => {
        &[$(Template {
            path: $path,
            text: include_str!(concat!("../templates/", $path)),
            verbatim: templates!(@verbatim $kind),
        },)*]
    };
    (@verbatim filled) => { false };
    (@verbatim verbatim) => { true };
}

/// Every file of the template lab.
#[cfg(scaffold_templates)]
pub const TEMPLATES: &[Template] = templates![
    filled "labs/99-template/Cargo.toml",
    filled "labs/99-template/harness/Cargo.toml",
    filled "labs/99-template/lab.toml",
    filled "labs/99-template/src/lib.rs",
    filled "labs/99-template/src/main.rs",
    filled "labs/99-template/src/graded.rs",
    filled "labs/99-template/src/world.rs",
    filled "labs/99-template/src/receiver.rs",
    filled "labs/99-template/src/scenarios.rs",
    filled "labs/99-template/src/invariants.rs",
    filled "labs/99-template/src/figures.rs",
    filled "labs/99-template/src/observe/mod.rs",
    filled "solutions/99-template/Cargo.toml",
    filled "solutions/99-template/src/receiver.rs",
    filled "solutions/99-template/src/graded.rs",
    filled "solutions/99-template/mutants/identity-by-amount/mutant.toml",
    filled "solutions/99-template/mutants/lost-response-means-not-applied/mutant.toml",
    filled "tests/99_template.rs",
    filled "book/src/99-template.md",
    filled "book/src/99-template-after-the-run.md",
    verbatim "book/src/figures/99-template-lost-response.svg",
];

/// The student edition has no templates.
#[cfg(not(scaffold_templates))]
pub const TEMPLATES: &[Template] = templates![];

/// The names one lab's files are made of, all derived from `NN-slug`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// `11-retries`: the folder under labs/ and solutions/, the chapter's file name.
    pub slug: String,
    /// `11`
    pub number: String,
    /// `retries`: the stable id in lab.toml.
    pub id: String,
    /// `retries`: the `[lib] name` of the lab's harness, which the learner's file uses.
    pub lib: String,
    /// `Retried writes`
    pub title: String,
}

/// Names a library cannot have: Rust's keywords, and the crates a lab already uses.
const NOT_A_LIBRARY: &[&str] = &[
    "as",
    "async",
    "await",
    "box",
    "break",
    "const",
    "continue",
    "crate",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "union",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
    "alloc",
    "core",
    "graded",
    "labkit",
    "proc_macro",
    // The learner's module of a scaffolded lab: its file, receiver.rs.
    "receiver",
    "serde",
    "serde_json",
    "std",
    "test",
];

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
        let lib = id.replace('-', "_");
        if NOT_A_LIBRARY.contains(&lib.as_str()) {
            return Err(format!(
                "`{slug}` would name the lab's library `{lib}`, which Rust reserves or a lab already uses; pick another word"
            ));
        }
        let title = title.trim();
        if title.is_empty() || title.contains(['\n', '\r']) {
            return Err("the title is one non-empty line, e.g. \"Retried writes\"".into());
        }
        Ok(Names {
            slug: slug.to_string(),
            number: number.to_string(),
            id: id.to_string(),
            lib,
            title: title.to_string(),
        })
    }

    /// `tests/11_retried_writes.rs`
    pub fn suite(&self) -> String {
        format!("tests/{}.rs", self.slug.replace('-', "_"))
    }
}

/// `text` as a TOML string, quoted and escaped as TOML needs.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// What the template lab is called, and what the new lab is called instead, most
/// specific first. The templates use `99` and `template` for nothing else (a test proves
/// it), and [`fill`] replaces them in one pass, so a title that contains `99` or
/// `template` stays as it is.
pub fn substitutions(names: &Names) -> Vec<(&'static str, String)> {
    let figure_number: u32 = names.number.parse().unwrap_or_default();
    vec![
        // lab.toml's title, a TOML string.
        ("\"Template lab\"", toml_string(&names.title)),
        // The chapter's heading, the library's doc comment.
        ("Template lab", names.title.clone()),
        // The lab's folders, its packages (`lab99-template`), its chapter and figures,
        // the catalogue's pointers to chapter sections.
        ("99-template", names.slug.clone()),
        // The graded suite's file.
        ("99_template", names.slug.replace('-', "_")),
        // The library's name in both manifests, and the paths into it.
        ("name = \"template\"", format!("name = \"{}\"", names.lib)),
        ("template::", format!("{}::", names.lib)),
        // The lab's id, in lab.toml and in the observe report.
        ("\"template\"", format!("\"{}\"", names.id)),
        // Figure numbers have no leading zero: Figure 5.1.
        ("Figure 99.", format!("Figure {figure_number}.")),
        // The lab's number: `cargo labs check 99`, a replay's scope, lab.toml, the docs.
        ("99", names.number.clone()),
    ]
}

/// `text` with every pattern of `substitutions` replaced, left to right in one pass: at
/// each position the first pattern that matches wins, and replaced text is not searched
/// again.
pub fn fill(text: &str, substitutions: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(c) = rest.chars().next() {
        for (pattern, replacement) in substitutions {
            if let Some(after) = rest.strip_prefix(pattern) {
                out.push_str(replacement);
                rest = after;
                continue 'scan;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The files of a new lab, as (path relative to the root, content), in the order of
/// [`TEMPLATES`]; lab.toml's `[published]` is still empty, and the predictions page is
/// not among them (both need the files written first).
pub fn files(names: &Names) -> Vec<(String, String)> {
    let substitutions = substitutions(names);
    TEMPLATES
        .iter()
        .map(|t| {
            let text = if t.verbatim {
                t.text.to_string()
            } else {
                fill(t.text, &substitutions)
            };
            (fill(t.path, &substitutions), text)
        })
        .collect()
}

/// The files whose git blob ids go into `[published]`: everything the learner's crate and
/// the lab's harness are built from (their manifests, the sources) and the graded suite.
fn published_paths(names: &Names, files: &[(String, String)]) -> Vec<String> {
    let lab = format!("labs/{}/", names.slug);
    let mut paths: Vec<String> = files
        .iter()
        .map(|(path, _)| path.clone())
        .filter(|p| {
            p.strip_prefix(&lab).is_some_and(|rel| {
                crate::meta::PUBLISHED_MANIFESTS.contains(&rel) || rel.starts_with("src/")
            }) || *p == names.suite()
        })
        .collect();
    paths.sort();
    paths
}

/// Adds `- [Title](NN-slug.md)` and, under it, its page after the run to SUMMARY.md
/// among the chapters, in number order.
pub fn add_to_summary(summary: &str, names: &Names) -> String {
    let entry = format!(
        "- [{}]({slug}.md)\n  - [After the run]({slug}-after-the-run.md)",
        names.title,
        slug = names.slug
    );
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

/// The workspace manifest with the new lab's harness optimised in debug builds, as every
/// lab's is (a learner's edit then rebuilds only the learner's file, and the graded
/// explorations run fast); unchanged when it is already.
pub fn add_harness_profile(manifest: &str, names: &Names) -> String {
    let header = format!("[profile.dev.package.harness{}]", names.slug);
    if manifest.lines().any(|l| l.trim() == header) {
        return manifest.to_string();
    }
    format!("{}\n\n{header}\nopt-level = 2\n", manifest.trim_end())
}

/// Refuses a number or id another lab has, and any file that exists already.
fn refuse_to_collide(root: &Path, names: &Names, paths: &[&str]) -> Result<()> {
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
    for path in paths {
        if root.join(path).exists() {
            return Err(Failure::input(format!(
                "{path} exists already; `cargo labs new` never overwrites a file"
            )));
        }
    }
    Ok(())
}

fn write(root: &Path, path: &str, text: &str, written: &mut Vec<PathBuf>) -> Result<()> {
    let full = root.join(path);
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Failure::writing(parent, e))?;
    }
    std::fs::write(&full, text).map_err(|e| Failure::writing(&full, e))?;
    written.push(full);
    Ok(())
}

/// Scaffolds the lab under `root` and returns the paths it wrote. Refuses to overwrite
/// anything, and refuses a number or id another lab already has.
pub fn scaffold(root: &Path, slug: &str, title: &str) -> Result<Vec<PathBuf>> {
    if TEMPLATES.is_empty() {
        return Err(Failure::input(
            "`cargo labs new` belongs to the teacher's edition: this copy has no lab templates (crates/workbook/templates)",
        ));
    }
    let names = Names::parse(slug, title).map_err(Failure::input)?;
    let files = files(&names);
    let lab_toml = format!("labs/{}/lab.toml", names.slug);
    let predictions = format!("book/src/predictions/{}.md", names.slug);
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    refuse_to_collide(
        root,
        &names,
        &[&paths[..], &[predictions.as_str()]].concat(),
    )?;
    let summary_path = root.join("book/src/SUMMARY.md");
    let summary =
        std::fs::read_to_string(&summary_path).map_err(|e| Failure::reading(&summary_path, e))?;
    let mut written = Vec::new();
    for (path, text) in files.iter().filter(|(p, _)| *p != lab_toml) {
        write(root, path, text, &mut written)?;
    }
    // The templates are formatted; a longer library name can wrap a line differently.
    let sources: Vec<&PathBuf> = written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    let _ = std::process::Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(&sources)
        .output();
    let mut published = String::new();
    for path in published_paths(&names, &files) {
        let full = root.join(&path);
        let blob = crate::blob::file_blob(&full).map_err(|e| Failure::reading(&full, e))?;
        published.push_str(&format!("{} = \"{blob}\"\n", toml_string(&path)));
    }
    let template_toml = files
        .iter()
        .find(|(p, _)| *p == lab_toml)
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    let lab_toml_text =
        template_toml.replacen("\n[published]\n", &format!("\n[published]\n{published}"), 1);
    if lab_toml_text == template_toml {
        return Err(Failure::input(
            "the template lab.toml has no `[published]` table",
        ));
    }
    let meta: LabMeta = toml::from_str(&lab_toml_text)
        .map_err(|e| Failure::input(format!("the generated lab.toml does not parse: {e}")))?;
    write(root, &lab_toml, &lab_toml_text, &mut written)?;
    let lab = crate::meta::Lab::new(root.join("labs").join(&names.slug), meta)
        .map_err(|e| Failure::input(format!("the generated lab.toml is incomplete: {e}")))?;
    write(root, &predictions, &predictions_page(&lab), &mut written)?;
    write_atomically(&summary_path, &add_to_summary(&summary, &names))
        .map_err(|e| Failure::writing(&summary_path, e))?;
    written.push(summary_path);
    let manifest_path = root.join("Cargo.toml");
    if let Ok(manifest) = std::fs::read_to_string(&manifest_path) {
        write_atomically(&manifest_path, &add_harness_profile(&manifest, &names))
            .map_err(|e| Failure::writing(&manifest_path, e))?;
        written.push(manifest_path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names::parse("05-retried-writes", "Retried \"writes\"").unwrap()
    }

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
        for taken in ["11-type", "11-self", "11-std", "11-labkit", "11-serde-json"] {
            let refused = Names::parse(taken, "T").unwrap_err();
            assert!(refused.contains("library"), "`{taken}`: {refused}");
        }
        assert!(Names::parse("11-ok", "two\nlines").is_err());
        assert!(Names::parse("11-ok", "  ").is_err());
    }

    #[test]
    fn the_substitutions_are_these() {
        let expected: Vec<(&str, &str)> = vec![
            ("\"Template lab\"", "'Retried \"writes\"'"),
            ("Template lab", "Retried \"writes\""),
            ("99-template", "05-retried-writes"),
            ("99_template", "05_retried_writes"),
            ("name = \"template\"", "name = \"retried_writes\""),
            ("template::", "retried_writes::"),
            ("\"template\"", "\"retried-writes\""),
            ("Figure 99.", "Figure 5."),
            ("99", "05"),
        ];
        let actual = substitutions(&names());
        let actual: Vec<(&str, &str)> = actual.iter().map(|(p, r)| (*p, r.as_str())).collect();
        assert_eq!(actual, expected);
    }

    #[test]
    fn a_fill_replaces_in_one_pass() {
        let odd = Names::parse("12-x", "Template lab 99 template::").unwrap();
        let subs = substitutions(&odd);
        assert_eq!(
            fill("# Template lab\nuse template::world; // lab 99", &subs),
            "# Template lab 99 template::\nuse x::world; // lab 12"
        );
        assert_eq!(
            fill("title = \"Template lab\"", &subs),
            "title = \"Template lab 99 template::\""
        );
    }

    #[test]
    fn the_chapter_joins_summary_in_number_order() {
        let summary = "# Summary\n\n[Intro](introduction.md)\n\n# Chapters\n\n- [One](01-a.md)\n  - [After the run](01-a-after-the-run.md)\n- [Three](03-c.md)\n  - [After the run](03-c-after-the-run.md)\n\n[Glossary](glossary.md)\n";
        let two = Names::parse("02-b", "Two").unwrap();
        let four = Names::parse("04-d", "Four").unwrap();
        assert!(add_to_summary(summary, &two).contains(
            "  - [After the run](01-a-after-the-run.md)\n- [Two](02-b.md)\n  - [After the run](02-b-after-the-run.md)\n- [Three](03-c.md)\n"
        ));
        assert!(add_to_summary(summary, &four).contains(
            "  - [After the run](03-c-after-the-run.md)\n- [Four](04-d.md)\n  - [After the run](04-d-after-the-run.md)\n\n[Glossary](glossary.md)"
        ));
    }

    #[test]
    fn the_new_harness_is_optimised_once() {
        let manifest = "[workspace]\nmembers = [\"labs/*\"]\n";
        let names = Names::parse("11-retried-writes", "Retried writes").unwrap();
        let added = add_harness_profile(manifest, &names);
        assert_eq!(
            added,
            format!("{manifest}\n[profile.dev.package.harness11-retried-writes]\nopt-level = 2\n")
        );
        assert_eq!(add_harness_profile(&added, &names), added);
    }

    /// Every file under crates/workbook/templates, relative to it, but its README.
    #[cfg(scaffold_templates)]
    fn template_files() -> Vec<String> {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, base, out);
                } else {
                    let rel = path.strip_prefix(base).unwrap().to_string_lossy();
                    out.push(rel.replace('\\', "/"));
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let mut out = Vec::new();
        walk(&base, &base, &mut out);
        out.retain(|p| p != "README.md");
        out.sort();
        out
    }

    #[test]
    #[cfg(scaffold_templates)]
    fn every_template_file_is_embedded() {
        let mut embedded: Vec<String> = TEMPLATES.iter().map(|t| t.path.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, template_files());
    }

    #[test]
    #[cfg(scaffold_templates)]
    fn every_name_of_the_template_lab_is_replaced() {
        for (template, (path, text)) in TEMPLATES.iter().zip(files(&names())) {
            let mut shown = vec![path.as_str()];
            if !template.verbatim {
                shown.push(text.as_str());
            }
            for shown in shown {
                let lower = shown.to_lowercase();
                assert!(
                    !lower.contains("template") && !shown.contains("99"),
                    "{} keeps a name of the template lab:\n{shown}",
                    template.path
                );
            }
            // `99` is the lab's number wherever it appears, never part of another number.
            let digits = template.text.as_bytes();
            for (at, _) in template
                .text
                .match_indices("99")
                .filter(|_| !template.verbatim)
            {
                let before = at.checked_sub(1).map(|i| digits[i]);
                let after = digits.get(at + 2).copied();
                assert!(
                    !before.is_some_and(|b| b.is_ascii_digit())
                        && !after.is_some_and(|b| b.is_ascii_digit()),
                    "{}: `99` at byte {at} is part of a longer number",
                    template.path
                );
            }
        }
    }

    #[test]
    #[cfg(scaffold_templates)]
    fn the_new_lab_has_its_own_names_and_the_templates_paths() {
        let files = files(&names());
        let file = |path: &str| -> &str {
            let found = files.iter().find(|(p, _)| p == path);
            found
                .map(|(_, t)| t.as_str())
                .unwrap_or_else(|| panic!("no {path}"))
        };
        let lab = file("labs/05-retried-writes/Cargo.toml");
        for line in [
            "name = \"lab05-retried-writes\"",
            "autolib = false",
            "path = \"src/graded.rs\"",
            "harness05-retried-writes = { path = \"harness\" }",
        ] {
            assert!(lab.contains(line), "the lab's manifest says {line}");
        }
        for root in [
            "labs/05-retried-writes/src/graded.rs",
            "solutions/05-retried-writes/src/graded.rs",
        ] {
            let suite = "#[path = \"../../../tests/05_retried_writes.rs\"]\nmod suite;";
            assert!(file(root).contains(suite), "{root}: {}", file(root));
            assert!(file(root).contains("mod receiver;"), "{root}");
        }
        let harness = file("labs/05-retried-writes/harness/Cargo.toml");
        for line in [
            "name = \"harness05-retried-writes\"",
            "name = \"retried_writes\"",
            "path = \"../src/lib.rs\"",
        ] {
            assert!(harness.contains(line), "the harness's manifest says {line}");
        }
        let solution = file("solutions/05-retried-writes/Cargo.toml");
        assert!(solution.contains("name = \"solution05-retried-writes\""));
        assert!(solution.contains("path = \"src/graded.rs\""));
        assert!(solution.contains(
            "harness05-retried-writes = { path = \"../../labs/05-retried-writes/harness\" }"
        ));
        assert!(
            file("labs/05-retried-writes/src/main.rs")
                .contains("retried_writes::main(retried_writes::learner!())")
        );
        assert!(file("labs/05-retried-writes/src/scenarios.rs").contains("lab: \"05\""));
        let chapter = file("book/src/05-retried-writes.md");
        assert!(chapter.starts_with("# Retried \"writes\"\n"));
        assert!(chapter.contains("{{#include predictions/05-retried-writes.md}}"));
        assert!(chapter.contains("[after the run](05-retried-writes-after-the-run.md)"));
        let after = file("book/src/05-retried-writes-after-the-run.md");
        assert!(after.contains("[the chapter](05-retried-writes.md)"));
        assert!(after.contains("![Figure 5.1: "));
        assert!(
            after.contains("{{#include ../../labs/05-retried-writes/src/receiver.rs:receive}}")
        );
        assert!(
            file("solutions/05-retried-writes/mutants/identity-by-amount/mutant.toml")
                .contains("section = \"05-retried-writes.md#what-the-run-shows\"")
        );
        assert!(
            files
                .iter()
                .any(|(p, _)| p == "book/src/figures/05-retried-writes-lost-response.svg")
        );
        let meta: LabMeta = toml::from_str(file("labs/05-retried-writes/lab.toml")).unwrap();
        assert_eq!(
            [
                &meta.id,
                &meta.number,
                &meta.title,
                &meta.package,
                &meta.solution_package
            ],
            [
                "retried-writes",
                "05",
                "Retried \"writes\"",
                "lab05-retried-writes",
                "solution05-retried-writes"
            ]
        );
        assert_eq!(
            (meta.chapter.as_str(), meta.graded_suite.as_str()),
            (
                "book/src/05-retried-writes.md",
                "tests/05_retried_writes.rs"
            )
        );
        assert!(meta.published.is_empty(), "`new` computes [published]");
        assert_eq!(
            published_paths(&names(), &files),
            [
                "labs/05-retried-writes/Cargo.toml",
                "labs/05-retried-writes/harness/Cargo.toml",
                "labs/05-retried-writes/src/figures.rs",
                "labs/05-retried-writes/src/graded.rs",
                "labs/05-retried-writes/src/invariants.rs",
                "labs/05-retried-writes/src/lib.rs",
                "labs/05-retried-writes/src/main.rs",
                "labs/05-retried-writes/src/observe/mod.rs",
                "labs/05-retried-writes/src/receiver.rs",
                "labs/05-retried-writes/src/scenarios.rs",
                "labs/05-retried-writes/src/world.rs",
                "tests/05_retried_writes.rs",
            ]
        );
    }

    #[test]
    #[cfg(scaffold_templates)]
    fn the_new_catalogue_is_edits_that_apply_to_the_new_solution() {
        let files = files(&names());
        let text = |path: &str| files.iter().find(|(p, _)| p == path).map(|(_, t)| t);
        let solution = text("solutions/05-retried-writes/src/receiver.rs").unwrap();
        let entries: Vec<&(String, String)> = files
            .iter()
            .filter(|(p, _)| p.starts_with("solutions/05-retried-writes/mutants/"))
            .collect();
        assert_eq!(entries.len(), 2, "two entries, each its mutant.toml alone");
        for (path, toml_text) in entries {
            let meta: crate::mutants::MutantMeta = toml::from_str(toml_text).unwrap();
            let edits: Vec<&crate::mutants::Edit> = meta.edits.iter().collect();
            assert!(!edits.is_empty(), "{path} has edits");
            assert!(
                edits
                    .iter()
                    .all(|e| e.file.as_deref().is_none_or(|f| f == "src/receiver.rs")),
                "{path}"
            );
            let applied = crate::mutants::apply_edits(solution, "receiver.rs", &edits)
                .unwrap_or_else(|problem| panic!("{path}: {problem}"));
            assert_ne!(&applied, solution, "{path} changes the solution");
        }
    }

    #[test]
    #[cfg(not(scaffold_templates))]
    fn without_templates_new_says_it_belongs_to_the_teachers_edition() {
        let refused = scaffold(Path::new("."), "11-x", "X").unwrap_err();
        assert!(
            refused.to_string().contains("teacher's edition"),
            "{refused}"
        );
    }
}
