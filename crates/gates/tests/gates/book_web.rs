//! The book as a web page. The book is built with the mdBook CLI into a scratch folder;
//! then every internal link and `#anchor` of the built HTML must resolve, the offline
//! search index must be built and referenced, every page of SUMMARY.md must render in
//! headless Chromium (highlighted code, figures whose SVG exists, the lab's prediction
//! list), search must answer offline in the browser, chapter 1's screenshot is kept at
//! `target/ci-artifacts/chapter-01.png`, and `cargo labs book --serve` serves the book.
//!
//! Without mdBook or Chromium the tests that need them are ignored, with the reason, in
//! `cargo test`'s own lines and summary (the build script looks for the tools), except
//! under `CI` (set by `.ci/run`'s environment in CI), where a missing tool fails the test.

use crate::browser::{self, find_chromium, in_ci, without_tags};
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Skips (locally) or fails (in CI) when a tool is missing.
fn missing(tool: &str, install: &str) {
    assert!(!in_ci(), "CI must have {tool} installed ({install})");
    eprintln!("skipped: {tool} is not installed ({install})");
}

fn mdbook_installed() -> bool {
    let found = Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        missing(
            "mdbook",
            "cargo install mdbook --locked --version ^0.5 --no-default-features --features search",
        );
    }
    found
}

/// The Chromium binary (`CHROMIUM`, or the usual names); `None`, said, when missing.
fn chromium() -> Option<String> {
    let found = find_chromium();
    if found.is_none() {
        missing("chromium", "apt-get install -y chromium; see .ci/run");
    }
    found
}

/// The book, built once per test binary into a scratch folder (never into book/build,
/// which a reader may be serving).
fn built_book() -> &'static Path {
    static BOOK: OnceLock<PathBuf> = OnceLock::new();
    BOOK.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-web");
        let _ = std::fs::remove_dir_all(&out);
        let run = Command::new("mdbook")
            .arg("build")
            .arg("--dest-dir")
            .arg(&out)
            .current_dir(root())
            .output()
            .expect("mdbook starts");
        assert!(
            run.status.success(),
            "`mdbook build` failed:\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        out
    })
}

fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The values of every `name="…"` attribute in `html` (mdBook quotes every attribute).
fn attribute_values<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    let mut values = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        if let Some(end) = rest.find('"') {
            values.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    values
}

/// A link's target as the file system names it (a malformed escape stays as it is).
fn percent_decode(text: &str) -> String {
    workbook::serve::percent_decode(text).unwrap_or_else(|| text.to_string())
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// A link that stays inside the book (not another site, not a script).
fn is_internal(link: &str) -> bool {
    let external = ["http:", "https:", "mailto:", "javascript:", "data:", "//"];
    !link.is_empty() && !external.iter().any(|p| link.starts_with(p))
}

/// Checks every internal link of the built book in `book`: the file it names exists and,
/// for a page, holds an element with the `#anchor`'s id. Also refuses anything loaded
/// from the network (the book must work offline). Returns the links checked and the
/// problems, one line each: the page, the link and what is missing.
fn link_problems(book: &Path) -> (usize, Vec<String>) {
    let pages = files_with_extension(book, "html");
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        let set = attribute_values(&html, "id")
            .into_iter()
            .chain(attribute_values(&html, "name"))
            .map(decode_entities)
            .collect();
        ids.insert(page.clone(), set);
    }
    // The sidebar is written by toc.js (and toc.html without JavaScript): its links too.
    let mut sources: Vec<PathBuf> = pages.clone();
    sources.extend(
        files_with_extension(book, "js")
            .into_iter()
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("toc")),
    );
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in &sources {
        let html = std::fs::read_to_string(page).unwrap();
        // 404.html is served from anywhere, so its links are relative to the book's root.
        let base = if html.contains("<base href=\"/\">") {
            book.to_path_buf()
        } else {
            page.parent().unwrap().to_path_buf()
        };
        let shown = page
            .strip_prefix(book)
            .unwrap_or(page)
            .display()
            .to_string();
        for source in attribute_values(&html, "src") {
            if !is_internal(source) && !source.starts_with("data:") {
                problems.push(format!(
                    "{shown}: loads `{source}` from the network; the book must work offline"
                ));
            }
        }
        if html.contains("class=\"playground\"") {
            problems.push(format!(
                "{shown}: a runnable (playground) code block needs the network; mark it `rust,ignore`"
            ));
        }
        let links = attribute_values(&html, "href")
            .into_iter()
            .chain(attribute_values(&html, "src"));
        for link in links {
            let link = decode_entities(link);
            if !is_internal(&link) {
                continue;
            }
            checked += 1;
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let path = path.split('?').next().unwrap_or("");
            let target = if path.is_empty() {
                page.clone()
            } else if let Some(absolute) = path.strip_prefix('/') {
                book.join(percent_decode(absolute))
            } else {
                base.join(percent_decode(path))
            };
            let target = if target.is_dir() {
                target.join("index.html")
            } else {
                target
            };
            let Ok(target) = target.canonicalize() else {
                problems.push(format!(
                    "{shown}: link `{link}`: the file {} does not exist",
                    target.display()
                ));
                continue;
            };
            let fragment = percent_decode(fragment);
            if fragment.is_empty() || target.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let known = ids
                .iter()
                .find(|(p, _)| p.canonicalize().ok().as_ref() == Some(&target))
                .map(|(_, set)| set);
            if !known.is_some_and(|set| set.contains(&fragment)) {
                problems.push(format!(
                    "{shown}: link `{link}`: {} has no element with id `{fragment}`",
                    target.strip_prefix(book).unwrap_or(&target).display()
                ));
            }
        }
    }
    (checked, problems)
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
fn every_internal_link_and_anchor_resolves() {
    if !mdbook_installed() {
        return;
    }
    let book = built_book();
    let pages = files_with_extension(book, "html");
    assert!(pages.len() > 10, "the book has its pages: {pages:?}");
    let (checked, problems) = link_problems(book);
    assert!(checked > 100, "only {checked} internal links were found");
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The checker itself, on a two-page book written here (no mdBook needed): it finds a
/// missing page, a missing anchor and a script from the network, and nothing else.
#[test]
fn the_link_checker_names_the_page_the_link_and_what_is_missing() {
    let book = tempdir("link-checker");
    std::fs::create_dir_all(book.join("figures")).unwrap();
    std::fs::write(book.join("figures/a.svg"), "<svg/>").unwrap();
    std::fs::write(
        book.join("index.html"),
        r##"<h1 id="top">Book</h1><a href="one.html#predict">ok</a> <a href="#top">ok</a>
<img src="figures/a.svg"> <a href="https://example.com/">external, not followed</a>
<a href="one.html#no-such-heading">bad anchor</a> <a href="gone.html">bad page</a>"##,
    )
    .unwrap();
    std::fs::write(
        book.join("one.html"),
        r##"<h2 id="predict">Predict</h2><a href="index.html">ok</a>
<script src="https://cdn.example.com/x.js"></script>"##,
    )
    .unwrap();
    let (checked, problems) = link_problems(&book);
    assert_eq!(checked, 6, "{problems:?}");
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("index.html: link `one.html#no-such-heading`: one.html has no element with id `no-such-heading`"));
    assert!(problems[1].starts_with("index.html: link `gone.html`: the file "));
    assert!(problems[2].starts_with("one.html: loads `https://cdn.example.com/x.js`"));
    let _ = std::fs::remove_dir_all(&book);
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
fn the_offline_search_index_is_built_and_referenced() {
    if !mdbook_installed() {
        return;
    }
    let book = built_book();
    let index = std::fs::read_dir(book)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with("searchindex") && name.ends_with(".js"))
        .expect("mdBook wrote searchindex-<hash>.js (search enabled in book.toml)");
    let text = std::fs::read_to_string(book.join(&index)).unwrap();
    for word in ["outbox", "fencing", "snapshot"] {
        assert!(text.contains(word), "the search index knows `{word}`");
    }
    for page in ["index.html", "01-outbox.html", "teaching.html"] {
        let html = std::fs::read_to_string(book.join(page)).unwrap();
        assert!(
            html.contains(&format!("path_to_searchindex_js = \"{index}\"")),
            "{page} loads the search index {index} (a script, so it works from file://)"
        );
        assert!(
            html.contains("mdbook-searchbar"),
            "{page} has the search bar"
        );
    }
}

/// One page of the book as Chromium renders it, loaded once per run for every test that
/// reads it: its DOM after scripts ran (the layout probe's report taken out), what the
/// probe measured, and its screenshot (the CI artefact).
struct Rendered {
    dom: String,
    /// The layout probe's JSON report, `None` if it did not report.
    layout: Option<String>,
    screenshot: PathBuf,
}

/// Every page of SUMMARY.md, each rendered by one browser launch (DOM, probe and
/// screenshot at once), four launches at a time: a launch mostly waits, on two cores.
fn rendered(chromium: &str, page: &str) -> &'static Rendered {
    static PAGES: OnceLock<Vec<(String, Rendered)>> = OnceLock::new();
    let pages = PAGES.get_or_init(|| {
        let book = probed_book();
        let artefacts = root().join("target/ci-artifacts");
        std::fs::create_dir_all(&artefacts).unwrap();
        let done = std::sync::Mutex::new(Vec::new());
        in_parallel(summary_pages(), 4, |page| {
            let screenshot = artefacts.join(page.replace(".md", ".png"));
            let _ = std::fs::remove_file(&screenshot);
            let url = file_url(&book.join(page.replace(".md", ".html")));
            let shot = format!("--screenshot={}", screenshot.display());
            let dom = load_dom(chromium, &url, &[&shot]);
            let (dom, layout) = match dom.split_once("<pre id=\"layout-report\">") {
                Some((before, rest)) => {
                    let (json, after) = rest.split_once("</pre>").unwrap_or((rest, ""));
                    (format!("{before}{after}"), Some(decode_entities(json)))
                }
                None => (dom, None),
            };
            let page = page.to_string();
            (done.lock().unwrap()).push((
                page,
                Rendered {
                    dom,
                    layout,
                    screenshot,
                },
            ));
        });
        done.into_inner().unwrap()
    });
    match pages.iter().find(|(p, _)| p == page) {
        Some((_, rendered)) => rendered,
        None => panic!("{page} is not a page of SUMMARY.md"),
    }
}

/// The DOM of `url` once its scripts ran, with `extra` flags (a screenshot's).
fn load_dom(chromium: &str, url: &str, extra: &[&str]) -> String {
    let profile = tempdir("chromium-profile");
    let out = Command::new(chromium)
        .args(browser::flags(&profile, 1280, 1700))
        .args(extra)
        .arg("--dump-dom")
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .expect("chromium starts");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(out.status.success(), "chromium --dump-dom {url} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tempdir(what: &str) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{what}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Text as a reader sees it: tags dropped, entities decoded, typographic quotes and
/// dashes (mdBook's smart punctuation) folded to ASCII, whitespace collapsed.
fn visible_text(html: &str) -> String {
    fold(&decode_entities(&without_tags(html)))
}

fn fold(text: &str) -> String {
    let text = text
        .replace(['‘', '’'], "'")
        .replace(['“', '”'], "\"")
        .replace(['–', '—'], "-")
        .replace('…', "...")
        .replace("---", "-")
        .replace("--", "-");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` without any whitespace: inline markup (`<code>`, `<em>`) may add or drop a
/// space at its edges, so containment is tested on the letters alone.
fn squash(text: &str) -> String {
    text.split_whitespace().collect()
}

/// The lines a predictions page must show: each claim, each question, each option.
fn prediction_lines(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let body = if let Some((number, claim)) = line.split_once(". ")
                && !number.is_empty()
                && number.chars().all(|c| c.is_ascii_digit())
            {
                claim
            } else if let Some(option) = line.strip_prefix("- (") {
                option.split_once(") ")?.1
            } else if line.starts_with("**") {
                line.trim_matches('*')
            } else {
                return None;
            };
            Some(fold(&body.replace(['`', '*'], "")))
        })
        .collect()
}

/// The `<code>` elements inside `<pre>` of a DOM: (class attribute, visible text).
fn code_blocks(dom: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    for part in dom.split("<pre").skip(1) {
        let Some(code) = part.split_once("<code") else {
            continue;
        };
        let class = attribute_values(&format!("<code{}", code.1), "class")
            .first()
            .map(|c| c.to_string())
            .unwrap_or_default();
        let body = code.1.split_once('>').map(|b| b.1).unwrap_or("");
        let body = body.split("</code>").next().unwrap_or("");
        blocks.push((class, visible_text(body)));
    }
    blocks
}

/// The pages SUMMARY.md lists, in order.
fn summary_pages() -> Vec<String> {
    let summary = std::fs::read_to_string(root().join("book/src/SUMMARY.md")).unwrap();
    summary
        .lines()
        .filter_map(|l| l.rsplit_once("](")?.1.strip_suffix(')').map(str::to_string))
        .filter(|f| f.ends_with(".md"))
        .collect()
}

/// What one page must show in the browser; the problems found, one line each.
fn check_rendered_page(book: &Path, source: &str, dom: &str) -> Vec<String> {
    let src = root().join("book/src");
    let markdown = std::fs::read_to_string(src.join(source)).unwrap();
    let text = visible_text(dom);
    let mut problems = Vec::new();
    let mut problem = |what: String| problems.push(format!("{source}: {what}"));
    if !dom.contains("<main") || !dom.contains("<h1") {
        problem("no <main> with a heading: the page did not render".into());
    }
    if text.contains("{{#") {
        problem("a `{{#…}}` directive is shown as text: an include did not resolve".into());
    }
    if !dom.contains("mdbook-sidebar-scrollbox") || !dom.contains("href=\"01-outbox.html\"") {
        problem("the sidebar (written by toc.js) is missing".into());
    }
    // Code: every fenced block is there, highlighted by highlight.js, with content.
    let blocks = code_blocks(dom);
    let fenced = markdown
        .lines()
        .filter(|l| l.trim_start().starts_with("```") && l.trim().len() > 3)
        .count();
    if blocks.len() < fenced {
        problem(format!(
            "{} code blocks rendered, the chapter has {fenced}",
            blocks.len()
        ));
    }
    for (i, (class, content)) in blocks.iter().enumerate() {
        if !class.split_whitespace().any(|c| c == "hljs") {
            problem(format!(
                "code block {} is not highlighted (class `{class}`)",
                i + 1
            ));
        }
        if content.trim().is_empty() {
            problem(format!("code block {} is empty", i + 1));
        }
    }
    let rust_source = markdown.matches("```rust").count();
    let rust_rendered = blocks
        .iter()
        .filter(|(class, _)| class.contains("language-rust"))
        .count();
    if rust_rendered != rust_source {
        problem(format!(
            "{rust_rendered} Rust blocks rendered, the chapter has {rust_source}"
        ));
    }
    // Figures: every image of the chapter is an <img> whose SVG was copied into the book.
    let wanted: BTreeSet<String> = markdown
        .split("](")
        .skip(1)
        .filter_map(|p| p.split(')').next())
        .filter(|l| l.ends_with(".svg") || l.ends_with(".png"))
        .map(str::to_string)
        .collect();
    let shown: BTreeSet<String> = dom
        .split("<img")
        .skip(1)
        .filter_map(|tag| {
            attribute_values(&format!("<img{tag}"), "src")
                .first()
                .map(|s| s.to_string())
        })
        .collect();
    for image in &wanted {
        if !shown.contains(image) {
            problem(format!("the figure {image} is not an <img> on the page"));
        }
    }
    for image in &shown {
        let file = book.join(percent_decode(image));
        let svg = std::fs::read_to_string(&file).unwrap_or_default();
        if image.ends_with(".svg") && !svg.trim_start().starts_with("<svg") {
            problem(format!(
                "<img src=\"{image}\">: {} is missing or not an SVG",
                file.display()
            ));
        }
    }
    // The prediction list: the included predictions page, every line of it.
    for part in markdown.split("{{#include predictions/").skip(1) {
        let file = part.split("}}").next().unwrap_or("").trim();
        let page = std::fs::read_to_string(src.join("predictions").join(file)).unwrap();
        let lines = prediction_lines(&page);
        if lines.is_empty() {
            problem(format!("predictions/{file} lists nothing"));
        }
        for line in lines {
            if !squash(&text).contains(&squash(&line)) {
                problem(format!(
                    "the prediction `{line}` (predictions/{file}) is not on the page"
                ));
            }
        }
    }
    problems
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
#[cfg_attr(
    all(no_chromium, not(no_mdbook)),
    ignore = "chromium is not installed: apt-get install -y chromium (or set CHROMIUM)"
)]
fn every_chapter_renders_in_headless_chromium() {
    if !mdbook_installed() {
        return;
    }
    let Some(chromium) = chromium() else {
        return;
    };
    let book = built_book();
    let pages = summary_pages();
    assert!(
        pages.len() >= 12,
        "SUMMARY.md lists the chapters: {pages:?}"
    );
    let lab_chapters = (pages.iter())
        .filter(|p| p.as_bytes()[0].is_ascii_digit() && !p.ends_with("-after-the-run.md"));
    let labs = workbook::meta::load_labs(&root()).unwrap().labs;
    assert_eq!(
        lab_chapters.count(),
        labs.len(),
        "every lab has a chapter in SUMMARY.md"
    );
    let problems =
        for_every_page(|page| check_rendered_page(book, page, &rendered(&chromium, page).dom));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
    // The prediction lists were found at all: chapter 1's first question is on its page.
    let chapter = &rendered(&chromium, "01-outbox.md").dom;
    let first_question = &labs[0].meta.checks[0].ask;
    assert!(squash(&visible_text(chapter)).contains(&squash(&fold(first_question))));
}

/// Markdown inline syntax dropped: link targets, code ticks, emphasis.
fn plain_markdown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == ']' && (rest.starts_with("](") || rest.starts_with("][")) {
            let close = if rest.starts_with("](") { ')' } else { ']' };
            rest = rest[2..].split_once(close).map_or("", |(_, after)| after);
            continue;
        }
        if !matches!(c, '[' | '`' | '*') {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    fold(&out)
}

/// What the page after a chapter's run says, as another page could show it: its headings
/// (compared whole) and its paragraphs of a dozen words or more (compared by letters).
fn post_run_text(markdown: &str) -> (Vec<String>, Vec<String>) {
    let (mut headings, mut paragraphs) = (Vec::new(), Vec::new());
    let mut in_code = false;
    for block in markdown.split("\n\n") {
        let first = block.trim_start();
        let fences = block
            .lines()
            .filter(|l| l.trim_start().starts_with("```"))
            .count();
        let was_code = in_code;
        in_code ^= fences % 2 == 1;
        if was_code
            || first.starts_with("```")
            || first.starts_with('|')
            || first.starts_with('!')
            || first.starts_with("{{#")
            || first.starts_with('[') && first.contains("]: ")
        {
            continue;
        }
        if let Some(heading) = first.strip_prefix("##") {
            headings.push(plain_markdown(heading.trim_start_matches('#')));
        } else if !first.starts_with('#') && first.split_whitespace().count() >= 12 {
            paragraphs.push(squash(&plain_markdown(block)));
        }
    }
    (headings, paragraphs)
}

/// The headings a page shows (`<h1>`…`<h6>`) and those its sidebar lists.
fn shown_headings(dom: &str) -> Vec<String> {
    let mut shown = Vec::new();
    for level in 1..=6 {
        for part in dom.split(&format!("<h{level}")).skip(1) {
            let inner = part.split_once('>').map_or("", |(_, rest)| rest);
            let inner = inner.split(&format!("</h{level}>")).next().unwrap_or("");
            shown.push(visible_text(inner));
        }
    }
    for part in dom.split("class=\"header-in-summary").skip(1) {
        let inner = part.split_once('>').map_or("", |(_, rest)| rest);
        shown.push(visible_text(inner.split("</a>").next().unwrap_or("")));
    }
    shown
}

/// The problems of one page a learner reads before a run: a heading of a page after the
/// run shown or listed, a paragraph of one on it, or a sidebar title that is not neutral.
fn before_the_run_problems(
    page: &str,
    dom: &str,
    after: &[(String, Vec<String>, Vec<String>)],
) -> Vec<String> {
    let mut problems = Vec::new();
    let shown = shown_headings(dom);
    let text = squash(&visible_text(dom));
    for (after_page, headings, paragraphs) in after {
        for heading in headings.iter().filter(|h| shown.contains(h)) {
            problems.push(format!(
                "{page} shows the heading `{heading}` of {after_page}"
            ));
        }
        for paragraph in paragraphs.iter().filter(|p| text.contains(p.as_str())) {
            problems.push(format!(
                "{page} shows text of {after_page}: {paragraph:.80}"
            ));
        }
        let link = format!("href=\"{}\"", after_page.replace(".md", ".html"));
        let titles: Vec<String> = (dom.split(&link).skip(1))
            .filter_map(|part| part.split_once('>').map(|(_, rest)| rest))
            .map(|rest| visible_text(rest.split("</a>").next().unwrap_or("")))
            .collect();
        // An arrow (an icon, no text) says nothing; a link with words must be neutral.
        let telling = |t: &&String| {
            !t.is_empty() && !t.ends_with("After the run") && !t.ends_with("after the run")
        };
        for title in titles.iter().filter(telling) {
            problems.push(format!(
                "{page}: the link to {after_page} reads `{title}`, not a neutral \"After the run\""
            ));
        }
    }
    problems
}

/// Nothing a learner reads before a run answers an item: no page of the book but the
/// pages after the runs (and the teacher's chapter) shows or lists a heading of a page
/// after a run, or any of its paragraphs — neither in its text nor in its sidebar, which
/// mdBook 0.5 fills with the current page's headings.
#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
#[cfg_attr(
    all(no_chromium, not(no_mdbook)),
    ignore = "chromium is not installed: apt-get install -y chromium (or set CHROMIUM)"
)]
fn no_page_before_the_run_shows_what_comes_after_it() {
    if !mdbook_installed() {
        return;
    }
    let Some(chromium) = chromium() else {
        return;
    };
    let src = root().join("book/src");
    let (after, before): (Vec<String>, Vec<String>) = (summary_pages().into_iter())
        .filter(|p| p != "teaching.md")
        .partition(|p| p.ends_with("-after-the-run.md"));
    assert_eq!(
        after.len(),
        10,
        "every chapter has its page after the run: {after:?}"
    );
    let after: Vec<(String, Vec<String>, Vec<String>)> = (after.into_iter())
        .map(|page| {
            let (headings, paragraphs) =
                post_run_text(&std::fs::read_to_string(src.join(&page)).unwrap());
            assert!(
                headings.len() >= 8 && paragraphs.len() >= 5,
                "{page}: {headings:?}"
            );
            (page, headings, paragraphs)
        })
        .collect();
    let problems = for_pages(before, |page| {
        let dom = &rendered(&chromium, page).dom;
        let mut problems = before_the_run_problems(page, dom, &after);
        if page.as_bytes()[0].is_ascii_digit() && !dom.contains("class=\"header-in-summary") {
            problems.push(format!(
                "{page}: the sidebar lists none of the page's own headings"
            ));
        }
        problems
    });
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The spoiler check itself, on a page written here (no browser needed).
#[test]
fn the_spoiler_check_finds_a_heading_a_paragraph_and_a_telling_title() {
    let after_md = "# After\n\n## What the run shows\n\nThe lost response moved from its first run to its second run, and the third run stopped at the flag.\n\n```rust\nfn code_is_not_prose_and_is_not_compared_here_at_all_whatever_it_says() {}\n```\n";
    let (headings, paragraphs) = post_run_text(after_md);
    assert_eq!(headings, ["What the run shows"]);
    assert_eq!(paragraphs.len(), 1);
    let after = vec![("01-x-after-the-run.md".to_string(), headings, paragraphs)];
    let clean = r##"<h1 id="x">X</h1><a href="#predict" class="header-in-summary">Predict</a><a href="01-x-after-the-run.html"><strong>1.1.</strong> After the run</a>"##;
    assert!(before_the_run_problems("01-x.md", clean, &after).is_empty());
    let leaky = r##"<a href="#w" class="header-in-summary">What the run shows</a><p>The lost response moved from its first run to its <code>second run</code>, and the third run stopped at the flag.</p><a href="01-x-after-the-run.html">1.1. Order is per key</a>"##;
    let problems = before_the_run_problems("01-x.md", leaky, &after);
    assert_eq!(problems.len(), 3, "{problems:#?}");
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
#[cfg_attr(
    all(no_chromium, not(no_mdbook)),
    ignore = "chromium is not installed: apt-get install -y chromium (or set CHROMIUM)"
)]
fn search_answers_offline_in_the_browser() {
    if !mdbook_installed() {
        return;
    }
    let Some(chromium) = chromium() else {
        return;
    };
    let book = built_book();
    let url = format!("{}?search=outbox", file_url(&book.join("index.html")));
    let dom = load_dom(&chromium, &url, &[]);
    let results = dom
        .split_once("id=\"mdbook-searchresults\"")
        .map(|(_, rest)| rest.split("</ul>").next().unwrap_or(""))
        .unwrap_or("");
    assert!(
        results.contains("href=\"01-outbox.html"),
        "searching `outbox` offline finds chapter 1; results: {results:.300}"
    );
}

/// Measures, once the page has loaded, every code block, figure and table of the page's
/// content against the content column, and writes what is wider into the page as JSON
/// (`<pre id="layout-report">`), where `--dump-dom` finds it.
const LAYOUT_PROBE: &str = r#"<script>
window.addEventListener('load', () => {
  const main = document.querySelector('main');
  const right = main.getBoundingClientRect().right;
  const wide = [];
  for (const el of main.querySelectorAll('pre, img, table, svg')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue; // not laid out (hidden)
    const what = el.tagName.toLowerCase() + ' ' +
      (el.getAttribute('src') || el.textContent || '').trim().slice(0, 70).replace(/\s+/g, ' ');
    if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'IMG') {
      wide.push(what + ' (scrolls: ' + el.scrollWidth + ' px of content in ' + el.clientWidth + ' px)');
    } else if (box.right > right + 1) {
      wide.push(what + ' (runs ' + Math.round(box.right - right) + ' px past the column)');
    } else if (el.tagName === 'IMG' && el.naturalWidth > el.clientWidth + 1) {
      wide.push(what + ' (shrunk from ' + el.naturalWidth + ' px to ' + el.clientWidth + ' px)');
    }
  }
  const report = document.createElement('pre');
  report.id = 'layout-report';
  report.textContent = JSON.stringify({ column: main.clientWidth, wide });
  document.body.appendChild(report);
});
</script>"#;

/// A copy of the built book whose pages carry the layout probe; the book itself stays as
/// a reader gets it.
fn probed_book() -> &'static Path {
    static BOOK: OnceLock<PathBuf> = OnceLock::new();
    BOOK.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-web-probed");
        let _ = std::fs::remove_dir_all(&out);
        copy_dir(built_book(), &out);
        for page in files_with_extension(&out, "html") {
            let html = std::fs::read_to_string(&page).unwrap();
            std::fs::write(
                &page,
                html.replace("</body>", &format!("{LAYOUT_PROBE}</body>")),
            )
            .unwrap();
        }
        out
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `each` on every page of SUMMARY.md and gathers what it returns.
fn for_every_page(each: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    for_pages(summary_pages(), each)
}

/// Runs `each` on every page of `pages` and gathers what it returns.
fn for_pages(pages: Vec<String>, each: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    pages.iter().flat_map(|page| each(page)).collect()
}

/// Runs `each` on every item of `items`, `threads` at a time.
fn in_parallel(items: Vec<String>, threads: usize, each: impl Fn(&str) + Sync) {
    let queue = std::sync::Mutex::new(items);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some(item) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    each(&item);
                }
            });
        }
    });
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
#[cfg_attr(
    all(no_chromium, not(no_mdbook)),
    ignore = "chromium is not installed: apt-get install -y chromium (or set CHROMIUM)"
)]
fn nothing_on_any_page_is_wider_than_its_column() {
    if !mdbook_installed() {
        return;
    }
    let Some(chromium) = chromium() else {
        return;
    };
    let problems = for_every_page(|page| {
        let Some(report) = &rendered(&chromium, page).layout else {
            return vec![format!("{page}: the layout probe did not report")];
        };
        let report: serde_json::Value = serde_json::from_str(report).unwrap();
        report["wide"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| format!("{page}: {}", w.as_str().unwrap()))
            .collect()
    });
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
#[cfg_attr(
    all(no_chromium, not(no_mdbook)),
    ignore = "chromium is not installed: apt-get install -y chromium (or set CHROMIUM)"
)]
fn every_page_is_kept_as_a_screenshot_artefact() {
    if !mdbook_installed() {
        return;
    }
    let Some(chromium) = chromium() else {
        return;
    };
    let problems = for_every_page(|page| {
        let png = &rendered(&chromium, page).screenshot;
        let Ok(bytes) = std::fs::read(png) else {
            return vec![format!("{page}: no screenshot")];
        };
        let size = (
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
        );
        // A blank page compresses to a few kilobytes; a rendered chapter does not.
        if &bytes[..8] != b"\x89PNG\r\n\x1a\n" || size != (1280, 1700) || bytes.len() < 50_000 {
            return vec![format!(
                "{page}: the screenshot is not a rendered page ({size:?}, {} bytes)",
                bytes.len()
            )];
        }
        Vec::new()
    });
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
    eprintln!(
        "screenshots: {}",
        root().join("target/ci-artifacts").display()
    );
}

/// One HTTP/1.1 GET against the server: (status line, body).
fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(addr).expect("the server accepts");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
fn book_serve_builds_and_serves_the_book_over_http() {
    if !mdbook_installed() {
        return;
    }
    let mut child = Command::new(common::cli_binary())
        .args(["book", "--serve"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the CLI starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let url_line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("serving "));
    let outcome = std::panic::catch_unwind(|| {
        let line = url_line.expect("`book --serve` prints the URL it serves");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .expect("an http://127.0.0.1:PORT/ URL")
            .to_string();
        assert!(
            addr.starts_with("127.0.0.1:"),
            "bound to the loopback only: {line}"
        );
        let (status, body) = get(&addr, "/");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(body.contains("Boundary Labs"), "/ is the book's index page");
        let (status, body) = get(&addr, "/01-outbox-after-the-run.html#the-relay");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(
            body.contains("relay_outbox"),
            "chapter 1's build phase with its included code"
        );
        let (status, body) = get(&addr, "/figures/01-outbox-relay.svg");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(body.starts_with("<svg"));
        let (status, _) = get(&addr, "/../Cargo.toml");
        assert_eq!(status, "HTTP/1.1 404 Not Found", "nothing outside the book");
        let (status, _) = get(&addr, "/no-such-page.html");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
    });
    child.kill().expect("the server is stopped");
    let _ = child.wait();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// The page checks' readers, on a DOM written here (no browser needed).
#[test]
fn the_page_checks_read_code_blocks_and_prediction_lines() {
    let dom = r##"<pre><code class="language-rust ignore hljs"><span class="hljs-keyword">fn</span> main() {}</code></pre>
<pre><code class="language-text"></code></pre><p>Nothing: answers <code>existing</code>.</p>"##;
    let blocks = code_blocks(dom);
    assert_eq!(
        blocks,
        [
            (
                "language-rust ignore hljs".to_string(),
                "fn main() {}".to_string()
            ),
            ("language-text".to_string(), String::new()),
        ]
    );
    let page = "Before you run lab 11, record a prediction.\n\n1. a lost response means `x`\n\n**How many?**\n\n- (a) Nothing: answers `existing`.\n";
    let lines = prediction_lines(page);
    assert_eq!(
        lines,
        [
            "a lost response means x",
            "How many?",
            "Nothing: answers existing."
        ]
    );
    assert!(squash(&visible_text(dom)).contains(&squash(&lines[2])));
    assert!(!squash(&visible_text(dom)).contains(&squash(&lines[0])));
    assert_eq!(fold("it’s “quoted” -- … "), "it's \"quoted\" - ...");
}
