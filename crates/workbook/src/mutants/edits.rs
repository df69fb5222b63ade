//! A catalogue entry is stored as edits of the reference solution, never as a copy of it:
//! each `[[edit]]` of its mutant.toml replaces text of one learner file of the solution.
//!
//! ```toml
//! [[edit]]
//! file = "src/receiver.rs"                 # a learner file, as lab.toml lists it
//! find = '''
//! /// Applies the effect one delivery carries, once per message id.
//! pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
//!     if !ledger.is_applied(&delivery.message_id) {'''
//! replace = '''
//! /// Applies the effect one delivery carries, unless the ledger holds one of that amount.
//! pub fn receive(ledger: &mut Ledger, delivery: &Delivery) {
//!     if !ledger.holds_amount(delivery.amount) {'''
//! ```
//!
//! The rule: every `find` is text of the reference file as it is (never as another edit
//! left it), found there exactly once, and the finds of one file do not overlap; the
//! edits of a file then apply together, so their order in mutant.toml does not matter.
//! An edit whose `find` is not found, or found more than once, is an error naming the
//! file and the find's first line (the caller adds the lab and the entry).

use serde::{Deserialize, Serialize};

/// One exact-match replacement in a learner file of the reference solution.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// The learner file, relative to the lab's folder (`src/relay.rs`); it may be left
    /// out when the lab has only one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Text of the reference file, found there exactly once.
    pub find: String,
    /// What the wrong solution has instead.
    pub replace: String,
}

/// Why an entry's edits do not apply to its reference solution. `find` is the first
/// non-blank line of the edit's `find`, trimmed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error(
        "its edit of {file} no longer applies: its find `{find}` is not in {reference}{}; make the edit again against the solution as it is now",
        gone.as_ref().map(|line| format!(" (its line `{line}` is nowhere in it)")).unwrap_or_default()
    )]
    NotFound {
        file: String,
        find: String,
        reference: String,
        /// The find's first non-blank line that the reference does not have at all, when
        /// it is not the first: what changed under the edit.
        gone: Option<String>,
    },
    #[error(
        "its edit of {file} is ambiguous: its find `{find}` occurs {count} times in {reference}; give it enough context to occur once"
    )]
    Ambiguous {
        file: String,
        find: String,
        count: usize,
        reference: String,
    },
    #[error("an edit of {file} has an empty find; an insertion finds the line before it")]
    EmptyFind { file: String },
    #[error("its edits of {file} overlap in {reference}: the finds `{first}` and `{second}`")]
    Overlap {
        file: String,
        first: String,
        second: String,
        reference: String,
    },
    #[error("it edits {file}, which is not a learner file of the lab ({learner_files})")]
    NotALearnerFile { file: String, learner_files: String },
    #[error("it has no [[edit]]: without one it is the reference solution")]
    NoEdits,
    #[error("cannot read the solution's {file}: {message}")]
    Unreadable { file: String, message: String },
}

/// The first non-blank line of `find`, trimmed: how a message names an edit.
pub fn first_line(find: &str) -> String {
    find.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

/// The first non-blank line of `find` (trimmed) that `reference` does not contain, unless
/// it is the first: the first is named anyway.
fn gone_line(reference: &str, find: &str) -> Option<String> {
    let mut lines = find.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    if !reference.contains(first) {
        return None;
    }
    lines.find(|l| !reference.contains(l)).map(str::to_string)
}

/// Where `find` starts in `text`, every occurrence, overlapping ones included.
fn occurrences(text: &str, find: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(find).map(|i| from + i) {
        found.push(at);
        let step = text[at..].chars().next().map_or(1, char::len_utf8);
        from = at + step;
    }
    found
}

/// Where the one occurrence of `edit.find` starts in `reference` (named `name` in
/// messages).
fn locate(reference: &str, name: &str, edit: &Edit) -> Result<usize, EditError> {
    if edit.find.is_empty() {
        return Err(EditError::EmptyFind {
            file: edit.file.clone().unwrap_or_else(|| name.to_string()),
        });
    }
    match occurrences(reference, &edit.find)[..] {
        [at] => Ok(at),
        [] => Err(EditError::NotFound {
            file: edit.file.clone().unwrap_or_else(|| name.to_string()),
            find: first_line(&edit.find),
            reference: name.to_string(),
            gone: gone_line(reference, &edit.find),
        }),
        ref many => Err(EditError::Ambiguous {
            file: edit.file.clone().unwrap_or_else(|| name.to_string()),
            find: first_line(&edit.find),
            count: many.len(),
            reference: name.to_string(),
        }),
    }
}

/// `reference` (the file `name` names in messages) with `edits` applied, every `find`
/// located in `reference` itself; an error when one is not found exactly once or two
/// overlap.
pub fn apply_edits(reference: &str, name: &str, edits: &[&Edit]) -> Result<String, EditError> {
    let mut spans = Vec::with_capacity(edits.len());
    for edit in edits {
        let at = locate(reference, name, edit)?;
        spans.push((at, at + edit.find.len(), *edit));
    }
    spans.sort_by_key(|(at, _, _)| *at);
    if let Some(pair) = spans.windows(2).find(|pair| pair[1].0 < pair[0].1) {
        return Err(EditError::Overlap {
            file: pair[0].2.file.clone().unwrap_or_else(|| name.to_string()),
            first: first_line(&pair[0].2.find),
            second: first_line(&pair[1].2.find),
            reference: name.to_string(),
        });
    }
    let mut out = String::with_capacity(reference.len());
    let mut from = 0;
    for (start, end, edit) in spans {
        out.push_str(&reference[from..start]);
        out.push_str(&edit.replace);
        from = end;
    }
    out.push_str(&reference[from..]);
    Ok(out)
}

/// The learner files with `edits` applied, as (file, text), in the order of
/// `learner_files`; `read` gives a reference file's text and the name messages give it.
pub fn apply_to_files(
    learner_files: &[String],
    edits: &[Edit],
    read: impl Fn(&str) -> Result<(String, String), String>,
) -> Result<Vec<(String, String)>, EditError> {
    if edits.is_empty() {
        return Err(EditError::NoEdits);
    }
    let only = match learner_files {
        [only] => Some(only),
        _ => None,
    };
    let file_of = |e: &Edit| e.file.as_ref().or(only).cloned().unwrap_or_default();
    if let Some(stray) = edits.iter().find(|e| !learner_files.contains(&file_of(e))) {
        return Err(EditError::NotALearnerFile {
            file: file_of(stray),
            learner_files: learner_files.join(", "),
        });
    }
    let mut files = Vec::with_capacity(learner_files.len());
    for file in learner_files {
        let (reference, name) = read(file).map_err(|message| EditError::Unreadable {
            file: file.clone(),
            message,
        })?;
        let mine: Vec<&Edit> = edits.iter().filter(|e| &file_of(e) == file).collect();
        files.push((file.clone(), apply_edits(&reference, &name, &mine)?));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELAY: &str =
        "fn relay() {\n    deliver();\n    mark_sent();\n}\n\nfn deliver() {\n    send();\n}\n";

    fn edit(file: &str, find: &str, replace: &str) -> Edit {
        Edit {
            file: Some(file.into()),
            find: find.into(),
            replace: replace.into(),
        }
    }

    #[test]
    fn an_edit_replaces_its_find() {
        let swap = edit(
            "src/relay.rs",
            "    deliver();\n    mark_sent();\n",
            "    mark_sent();\n    deliver();\n",
        );
        assert_eq!(
            apply_edits(RELAY, "relay.rs", &[&swap]).unwrap(),
            "fn relay() {\n    mark_sent();\n    deliver();\n}\n\nfn deliver() {\n    send();\n}\n"
        );
    }

    #[test]
    fn a_find_that_is_not_there_is_named() {
        let stale = edit("src/relay.rs", "\n    deliver_once();\n", "");
        let refused =
            apply_edits(RELAY, "solutions/01-outbox/src/relay.rs", &[&stale]).unwrap_err();
        assert_eq!(
            refused,
            EditError::NotFound {
                file: "src/relay.rs".into(),
                find: "deliver_once();".into(),
                reference: "solutions/01-outbox/src/relay.rs".into(),
                gone: None,
            }
        );
        let message = refused.to_string();
        assert!(message.contains("src/relay.rs") && message.contains("`deliver_once();`"));
        // A find named by a line that is still there also names the line that is gone.
        let moved = edit("src/relay.rs", "fn relay() {\n    deliver_once();\n", "");
        let refused = apply_edits(RELAY, "relay.rs", &[&moved]).unwrap_err();
        assert!(
            refused.to_string().contains(
                "`fn relay() {` is not in relay.rs (its line `deliver_once();` is nowhere in it)"
            ),
            "{refused}"
        );
    }

    #[test]
    fn a_find_that_occurs_twice_is_ambiguous() {
        let vague = edit("src/relay.rs", "deliver", "send");
        assert!(matches!(
            apply_edits(RELAY, "relay.rs", &[&vague]),
            Err(EditError::Ambiguous { count: 2, .. })
        ));
        // Overlapping occurrences count too.
        let overlapping = edit("src/x.rs", "aa", "b");
        assert!(matches!(
            apply_edits("aaa", "x.rs", &[&overlapping]),
            Err(EditError::Ambiguous { count: 2, .. })
        ));
        let empty = edit("src/x.rs", "", "b");
        assert!(matches!(
            apply_edits("aaa", "x.rs", &[&empty]),
            Err(EditError::EmptyFind { .. })
        ));
    }

    #[test]
    fn several_edits_apply_to_the_reference_in_any_order() {
        let first = edit("src/relay.rs", "    mark_sent();\n", "");
        let second = edit(
            "src/relay.rs",
            "    send();\n",
            "    send();\n    send();\n",
        );
        let expected =
            "fn relay() {\n    deliver();\n}\n\nfn deliver() {\n    send();\n    send();\n}\n";
        assert_eq!(
            apply_edits(RELAY, "r", &[&first, &second]).unwrap(),
            expected
        );
        assert_eq!(
            apply_edits(RELAY, "r", &[&second, &first]).unwrap(),
            expected
        );
        // A find is looked for in the reference, not in what another edit wrote.
        let renames = edit("src/relay.rs", "fn deliver() {", "fn deliver_now() {");
        let chained = edit("src/relay.rs", "fn deliver_now() {", "fn x() {");
        assert!(matches!(
            apply_edits(RELAY, "r", &[&renames, &chained]),
            Err(EditError::NotFound { .. })
        ));
        let overlapping = edit("src/relay.rs", "mark_sent();\n}\n", "}\n");
        assert!(matches!(
            apply_edits(RELAY, "r", &[&first, &overlapping]),
            Err(EditError::Overlap { .. })
        ));
    }

    #[test]
    fn edits_apply_to_each_learner_file_they_name() {
        let files = vec!["src/replay.rs".to_string(), "src/reminders.rs".to_string()];
        let read = |file: &str| {
            Ok((
                format!("// {file}\nfn main() {{}}\n"),
                format!("ref/{file}"),
            ))
        };
        let edits = vec![
            edit(
                "src/reminders.rs",
                "fn main() {}",
                "fn main() { remind(); }",
            ),
            edit("src/replay.rs", "// src/replay.rs\n", ""),
        ];
        assert_eq!(
            apply_to_files(&files, &edits, read).unwrap(),
            vec![
                ("src/replay.rs".to_string(), "fn main() {}\n".to_string()),
                (
                    "src/reminders.rs".to_string(),
                    "// src/reminders.rs\nfn main() { remind(); }\n".to_string()
                ),
            ]
        );
        let stray = vec![edit("src/world.rs", "x", "y")];
        assert!(matches!(
            apply_to_files(&files, &stray, read),
            Err(EditError::NotALearnerFile { .. })
        ));
        assert_eq!(apply_to_files(&files, &[], read), Err(EditError::NoEdits));
    }
}
