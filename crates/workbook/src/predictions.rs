//! The predictions file: plain text the learner reads, edits and commits.
//!
//! ```text
//! # comments
//! external-effect-survives-rollback = yes    a question about the run: yes | no | ?
//! after-unsafe-abort = b                     a multiple-choice question: a letter | ?
//! # sealed at first run: 2026-12-01T10:00:00Z answers=yn?|b? mac=0123456789abcdef
//! ```
//!
//! The seal is written once, before the first run shows anything. It carries the answers
//! as they were at that moment (one character per item, in the lab's order) and a keyed
//! checksum over them, so a grade scores what was predicted before the run, and an answer
//! changed afterwards counts as revised. The checksum's key ships with the CLI: it stops a
//! slip of the editor, not a learner set on forging — the teacher's guide says so.

use crate::error::{Error, Result};
use crate::meta::Lab;
use labkit::hash::{fnv64_hex, siphash24};
use std::collections::BTreeMap;

const SEAL_PREFIX: &str = "# sealed at first run: ";
const SEAL_KEY: [u8; 16] = *b"boundary-labs/v2";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A yes/no question about the run (`yes`: the claim holds).
    Claim(bool),
    /// A multiple-choice question: the option's letter.
    Option(String),
}

impl Answer {
    pub fn show(&self) -> String {
        match self {
            Answer::Claim(true) => "yes".into(),
            Answer::Claim(false) => "no".into(),
            Answer::Option(letter) => letter.clone(),
        }
    }

    fn code(&self) -> char {
        match self {
            Answer::Claim(true) => 'y',
            Answer::Claim(false) => 'n',
            Answer::Option(letter) => letter.chars().next().unwrap_or('?'),
        }
    }
}

/// The seal: when the predictions were sealed, and what they were then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    pub at: String,
    /// The sealed answers, one character per item (`y`, `n`, a letter, `?`), checks
    /// first, then `|`, then the questions.
    pub answers: String,
    pub mac: String,
}

impl Seal {
    /// Seals `answers` of `lab` at time `at`.
    pub fn new(lab: &Lab, answers: &BTreeMap<String, Answer>, at: &str) -> Seal {
        let code = answer_code(lab, answers);
        Seal {
            mac: mac(&lab.meta.id, at, &code),
            at: at.to_string(),
            answers: code,
        }
    }

    /// True when the checksum matches: the seal line was not edited.
    pub fn intact(&self, lab: &Lab) -> bool {
        self.mac == mac(&lab.meta.id, &self.at, &self.answers)
            && self.answers.chars().count() == lab.prediction_count() + 1
    }

    /// The answer sealed for item number `index` (in [`Lab::item_ids`] order).
    pub fn answer_at(&self, index: usize) -> Option<char> {
        self.answers
            .chars()
            .filter(|c| *c != '|')
            .nth(index)
            .filter(|c| *c != '?')
    }

    pub fn line(&self) -> String {
        format!(
            "{SEAL_PREFIX}{} answers={} mac={}",
            self.at, self.answers, self.mac
        )
    }
}

fn answer_code(lab: &Lab, answers: &BTreeMap<String, Answer>) -> String {
    let code = |id: &str| answers.get(id).map_or('?', Answer::code);
    let checks: String = lab.meta.checks.iter().map(|c| code(&c.id())).collect();
    let questions: String = lab.meta.questions.iter().map(|q| code(&q.id)).collect();
    format!("{checks}|{questions}")
}

fn mac(lab_id: &str, at: &str, code: &str) -> String {
    format!(
        "{:016x}",
        siphash24(SEAL_KEY, format!("{lab_id}\n{at}\n{code}").as_bytes())
    )
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Predictions {
    pub answers: BTreeMap<String, Answer>,
    pub seal: Option<Seal>,
    /// A seal line in the format of an earlier version: it proves a time, not answers.
    pub legacy_seal: Option<String>,
}

impl Predictions {
    pub fn answered(&self) -> usize {
        self.answers.len()
    }

    /// The items answered now whose answer differs from the sealed one (an item
    /// unanswered at the seal and answered later counts too). Without a seal, none.
    pub fn revised(&self, lab: &Lab) -> Vec<String> {
        let Some(seal) = &self.seal else {
            return Vec::new();
        };
        lab.item_ids()
            .into_iter()
            .enumerate()
            .filter(|(i, id)| {
                let now = self.answers.get(id).map(Answer::code);
                now.is_some() && now != seal.answer_at(*i)
            })
            .map(|(_, id)| id)
            .collect()
    }

    /// The answers as sealed, by item id (unanswered items are absent).
    pub fn sealed_answers(&self, lab: &Lab) -> BTreeMap<String, Answer> {
        let Some(seal) = &self.seal else {
            return BTreeMap::new();
        };
        let n_checks = lab.meta.checks.len();
        lab.item_ids()
            .into_iter()
            .enumerate()
            .filter_map(|(i, id)| {
                let c = seal.answer_at(i)?;
                let answer = if i < n_checks {
                    Answer::Claim(c == 'y')
                } else {
                    Answer::Option(c.to_string())
                };
                Some((id, answer))
            })
            .collect()
    }
}

/// Parses a predictions file. Errors name the line and what to write instead.
pub fn parse(lab: &Lab, text: &str) -> Result<Predictions> {
    parse_from(lab, text, &format!("labs/{}/predictions.txt", lab.slug()))
}

fn claim_answer(value: &str) -> Option<Option<Answer>> {
    match value {
        "yes" | "y" | "holds" | "true" => Some(Some(Answer::Claim(true))),
        "no" | "n" | "fails" | "false" | "does not hold" => Some(Some(Answer::Claim(false))),
        "?" | "" => Some(None),
        _ => None,
    }
}

/// Parses predictions from `source` (a file name, or `--set` for the command line).
pub fn parse_from(lab: &Lab, text: &str, source: &str) -> Result<Predictions> {
    let file = source;
    let check_ids: Vec<String> = lab.meta.checks.iter().map(|c| c.id()).collect();
    let mut predictions = Predictions::default();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lineno = n + 1;
        if let Some(rest) = raw.strip_prefix(SEAL_PREFIX) {
            if predictions.seal.is_some() || predictions.legacy_seal.is_some() {
                return Err(Error::input(format!(
                    "{file} line {lineno}: a second seal line; keep the first one only"
                )));
            }
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.as_slice() {
                [at, answers, mac]
                    if answers.starts_with("answers=") && mac.starts_with("mac=") =>
                {
                    predictions.seal = Some(Seal {
                        at: at.to_string(),
                        answers: answers["answers=".len()..].to_string(),
                        mac: mac["mac=".len()..].to_string(),
                    });
                }
                [at, hash] if hash.starts_with("fnv64:") => {
                    predictions.legacy_seal = Some(at.to_string());
                }
                _ => {
                    return Err(Error::input(format!(
                        "{file} line {lineno}: the seal line is damaged; restore it from git or from a backup, or delete it (the first seal is also kept in .labs/progress.db)"
                    )));
                }
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(Error::input(format!(
                "{file} line {lineno}: expected `id = answer`, found `{line}`"
            )));
        };
        let (key, value) = (key.trim(), value.trim().to_ascii_lowercase());
        let answer = if check_ids.iter().any(|id| id == key) {
            claim_answer(&value).ok_or_else(|| {
                Error::input(format!(
                    "{file} line {lineno}: `{key}` is a yes/no question; answer `yes`, `no` or `?`, not `{value}`"
                ))
            })?
        } else if let Some(q) = lab.meta.questions.iter().find(|q| q.id == key) {
            let letter = value.trim_end_matches(')').to_string();
            if letter == "?" || letter.is_empty() {
                None
            } else if q.options.contains_key(&letter) {
                Some(Answer::Option(letter))
            } else {
                let letters: Vec<&str> = q.options.keys().map(String::as_str).collect();
                return Err(Error::input(format!(
                    "{file} line {lineno}: `{key}` is a multiple-choice question; answer one of {} or `?`, not `{letter}`",
                    letters.join(", ")
                )));
            }
        } else {
            return Err(Error::input(format!(
                "{file} line {lineno}: `{key}` is not a question of lab {}; keep the ids the template gave",
                lab.meta.number
            )));
        };
        if predictions.answers.contains_key(key) {
            return Err(Error::input(format!(
                "{file} line {lineno}: `{key}` is answered twice; keep one line"
            )));
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
         # Answer each question about the run `yes` or `no`, and each multiple-choice\n\
         # question with the letter of one option. `?` = not answered yet.\n\
         # Answer before `cargo labs run {}`: the first run seals this file, and an answer\n\
         # changed after the seal counts as revised.\n\n\
         # ---- Questions about the run ----\n",
        lab.label(),
        lab.meta.number
    );
    for (i, check) in lab.meta.checks.iter().enumerate() {
        let id = check.id();
        let value = answers.get(&id).map(Answer::show).unwrap_or("?".into());
        out.push_str(&format!(
            "\n# {}. {}\n{id} = {value}\n",
            i + 1,
            check.question()
        ));
    }
    if !lab.meta.questions.is_empty() {
        out.push_str("\n# ---- Multiple choice ----\n");
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
        out.push_str(&format!("\n{}\n", seal.line()));
    }
    out
}

/// `text` with `seal`'s line appended (it must have none yet); everything the learner
/// wrote stays as it was.
pub fn with_seal(text: &str, seal: &Seal) -> String {
    format!("{}\n\n{}\n", text.trim_end(), seal.line())
}

/// `text` without its seal line, for restoring a seal from the progress store.
pub fn without_seal(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with(SEAL_PREFIX))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A short, stable digest of a file, for messages.
pub fn digest(text: &str) -> String {
    fnv64_hex(text.as_bytes())
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
            .labs
            .into_iter()
            .find(|l| l.meta.id == "outbox")
            .unwrap()
    }

    #[test]
    fn a_rendered_template_parses_back_to_the_same_answers() {
        let lab = outbox();
        let first = lab.meta.checks[0].id();
        let question = lab.meta.questions[0].id.clone();
        let mut answers = BTreeMap::new();
        answers.insert(first, Answer::Claim(true));
        answers.insert(question, Answer::Option("c".into()));
        let text = render(&lab, &answers, None);
        let parsed = parse(&lab, &text).unwrap();
        assert_eq!(parsed.answers, answers);
        assert_eq!(parsed.seal, None);
    }

    #[test]
    fn a_seal_keeps_the_sealed_answers_and_names_each_revision() {
        let lab = outbox();
        let (first, second) = (lab.meta.checks[0].id(), lab.meta.checks[1].id());
        let mut answers = BTreeMap::new();
        answers.insert(first.clone(), Answer::Claim(true));
        let seal = Seal::new(&lab, &answers, "2026-12-01T04:00:00Z");
        assert!(seal.intact(&lab));
        let text = with_seal(&render(&lab, &answers, None), &seal);
        let parsed = parse(&lab, &text).unwrap();
        assert!(parsed.revised(&lab).is_empty());
        assert_eq!(parsed.sealed_answers(&lab), answers);
        let revised = text
            .replace(&format!("{first} = yes"), &format!("{first} = no"))
            .replace(&format!("{second} = ?"), &format!("{second} = yes"));
        let parsed = parse(&lab, &revised).unwrap();
        assert_eq!(parsed.revised(&lab), vec![first, second]);
        assert_eq!(
            parsed.sealed_answers(&lab),
            answers,
            "the seal still says yes"
        );
    }

    #[test]
    fn an_edited_seal_is_not_intact() {
        let lab = outbox();
        let seal = Seal::new(&lab, &BTreeMap::new(), "2026-12-01T04:00:00Z");
        let forged = Seal {
            answers: seal.answers.replace('?', "y"),
            ..seal.clone()
        };
        assert!(!forged.intact(&lab));
        let text = with_seal("", &forged);
        assert!(!parse(&lab, &text).unwrap().seal.unwrap().intact(&lab));
    }

    #[test]
    fn a_damaged_seal_line_and_a_second_one_are_errors() {
        let lab = outbox();
        let err = parse(&lab, "# sealed at first run: garbage\n").unwrap_err();
        assert!(
            err.to_string().contains("line 1: the seal line is damaged"),
            "{err}"
        );
        let seal = Seal::new(&lab, &BTreeMap::new(), "t").line();
        let err = parse(&lab, &format!("{seal}\n{seal}\n")).unwrap_err();
        assert!(
            err.to_string().contains("line 2: a second seal line"),
            "{err}"
        );
    }

    #[test]
    fn an_answer_given_twice_is_an_error() {
        let lab = outbox();
        let id = lab.meta.checks[0].id();
        let err = parse(&lab, &format!("{id} = yes\n{id} = no\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("line 2: `{id}` is answered twice")),
            "{err}"
        );
    }

    #[test]
    fn the_old_words_still_parse() {
        let lab = outbox();
        let id = lab.meta.checks[0].id();
        let parsed = parse(&lab, &format!("{id} = holds\n")).unwrap();
        assert_eq!(parsed.answers[&id], Answer::Claim(true));
    }
}
