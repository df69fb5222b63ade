//! The book's one preprocessor (`[preprocessor.labs]` in book.toml runs
//! `cargo labs mdbook-preprocessor`, before mdBook's own `links`). It expands every
//! `{{#include …}}` itself, as `cargo labs read` and the gates do ([`crate::pages`]): an
//! include of a learner file shows the file's published starter, never the learner's
//! edited copy. Then every fenced code block loses the indentation all its lines share,
//! so a method included from inside an `impl` starts at the left margin instead of four
//! or eight columns in (mdBook keeps it: rust-lang/mdBook#1430).
//!
//! The protocol: mdBook runs `… supports RENDERER` (exit 0: yes), then `…` with
//! `[context, book]` as JSON on stdin, and reads the book back as JSON on stdout. The book
//! is walked as plain JSON, so the preprocessor does not depend on mdBook's crates.

use crate::pages::{Starters, expand_includes};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// `text` with every fenced code block dedented down to its fence's own indentation (a
/// block inside a list item keeps the item's indentation).
pub fn dedent_code_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut block: Option<(String, usize, Vec<&str>)> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        match (&mut block, fence) {
            (None, true) => {
                out.push_str(line);
                block = Some((trimmed[..3].to_string(), indentation(line), Vec::new()));
            }
            (Some((marker, indent, lines)), true) if trimmed.starts_with(marker.as_str()) => {
                out.push_str(&dedent(lines, *indent));
                out.push_str(line);
                block = None;
            }
            (Some((_, _, lines)), _) => lines.push(line),
            (None, false) => out.push_str(line),
        }
    }
    if let Some((_, _, lines)) = block {
        // An unclosed fence: leave what follows as it was.
        out.extend(lines);
    }
    out
}

/// The lines without the leading whitespace all non-blank ones share beyond `keep`
/// columns.
pub fn dedent(lines: &[&str], keep: usize) -> String {
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indentation(l))
        .min()
        .unwrap_or(0);
    let cut = common.saturating_sub(keep);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                l.trim_start_matches([' ', '\t']).to_string()
            } else {
                l[cut..].to_string()
            }
        })
        .collect()
}

/// Expands the includes of every chapter of a book given as JSON (a chapter's `path` is
/// relative to `src`), and dedents its code blocks.
fn walk(value: &mut Value, src: &Path, starters: &Starters) {
    match value {
        Value::Object(map) => {
            let base = match map.get("path") {
                Some(Value::String(path)) => src.join(path).parent().map(Path::to_path_buf),
                _ => None,
            };
            if let Some(Value::String(content)) = map.get_mut("content") {
                let text = match &base {
                    Some(base) => expand_includes(content, base, starters),
                    None => content.clone(),
                };
                *content = dedent_code_blocks(&text);
            }
            for (_, child) in map.iter_mut() {
                walk(child, src, starters);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| walk(i, src, starters)),
        _ => {}
    }
}

/// The book's source folder, from mdBook's context: `root` joined with `book.src`.
fn source_folder(context: &Value) -> PathBuf {
    let root = PathBuf::from(context["root"].as_str().unwrap_or("."));
    let src = context["config"]["book"]["src"].as_str().unwrap_or("src");
    root.join(src)
}

/// `cargo labs mdbook-preprocessor [supports RENDERER]`.
pub fn run(args: &[&str]) -> crate::error::Result<()> {
    use crate::error::Error;
    if args.first() == Some(&"supports") {
        return Ok(());
    }
    let input: Value = serde_json::from_reader(std::io::stdin().lock())
        .map_err(|e| Error::input(format!("mdBook sent something that is not JSON: {e}")))?;
    let Value::Array(mut pair) = input else {
        return Err(Error::input("mdBook sent no [context, book] pair"));
    };
    let mut book = pair.pop().unwrap_or(Value::Null);
    let src = source_folder(pair.first().unwrap_or(&Value::Null));
    let starters = Starters::around(&src);
    walk(&mut book, &src, &starters);
    serde_json::to_writer(std::io::stdout().lock(), &book)
        .map_err(|e| Error::io("cannot write the book", e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fenced_block_loses_its_shared_indentation_and_nothing_else() {
        let text = "Text\n    indented prose stays\n```rust\n    pub fn a() {\n        b();\n\n    }\n```\nafter\n";
        assert_eq!(
            dedent_code_blocks(text),
            "Text\n    indented prose stays\n```rust\npub fn a() {\n    b();\n\n}\n```\nafter\n"
        );
    }

    #[test]
    fn a_block_inside_a_list_item_keeps_the_items_indentation() {
        let text = "1. Run:\n\n   ```sh\n   cargo labs\n   ```\n";
        assert_eq!(dedent_code_blocks(text), text);
        let nested = "1. Run:\n\n   ```rust\n       fn a() {}\n   ```\n";
        assert_eq!(
            dedent_code_blocks(nested),
            "1. Run:\n\n   ```rust\n   fn a() {}\n   ```\n"
        );
    }

    #[test]
    fn an_included_learner_file_is_its_published_starter_and_other_includes_expand() {
        let dir = std::env::temp_dir().join(format!("bookpp-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("relay.rs"), "fn edited_by_the_learner() {}\n").unwrap();
        std::fs::write(dir.join("src/list.md"), "1. a question\n").unwrap();
        let starters = Starters::from_files([(
            dir.join("relay.rs"),
            "// ANCHOR: r\n    fn relay() {} // TODO\n// ANCHOR_END: r\n".to_string(),
        )]);
        let content = "```rust\n{{#include ../relay.rs:r}}\n```\n{{#include list.md}}\n";
        let mut book = serde_json::json!({"items": [{"Chapter": {"content": content, "path": "page.md", "sub_items": []}}]});
        walk(&mut book, &dir.join("src"), &starters);
        assert_eq!(
            book["items"][0]["Chapter"]["content"],
            "```rust\nfn relay() {} // TODO\n```\n1. a question\n\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn chapters_nested_anywhere_in_the_book_are_dedented() {
        let mut book = serde_json::json!({"items": [{"Chapter": {"content": "```\n  x\n```\n", "sub_items": [{"Chapter": {"content": "```\n    y\n```\n", "sub_items": []}}]}}]});
        walk(&mut book, Path::new("/nowhere"), &Starters::default());
        assert_eq!(book["items"][0]["Chapter"]["content"], "```\nx\n```\n");
        assert_eq!(
            book["items"][0]["Chapter"]["sub_items"][0]["Chapter"]["content"],
            "```\ny\n```\n"
        );
    }
}
