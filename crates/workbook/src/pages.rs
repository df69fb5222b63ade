//! Pages of the book the CLI writes (and the gate checks current): each lab's list of
//! predictions, and the table of how long each chapter takes to read, measured on the
//! chapters as a reader gets them.

use crate::meta::{Lab, predictions_page};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reading speeds the table assumes: prose, and code (read, not skimmed).
const WORDS_PER_MINUTE: f64 = 200.0;
const CODE_LINES_PER_MINUTE: f64 = 20.0;

/// What mdBook 0.5's `{{#include file:spec}}` shows of `source`, to the byte: the lines
/// between `ANCHOR: name` and `ANCHOR_END: name` (other anchors' lines dropped) when
/// `spec` is a name; lines `a:b`, `a:`, `:b` or line `a` alone (numbered from 1) when it
/// is a range; every line when it is empty. The lines are joined by newlines, with none
/// after the last (mdBook's `take_lines` and `take_anchored_lines`).
pub fn include_region(source: &str, spec: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let number = |p: &str| p.parse::<usize>().ok();
    let mut parts = spec.splitn(3, ':');
    let first = parts.next().unwrap_or("");
    if !first.is_empty() && number(first).is_none() {
        return anchored(&lines, first);
    }
    let start = number(first).map(|n| n.saturating_sub(1)).unwrap_or(0);
    let end = match (first.is_empty(), parts.next()) {
        (_, Some(end)) => number(end).unwrap_or(lines.len()),
        (false, None) => start + 1,
        (true, None) => lines.len(),
    };
    let end = end.min(lines.len());
    lines[start.min(end)..end].join("\n")
}

/// The lines of the anchor `name`, without the lines of any anchor nested in it.
fn anchored(lines: &[&str], name: &str) -> String {
    let marker = |line: &str, kind: &str| -> Option<String> {
        let at = line.find(kind)? + kind.len();
        let found: String = line[at..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        (!found.is_empty()).then_some(found)
    };
    let mut kept = Vec::new();
    let mut inside = false;
    for line in lines {
        if !inside {
            inside = marker(line, "ANCHOR:").as_deref() == Some(name);
        } else if let Some(end) = marker(line, "ANCHOR_END:") {
            if end == name {
                break;
            }
        } else if marker(line, "ANCHOR:").is_none() {
            kept.push(*line);
        }
    }
    kept.join("\n")
}

/// The learner files' published starters, by path: what an include of a learner file
/// shows, whatever the learner's copy holds now (an edited file, anchors deleted).
#[derive(Clone, Debug, Default)]
pub struct Starters {
    by_path: BTreeMap<PathBuf, String>,
}

impl Starters {
    /// The published starter of every learner file of `labs`. A file whose starter cannot
    /// be found is left out (the book then shows the file; the edition gate names it).
    pub fn of(root: &Path, labs: &[Lab]) -> Starters {
        let mut by_path = BTreeMap::new();
        for lab in labs {
            for file in &lab.meta.learner_files {
                if let Ok(text) = crate::starters::published_starter(root, lab, file) {
                    by_path.insert(lexical(&lab.dir.join(file)), text);
                }
            }
        }
        Starters { by_path }
    }

    /// The starters of the workbook `path` lies in (none outside a workbook).
    pub fn around(path: &Path) -> Starters {
        let absolute = lexical(path);
        let Ok(root) = crate::find_root(absolute.parent().unwrap_or(&absolute)) else {
            return Starters::default();
        };
        match crate::meta::load_labs(&root) {
            Ok(labs) => Starters::of(&root, &labs.labs),
            Err(_) => Starters::default(),
        }
    }

    /// Starters given by hand: (learner file, published text).
    pub fn from_files(files: impl IntoIterator<Item = (PathBuf, String)>) -> Starters {
        Starters {
            by_path: files.into_iter().map(|(p, t)| (lexical(&p), t)).collect(),
        }
    }

    /// The published text of the learner file at `path`, when it is one.
    pub fn get(&self, path: &Path) -> Option<&str> {
        self.by_path.get(&lexical(path)).map(String::as_str)
    }
}

/// `path` made absolute, with `.` and `..` resolved by name (the file need not exist).
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `text` (a page in the folder `base`) with its `{{#include …}}` directives expanded,
/// recursively for included pages; an include of a learner file shows its published
/// starter. Code blocks are not dedented here (see [`expanded`]).
pub fn expand_includes(text: &str, base: &Path, starters: &Starters) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{#include ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "{{#include ".len()..];
        let Some(end) = after.find("}}") else {
            rest = &rest[at..];
            break;
        };
        let spec = after[..end].trim();
        let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
        let target = base.join(file);
        let source = match starters.get(&target) {
            Some(starter) => starter.to_string(),
            None => std::fs::read_to_string(&target).unwrap_or_default(),
        };
        if target.extension().is_some_and(|e| e == "md") {
            let inner = target.parent().unwrap_or(base);
            out.push_str(&expand_includes(&source, inner, starters));
        } else {
            out.push_str(&include_region(&source, anchor));
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A page as a reader gets it: includes expanded (recursively, learner files as
/// published), code blocks dedented as the book's preprocessor does.
pub fn expanded(path: &Path) -> String {
    expanded_with(path, &Starters::around(path))
}

/// [`expanded`], with the starters already at hand.
pub fn expanded_with(path: &Path, starters: &Starters) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let base = path.parent().unwrap_or(Path::new("."));
    crate::bookpp::dedent_code_blocks(&expand_includes(&text, base, starters))
}

/// The page after the run of `lab` as Markdown: the page itself in the teacher's edition;
/// in the student edition, whose page is a stand-in, the scrambled copy unscrambled.
pub fn after_the_run_text(root: &Path, lab: &Lab) -> String {
    let page = root.join(after_the_run(&lab.meta.chapter));
    let text = std::fs::read_to_string(&page).unwrap_or_default();
    if !text.contains(crate::keys::PAGE_STUB) {
        return text;
    }
    scrambled_page(lab).map_or_else(
        |e| format!("{text}\n(The page could not be read: {e}.)\n"),
        |after| after.page,
    )
}

/// The student edition's scrambled page after the run of `lab`, with its figures.
fn scrambled_page(lab: &Lab) -> Result<crate::keys::AfterTheRun, String> {
    let coded = lab.dir.join(crate::meta::PAGE_FILE);
    std::fs::read_to_string(&coded)
        .map_err(|e| e.to_string())
        .and_then(|coded| crate::keys::decode_page(&lab.meta.id, &coded))
        .map_err(|e| format!("{}: {e}", coded.display()))
}

/// The files under `book/src` that `page` (a page of `book/src`) shows of the figures
/// folder, by their paths under `book/src`: what an include or an image names.
pub fn figures_of(page: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (at, _) in page.match_indices("figures/") {
        let before = page[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        let name: String = page[at + "figures/".len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
            .collect();
        let path = format!("figures/{}", name.trim_end_matches('.'));
        if name.contains('.') && !found.contains(&path) {
            found.push(path);
        }
    }
    found
}

/// The page after the run and the figures only it shows, as the student edition carries
/// them (scrambled in the lab's `PAGE_FILE`): `shared` names figures that a page a learner
/// reads before the run shows too, which travel in plain.
pub fn after_the_run_bundle(
    root: &Path,
    lab: &Lab,
    shared: &[String],
) -> std::io::Result<crate::keys::AfterTheRun> {
    let page = std::fs::read_to_string(root.join(after_the_run(&lab.meta.chapter)))?;
    let src = root.join("book/src");
    let mut files = BTreeMap::new();
    for figure in figures_of(&page) {
        let path = src.join(&figure);
        if shared.contains(&figure) || !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        files.insert(figure, crate::keys::base64_encode(&bytes));
    }
    Ok(crate::keys::AfterTheRun { page, files })
}

/// In the student edition, writes the page after the run of `lab` and its figures where
/// the book finds them, in place of the page's stand-in (once the learner's predictions
/// are sealed: the caller decides). Returns whether the page was a stand-in.
pub fn open_after_the_run(root: &Path, lab: &Lab) -> Result<bool, String> {
    let page = root.join(after_the_run(&lab.meta.chapter));
    let text = std::fs::read_to_string(&page).unwrap_or_default();
    if !text.contains(crate::keys::PAGE_STUB) {
        return Ok(false);
    }
    let after = scrambled_page(lab)?;
    let src = root.join("book/src");
    for (figure, coded) in &after.files {
        let bytes = crate::keys::base64_decode(coded)
            .ok_or_else(|| format!("the page's figure {figure} is damaged"))?;
        let path = src.join(figure);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, bytes));
        written.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    std::fs::write(&page, &after.page)
        .map_err(|e| format!("cannot write {}: {e}", page.display()))?;
    Ok(true)
}

/// [`after_the_run_text`], its includes expanded as on the chapter's own page.
pub fn after_the_run_expanded(root: &Path, lab: &Lab, starters: &Starters) -> String {
    let page = root.join(after_the_run(&lab.meta.chapter));
    let base = page.parent().unwrap_or(Path::new("."));
    let text = after_the_run_text(root, lab);
    crate::bookpp::dedent_code_blocks(&expand_includes(&text, base, starters))
}

/// The page that follows a chapter once its lab has run (what the run shows, the
/// promises, the build phase, …): `book/src/01-outbox.md` →
/// `book/src/01-outbox-after-the-run.md`. The chapter's own page ends with Predict, so
/// that nothing on it, its sidebar included, says what the run will show.
pub fn after_the_run(chapter: &str) -> String {
    let stem = chapter.strip_suffix(".md").unwrap_or(chapter);
    format!("{stem}-after-the-run.md")
}

/// A lab's two pages, as paths: the chapter up to Predict, and the page after the run.
pub fn chapter_pages(root: &Path, lab: &Lab) -> [PathBuf; 2] {
    [
        root.join(&lab.meta.chapter),
        root.join(after_the_run(&lab.meta.chapter)),
    ]
}

/// The ids mdBook gives the headings of `markdown`, in order: the heading's text in
/// lower case, spaces as `-`, punctuation dropped, a repeated id numbered (`-1`, `-2`).
pub fn heading_ids(markdown: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        }
        let Some(heading) = trimmed.strip_prefix('#').filter(|_| !in_code) else {
            continue;
        };
        let text = heading
            .trim_start_matches('#')
            .trim()
            .replace(['`', '*'], "");
        let base: String = text
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let mut id = base.clone();
        let mut n = 0;
        while ids.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        ids.push(id);
    }
    ids
}

/// Where a section pointer (`01-outbox.md#the-relay`, written before the chapters were
/// split) is now: on the chapter's page when it has that heading, else on the page after
/// the run (which, in the student edition, is a stand-in until the seal: the chapter's
/// page alone decides). The result is relative to `book/src`, as the pointer was.
pub fn section_page(src: &Path, section: &str) -> String {
    let (page, anchor) = section.split_once('#').unwrap_or((section, ""));
    let text = std::fs::read_to_string(src.join(page)).unwrap_or_default();
    let after = after_the_run(page);
    if anchor.is_empty()
        || heading_ids(&text).iter().any(|id| id == anchor)
        || !src.join(&after).is_file()
    {
        section.to_string()
    } else {
        format!("{after}#{anchor}")
    }
}

/// Words of prose and lines of code of a page as a reader gets it.
pub fn measure(text: &str) -> (usize, usize) {
    let (mut words, mut code) = (0, 0);
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        } else if in_code {
            code += usize::from(!line.trim().is_empty());
        } else {
            words += line
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count();
        }
    }
    (words, code)
}

/// The table of reading times, one row per lab's chapter.
pub fn reading_times(root: &Path, labs: &[Lab]) -> String {
    let mut out = String::from(
        "| chapter | words | code lines | reading time | lines the learner writes |\n\
         |---|---:|---:|---:|---:|\n",
    );
    let mut total = 0.0;
    let starters = Starters::of(root, labs);
    for lab in labs {
        let (words, code) = chapter_pages(root, lab)
            .iter()
            .map(|page| measure(&expanded_with(page, &starters)))
            .fold((0, 0), |(w, c), (pw, pc)| (w + pw, c + pc));
        let minutes = words as f64 / WORDS_PER_MINUTE + code as f64 / CODE_LINES_PER_MINUTE;
        total += minutes;
        let solution: usize = lab
            .meta
            .learner_files
            .iter()
            .map(|f| {
                std::fs::read_to_string(root.join("solutions").join(lab.slug()).join(f))
                    .map(|text| text.lines().filter(|l| !l.trim().is_empty()).count())
                    .unwrap_or(0)
            })
            .sum();
        out.push_str(&format!(
            "| {} · {} | {words} | {code} | {:.0} min | {solution} |\n",
            lab.meta.number, lab.meta.title, minutes
        ));
    }
    out.push_str(&format!(
        "\nIn all, about {:.1} hours of reading. Times assume {WORDS_PER_MINUTE} words of prose and {CODE_LINES_PER_MINUTE} lines of code a minute; the last column counts the non-blank lines of the reference solution's learner files.\n",
        total / 60.0
    ));
    out
}

/// Every page the CLI writes into the book, with its content.
pub fn generated_pages(root: &Path, labs: &[Lab]) -> Vec<(PathBuf, String)> {
    let mut pages: Vec<(PathBuf, String)> = labs
        .iter()
        .map(|lab| {
            (
                root.join("book/src/predictions")
                    .join(format!("{}.md", lab.slug())),
                predictions_page(lab),
            )
        })
        .collect();
    // The teacher's chapter measures the labs with their solutions: only the teacher's
    // edition writes it.
    if root.join("solutions").is_dir() {
        pages.push((
            root.join("book/src/figures/reading-times.md"),
            reading_times(root, labs),
        ));
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of mdBook 0.5.4's own tests of `take_lines` and `take_anchored_lines`.
    #[test]
    fn an_anchor_a_range_and_a_whole_file_are_included_as_mdbook_does() {
        let source = "a\n// ANCHOR: x\nb\n// ANCHOR: y\nc\n// ANCHOR_END: y\n// ANCHOR_END: x\nd\n";
        assert_eq!(include_region(source, "x"), "b\nc");
        assert_eq!(include_region(source, "y"), "c");
        assert_eq!(include_region(source, "z"), "");
        assert_eq!(include_region(source, "1:2"), "a\n// ANCHOR: x");
        assert_eq!(include_region(source, "2"), "// ANCHOR: x");
        assert_eq!(include_region(source, "8:"), "d");
        assert_eq!(include_region(source, ":1"), "a");
        assert_eq!(include_region(source, "5:3"), "");
        assert_eq!(include_region("Lorem\nipsum\n", ""), "Lorem\nipsum");
    }

    #[test]
    fn an_include_of_a_learner_file_shows_its_published_starter() {
        let dir = std::env::temp_dir().join(format!("pages-starter-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("book/src")).unwrap();
        std::fs::create_dir_all(dir.join("lab")).unwrap();
        // The learner edited the file and deleted its anchors.
        std::fs::write(dir.join("lab/relay.rs"), "fn mine() {}\n").unwrap();
        std::fs::write(
            dir.join("book/src/page.md"),
            "Before.\n```rust\n{{#include ../../lab/relay.rs:relay}}\n```\n",
        )
        .unwrap();
        let bare = expanded_with(&dir.join("book/src/page.md"), &Starters::default());
        assert_eq!(
            bare, "Before.\n```rust\n\n```\n",
            "the edited file, anchor gone"
        );
        let starters = Starters {
            by_path: BTreeMap::from([(
                lexical(&dir.join("lab/relay.rs")),
                "// ANCHOR: relay\n    fn relay() {} // TODO\n// ANCHOR_END: relay\n".into(),
            )]),
        };
        let shown = expanded_with(&dir.join("book/src/page.md"), &starters);
        assert_eq!(shown, "Before.\n```rust\nfn relay() {} // TODO\n```\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_workbooks_starters_are_found_for_its_learner_files() {
        let lab = crate::meta::teachers_lab("outbox");
        let root = lab.dir.parent().unwrap().parent().unwrap().to_path_buf();
        let starters = Starters::of(&root, std::slice::from_ref(&lab));
        let starter = starters.get(&lab.dir.join("src/../src/relay.rs")).unwrap();
        assert!(starter.contains("ANCHOR: relay_outbox") && starter.contains("TODO"));
    }

    #[test]
    fn a_pages_figures_are_what_its_includes_and_images_name() {
        let page = "![Figure 4.1: a](figures/04-a.svg)\n```text\n{{#include figures/04-b.txt}}\n```\n\
                    {{#include figures/04-c.md}}\nsee figures/ and my-figures/x.svg, figures/04-a.svg.\n";
        assert_eq!(
            figures_of(page),
            ["figures/04-a.svg", "figures/04-b.txt", "figures/04-c.md"]
        );
    }

    #[test]
    fn heading_ids_and_section_pointers_follow_the_split() {
        assert_eq!(
            heading_ids(
                "# T\n## What the run shows\n```\n# not a heading\n```\n### `A` b, c!\n## What the run shows\n"
            ),
            ["t", "what-the-run-shows", "a-b-c", "what-the-run-shows-1"]
        );
        assert_eq!(
            after_the_run("book/src/01-outbox.md"),
            "book/src/01-outbox-after-the-run.md"
        );
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
        assert_eq!(
            section_page(&src, "01-outbox.md#the-relay"),
            "01-outbox-after-the-run.md#the-relay"
        );
        assert_eq!(
            section_page(&src, "01-outbox.md#predict"),
            "01-outbox.md#predict"
        );
    }

    #[test]
    fn prose_words_and_code_lines_are_counted_apart() {
        let text = "Two words.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n| x | — |\n";
        assert_eq!(measure(text), (3, 2));
    }
}
