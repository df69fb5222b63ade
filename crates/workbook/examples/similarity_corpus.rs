//! Measures the similarity detector on a corpus of solutions written apart, so the
//! measurement in the teaching chapter can be repeated.
//!
//! ```sh
//! cargo run -p workbook --example similarity_corpus -- DIR [--list] [--k N] [--window N]
//!     [--threshold X] [--min-tokens N]
//! ```
//!
//! `DIR/NN/STEM/*.rs` holds solutions of lab NN's learner file `src/STEM.rs`, one file per
//! author (its name, without `.rs`, is the owner). A file named `copy-of-OWNER…` is a
//! disguised copy of OWNER's file (`copy-of-reference…` of the reference solution): it
//! must be named against that source, and nothing else of the corpus must be. The
//! starter, the reference solution and the catalogue entries are read from the workbook
//! this runs in. Everything else is compared as a class would be: every two solutions,
//! every solution against the reference and every catalogue entry. `--list` also prints
//! every comparison with its share and matched tokens, to see the margins; the other
//! options replace one of the default settings, to see what another choice would do.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use workbook::similarity::{self, Document, Lines, Pair, Settings};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(corpus) = args.first().map(PathBuf::from) else {
        eprintln!(
            "usage: similarity_corpus DIR [--list] [--k N] [--window N] [--threshold X] [--min-tokens N]"
        );
        std::process::exit(2);
    };
    let root = workbook::find_root(&std::env::current_dir().expect("a current folder"))
        .expect("run inside the workbook");
    let list = args.iter().any(|a| a == "--list");
    let settings = settings_from(&args);
    println!(
        "k {} · window {} · threshold {:.2} · at least {} matched tokens\n",
        settings.k, settings.window, settings.threshold, settings.min_matched_tokens
    );
    println!(
        "| lab · file | documents | pairs named | highest unnamed share | highest unnamed \
         share, {} tokens or more | copies named |",
        settings.min_matched_tokens
    );
    println!("|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    for (lab, stem) in corpus_files(&corpus) {
        let measured = measure(&root, &corpus, &lab, &stem, &settings, list);
        println!("{}", measured.row);
        notes.extend(measured.notes);
    }
    println!();
    for note in notes {
        println!("{note}");
    }
}

/// The default settings, with any of them the command line replaces.
fn settings_from(args: &[String]) -> Settings {
    let value = |name: &str| -> Option<&str> {
        let at = args.iter().position(|a| a == name)?;
        args.get(at + 1).map(String::as_str)
    };
    let number = |name: &str| value(name).map(|v| v.parse().expect("a number"));
    let defaults = Settings::default();
    Settings {
        k: number("--k").unwrap_or(defaults.k),
        window: number("--window").unwrap_or(defaults.window),
        threshold: value("--threshold").map_or(defaults.threshold, |v| v.parse().expect("a share")),
        min_matched_tokens: number("--min-tokens").unwrap_or(defaults.min_matched_tokens),
    }
}

/// `(NN, STEM)` for every `DIR/NN/STEM/`, in order.
fn corpus_files(corpus: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for lab in sorted_dirs(corpus) {
        for file in sorted_dirs(&corpus.join(&lab)) {
            found.push((lab.clone(), file));
        }
    }
    found
}

fn sorted_dirs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// One line of the table, and the details worth reading under it.
struct Measured {
    row: String,
    notes: Vec<String>,
}

fn measure(
    root: &Path,
    corpus: &Path,
    lab: &str,
    stem: &str,
    settings: &Settings,
    list: bool,
) -> Measured {
    let file = format!("src/{stem}.rs");
    let starter = read(&lab_dir(root, "labs", lab).join(&file));
    let solution_dir = lab_dir(root, "solutions", lab);
    let submissions = documents(&corpus.join(lab).join(stem), &file);
    let references = references(&solution_dir, &file);
    let every = similarity::every_pair(&submissions, &starter, &references, settings);
    let is_copy = |owner: &str| owner.starts_with("copy-of-");
    let (copies, independent): (Vec<&Pair>, Vec<&Pair>) = every
        .iter()
        .partition(|p| is_copy(&p.left) || is_copy(&p.right));
    let named: Vec<&Pair> = (independent.iter().copied())
        .filter(|p| p.is_named(settings))
        .collect();
    let unnamed = || independent.iter().filter(|p| !p.is_named(settings));
    let sized = |p: &&&Pair| p.matched_tokens >= settings.min_matched_tokens;
    let listed = if list { &independent } else { &named };
    let mut notes: Vec<String> = listed.iter().map(|p| describe(lab, p)).collect();
    let everyone: Vec<Document> = submissions.iter().chain(&references).cloned().collect();
    let (found, expected, copy_notes) = check_copies(&everyone, &copies, &starter, settings);
    notes.extend(copy_notes.into_iter().map(|n| format!("{lab} {stem}: {n}")));
    let authors = submissions.iter().filter(|d| !is_copy(&d.owner)).count();
    let row = format!(
        "| {lab} · {stem}.rs | {authors} + reference + {} catalogue | {} | {} | {} | {} |",
        references.len() - 1,
        named.len(),
        closest(unnamed().next()),
        closest(unnamed().find(sized)),
        if expected == 0 {
            "–".into()
        } else {
            format!("{found} of {expected}")
        },
    );
    Measured { row, notes }
}

/// A pair as the table shows it: its share, its owners and its matched tokens.
fn closest(pair: Option<&&Pair>) -> String {
    pair.map_or("none".into(), |p| {
        format!(
            "{:.2} ({} · {}, {} tokens)",
            p.share, p.left, p.right, p.matched_tokens
        )
    })
}

fn lab_dir(root: &Path, under: &str, lab: &str) -> PathBuf {
    let prefix = format!("{lab}-");
    fs::read_dir(root.join(under))
        .expect("the workbook's folders")
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .unwrap_or_else(|| panic!("no {under}/{lab}-*"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `*.rs` of `dir`, owned by its name.
fn documents(dir: &Path, file: &str) -> Vec<Document> {
    let mut found: Vec<Document> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let owner = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Document::new(owner, file, read(&path))
        })
        .collect();
    found.sort();
    found
}

/// The reference solution and every catalogue entry that changes `file`: an entry that
/// holds the reference's file unchanged (its mistake is in another file) would only
/// repeat the reference's pairs.
fn references(solution_dir: &Path, file: &str) -> Vec<Document> {
    let reference = read(&solution_dir.join(file));
    let mut found = vec![Document::new("reference", file, reference.clone())];
    let mutants = solution_dir.join("mutants");
    for name in sorted_dirs(&mutants) {
        let path = mutants.join(&name).join(file);
        if path.is_file() && read(&path) != reference {
            found.push(Document::new(
                format!("catalogue:{name}"),
                file,
                read(&path),
            ));
        }
    }
    found
}

fn describe(lab: &str, pair: &Pair) -> String {
    format!(
        "{lab} {}: {} · {} share {:.2}, {} tokens, lines {} · {}",
        pair.file,
        pair.left,
        pair.right,
        pair.share,
        pair.matched_tokens,
        ranges(&pair.left_lines),
        ranges(&pair.right_lines)
    )
}

fn ranges(lines: &[Lines]) -> String {
    let shown: Vec<String> = lines
        .iter()
        .map(|l| format!("{}–{}", l.first, l.last))
        .collect();
    shown.join(", ")
}

/// For every copy: is it named against its source, and do the regions cover what each
/// side's author wrote (the lines outside the starter)? Also lists every other pair a
/// copy is named in: with the catalogue, derived from the reference, that is expected.
fn check_copies(
    documents: &[Document],
    pairs: &[&Pair],
    starter: &str,
    settings: &Settings,
) -> (usize, usize, Vec<String>) {
    let texts: BTreeMap<&str, &str> = documents
        .iter()
        .map(|d| (d.owner.as_str(), d.text.as_str()))
        .collect();
    let (mut found, mut expected, mut notes) = (0, 0, Vec::new());
    for copy in documents.iter().filter(|d| d.owner.starts_with("copy-of-")) {
        expected += 1;
        let source = source_of(&copy.owner, &texts);
        let pair = pairs.iter().find(|p| {
            (p.left == copy.owner && p.right == source)
                || (p.right == copy.owner && p.left == source)
        });
        let Some(pair) = pair.filter(|p| p.is_named(settings)) else {
            notes.push(format!("{} is NOT named against {source}", copy.owner));
            continue;
        };
        found += 1;
        let (copy_side, source_side) = if pair.left == copy.owner {
            (&pair.left_lines, &pair.right_lines)
        } else {
            (&pair.right_lines, &pair.left_lines)
        };
        let source_text = texts.get(source.as_str()).copied().unwrap_or_default();
        notes.push(format!(
            "{} · {source}: share {:.2}, {} tokens; the regions cover {} of the copy's own \
             lines and {} of the source's",
            copy.owner,
            pair.share,
            pair.matched_tokens,
            coverage(copy_side, &copy.text, starter, settings),
            coverage(source_side, source_text, starter, settings),
        ));
        notes.extend(other_pairs(&copy.owner, &source, pairs, settings));
    }
    (found, expected, notes)
}

/// `copy-of-07` → `07`, `copy-of-reference` → `reference`: the longest owner whose name
/// the copy's name continues with.
fn source_of(copy: &str, texts: &BTreeMap<&str, &str>) -> String {
    let rest = copy.trim_start_matches("copy-of-");
    let mut owners: Vec<&&str> = texts.keys().filter(|o| rest.starts_with(**o)).collect();
    owners.sort_by_key(|o| std::cmp::Reverse(o.len()));
    owners.first().map_or(rest.to_string(), |o| o.to_string())
}

fn other_pairs(copy: &str, source: &str, pairs: &[&Pair], settings: &Settings) -> Vec<String> {
    (pairs.iter())
        .filter(|p| p.is_named(settings) && (p.left == copy || p.right == copy))
        .filter(|p| p.left != source && p.right != source)
        .map(|p| {
            format!(
                "  also named: {} · {} share {:.2}",
                p.left, p.right, p.share
            )
        })
        .collect()
}

/// The share of `text`'s own lines (outside the starter) that `regions` cover, as "a/b".
fn coverage(regions: &[Lines], text: &str, starter: &str, settings: &Settings) -> String {
    let own = similarity::own_lines(text, starter, settings);
    let lines =
        |ranges: &[Lines]| -> Vec<usize> { ranges.iter().flat_map(|l| l.first..=l.last).collect() };
    let covered = lines(regions);
    let own = lines(&own);
    let hit = own.iter().filter(|line| covered.contains(line)).count();
    format!("{hit}/{}", own.len())
}
