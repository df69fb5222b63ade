//! The predictions file: plain text the learner reads, edits and commits.
//!
//! ```text
//! # comments
//! unsafe-attempt-aborts = holds        a check: holds | fails | ?
//! after-unsafe-abort = b               a question: one option letter | ?
//! # sealed at first run: 2026-11-30T04:10:00Z fnv64:0123456789abcdef
//! ```
//!
//! The seal line is written once, at the first run; the hash covers every line above it,
//! so a grade can tell whether the predictions were revised after the learner saw the
//! observed results.

use crate::meta::Lab;
use labkit::hash::fnv64_hex;
use std::collections::BTreeMap;

const SEAL_PREFIX: &str = "# sealed at first run: ";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Holds(bool),
    Option(String),
}

impl Answer {
    pub fn show(&self) -> String {
        match self {
            Answer::Holds(true) => "holds".into(),
            Answer::Holds(false) => "fails".into(),
            Answer::Option(letter) => letter.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    pub at: String,
    pub hash: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Predictions {
    pub answers: BTreeMap<String, Answer>,
    pub seal: Option<Seal>,
    /// The hash of the predictions as they are now (every line above the seal).
    pub hash: String,
}

impl Predictions {
    pub fn answered(&self) -> usize {
        self.answers.len()
    }

    /// True when the file changed after it was sealed.
    pub fn revised_after_seal(&self) -> bool {
        self.seal.as_ref().is_some_and(|s| s.hash != self.hash)
    }
}

fn body_hash(text: &str) -> String {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with(SEAL_PREFIX) && !l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    format!("fnv64:{}", fnv64_hex(body.as_bytes()))
}

/// Parses a predictions file. Errors name the line and what to write instead.
pub fn parse(lab: &Lab, text: &str) -> Result<Predictions, String> {
    parse_from(lab, text, &format!("labs/{}/predictions.txt", lab.slug()))
}

/// Parses predictions from `source` (a file name, or `--set` for the command line).
pub fn parse_from(lab: &Lab, text: &str, source: &str) -> Result<Predictions, String> {
    let file = source;
    let check_ids: Vec<String> = lab.meta.checks.iter().map(|c| c.id()).collect();
    let mut predictions = Predictions {
        hash: body_hash(text),
        ..Predictions::default()
    };
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lineno = n + 1;
        if let Some(rest) = raw.strip_prefix(SEAL_PREFIX) {
            let mut parts = rest.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some(at), Some(hash)) => {
                    predictions.seal = Some(Seal {
                        at: at.to_string(),
                        hash: hash.to_string(),
                    })
                }
                _ => {
                    return Err(format!(
                        "{file} line {lineno}: the seal line is damaged; restore it from git (`git checkout -p {file}`) or delete it"
                    ));
                }
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!(
                "{file} line {lineno}: expected `id = answer`, found `{line}`"
            ));
        };
        let (key, value) = (key.trim(), value.trim().to_ascii_lowercase());
        let answer = if check_ids.iter().any(|id| id == key) {
            match value.as_str() {
                "holds" | "yes" | "true" => Some(Answer::Holds(true)),
                "fails" | "no" | "false" | "does not hold" => Some(Answer::Holds(false)),
                "?" | "" => None,
                other => {
                    return Err(format!(
                        "{file} line {lineno}: `{key}` is a check; answer `holds`, `fails` or `?`, not `{other}`"
                    ));
                }
            }
        } else if let Some(q) = lab.meta.questions.iter().find(|q| q.id == key) {
            let letter = value.trim_end_matches(')').to_string();
            if letter == "?" || letter.is_empty() {
                None
            } else if q.options.contains_key(&letter) {
                Some(Answer::Option(letter))
            } else {
                let letters: Vec<&str> = q.options.keys().map(String::as_str).collect();
                return Err(format!(
                    "{file} line {lineno}: `{key}` is a question; answer one of {} or `?`, not `{letter}`",
                    letters.join(", ")
                ));
            }
        } else {
            return Err(format!(
                "{file} line {lineno}: `{key}` is not a check or question of lab {}; keep the ids the template gave",
                lab.meta.number
            ));
        };
        if predictions.answers.contains_key(key) {
            return Err(format!(
                "{file} line {lineno}: `{key}` is answered twice; keep one line"
            ));
        }
        if let Some(answer) = answer {
            predictions.answers.insert(key.to_string(), answer);
        }
    }
    Ok(predictions)
}

/// Renders the file for `answers` (every id of the lab appears; unanswered ones as `?`).
pub fn render(lab: &Lab, answers: &BTreeMap<String, Answer>, seal: Option<&Seal>) -> String {
    let mut out = format!(
        "# Lab {} — your predictions\n\
         # For each claim write `holds` or `fails`: does it hold when the lab runs?\n\
         # For each question write the letter of one option. `?` = not answered yet.\n\
         # Answer before `cargo labs run {}`: the first run seals this file.\n\n\
         # ---- Checks ----\n",
        lab.label(),
        lab.meta.number
    );
    for (i, check) in lab.meta.checks.iter().enumerate() {
        let id = check.id();
        let value = answers.get(&id).map(Answer::show).unwrap_or("?".into());
        out.push_str(&format!("\n# {}. {}\n{id} = {value}\n", i + 1, check.claim));
    }
    if !lab.meta.questions.is_empty() {
        out.push_str("\n# ---- Questions ----\n");
    }
    for q in &lab.meta.questions {
        out.push_str(&format!("\n# {}\n", q.prompt));
        for (letter, text) in &q.options {
            out.push_str(&format!("#   {letter}) {text}\n"));
        }
        let value = answers.get(&q.id).map(Answer::show).unwrap_or("?".into());
        out.push_str(&format!("{} = {value}\n", q.id));
    }
    if let Some(seal) = seal {
        out.push_str(&format!("\n{SEAL_PREFIX}{} {}\n", seal.at, seal.hash));
    }
    out
}

/// Appends the seal line to `text` (which has none yet).
pub fn sealed(text: &str, at: &str) -> String {
    let hash = body_hash(text);
    let mut out = text.trim_end().to_string();
    out.push_str(&format!("\n\n{SEAL_PREFIX}{at} {hash}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::load_labs;
    use std::path::Path;

    fn outbox() -> Lab {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        load_labs(&root)
            .unwrap()
            .into_iter()
            .find(|l| l.meta.id == "outbox")
            .unwrap()
    }

    #[test]
    fn a_rendered_template_parses_back_to_the_same_answers() {
        let lab = outbox();
        let mut answers = BTreeMap::new();
        answers.insert("unsafe-attempt-aborts".to_string(), Answer::Holds(true));
        answers.insert("lost-response".to_string(), Answer::Option("c".into()));
        let text = render(&lab, &answers, None);
        let parsed = parse(&lab, &text).unwrap();
        assert_eq!(parsed.answers, answers);
        assert_eq!(parsed.seal, None);
    }

    #[test]
    fn a_sealed_file_reports_a_revision_but_not_a_blank_line() {
        let lab = outbox();
        let text = "unsafe-attempt-aborts = holds\n";
        let sealed_text = sealed(text, "2026-11-30T04:00:00Z");
        let parsed = parse(&lab, &sealed_text).unwrap();
        assert_eq!(parsed.seal.as_ref().unwrap().at, "2026-11-30T04:00:00Z");
        assert!(!parsed.revised_after_seal());
        let reformatted = sealed_text.replace("holds\n", "holds   \n\n");
        assert!(!parse(&lab, &reformatted).unwrap().revised_after_seal());
        let revised = sealed_text.replace("= holds", "= fails");
        assert!(parse(&lab, &revised).unwrap().revised_after_seal());
    }

    #[test]
    fn a_damaged_seal_line_is_an_error() {
        let lab = outbox();
        let err = parse(&lab, "# sealed at first run: garbage\n").unwrap_err();
        assert!(err.contains("line 1: the seal line is damaged"), "{err}");
    }

    #[test]
    fn an_answer_given_twice_is_an_error() {
        let lab = outbox();
        let err = parse(
            &lab,
            "unsafe-attempt-aborts = holds\nunsafe-attempt-aborts = fails\n",
        )
        .unwrap_err();
        assert!(
            err.contains("line 2: `unsafe-attempt-aborts` is answered twice"),
            "{err}"
        );
    }
}
