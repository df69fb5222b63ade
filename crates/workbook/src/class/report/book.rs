//! Where a misconception is taught: a catalogue entry's `section` (`01-outbox.md#anchor`)
//! as a chapter, a heading and a link into the built book.

use super::model::BookSection;
use crate::meta::Lab;
use std::path::Path;

/// The id mdBook gives a heading: letters, digits, `_` and `-` kept in lower case,
/// whitespace made `-`, everything else dropped.
pub fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// A heading's text as a reader sees it: inline code, emphasis and link targets dropped.
fn plain(markdown: &str) -> String {
    let mut out = String::new();
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' | '*' => {}
            '[' => {}
            ']' if chars.peek() == Some(&'(') => {
                for d in chars.by_ref() {
                    if d == ')' {
                        break;
                    }
                }
            }
            ']' => {}
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

/// The heading of `chapter_markdown` whose id is `anchor`.
pub fn find_heading(chapter_markdown: &str, anchor: &str) -> Option<String> {
    let mut in_code = false;
    for line in chapter_markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let text = line.trim_start_matches('#').trim();
        // An explicit id: `## Heading {#id}`.
        if let Some((before, id)) = text.rsplit_once("{#")
            && id.trim_end().trim_end_matches('}') == anchor
        {
            return Some(plain(before));
        }
        let shown = plain(text);
        if heading_id(&shown) == anchor {
            return Some(shown);
        }
    }
    None
}

/// The section `target` names, linked under `book_base` (the built book's folder or
/// address, ending in `/`).
pub fn section(root: &Path, labs: &[Lab], target: &str, book_base: &str) -> BookSection {
    // A chapter is two pages (up to Predict, and after the run): link the one that holds
    // the heading.
    let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
    let on_page = crate::pages::section_page(&root.join("book/src"), target);
    let page_file = on_page.split_once('#').map_or(on_page.as_str(), |(f, _)| f);
    let lab = labs.iter().find(|l| {
        Path::new(&l.meta.chapter)
            .file_name()
            .is_some_and(|f| f.to_string_lossy() == file)
    });
    let chapter = match lab {
        Some(lab) => format!(
            "Chapter {} · {}",
            lab.meta.number.trim_start_matches('0'),
            lab.meta.title
        ),
        None => file.trim_end_matches(".md").to_string(),
    };
    // The page after the run is read as a learner's CLI opens it (in the student edition
    // it is a stand-in until the seal).
    let heading = lab
        .map(|lab| {
            if page_file == file {
                std::fs::read_to_string(root.join("book/src").join(page_file)).unwrap_or_default()
            } else {
                crate::pages::after_the_run_text(root, lab)
            }
        })
        .and_then(|text| find_heading(&text, anchor));
    let page = page_file.strip_suffix(".md").unwrap_or(page_file);
    let href = if anchor.is_empty() {
        format!("{book_base}{page}.html")
    } else {
        format!("{book_base}{page}.html#{anchor}")
    };
    BookSection {
        target: target.to_string(),
        chapter,
        heading,
        href,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_found_by_their_mdbook_id() {
        let chapter = "# Title\n\n```text\n## not a heading\n```\n\n## What the run shows\n\n### The `relay`'s [retry](x.md) loop\n\n## Custom {#mine}\n";
        assert_eq!(
            find_heading(chapter, "what-the-run-shows").as_deref(),
            Some("What the run shows")
        );
        assert_eq!(
            find_heading(chapter, "the-relays-retry-loop").as_deref(),
            Some("The relay's retry loop")
        );
        assert_eq!(find_heading(chapter, "mine").as_deref(), Some("Custom"));
        assert_eq!(find_heading(chapter, "not-a-heading"), None);
    }

    #[test]
    fn every_catalogue_section_names_a_heading_of_its_chapter() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let labs = crate::meta::load_labs(&root).unwrap().labs;
        for lab in &labs {
            for diagnosis in &lab.key.diagnoses {
                let found = section(&root, &labs, &diagnosis.section, "book/");
                assert!(
                    found.heading.is_some(),
                    "lab {}: {} names no heading",
                    lab.meta.number,
                    diagnosis.section
                );
            }
        }
    }
}
