//! The predictions file: plain text the learner reads, edits and commits.
//!
//! ```text
//! # comments
//! q01 = yes      a question about the run: yes | no | ?
//! q04 = b        a multiple-choice question: a letter | ?
//! # sealed at: 2026-12-01T10:00:00Z answers=yn?|b? mac=0123456789abcdef
//! ```
//!
//! An item's id is its position (`q01`, `q02`, …: the questions about the run first, then
//! the multiple-choice ones), so that no id says what an item is about. Files written
//! before these ids named an item by its claim's slug or its question's id; they still
//! parse, each old id standing for the same item, and the next write renders the new ids.
//!
//! The seal is written once, before the first run shows anything. It carries the answers
//! as they were at that moment (one character per item, in the lab's order) and a keyed
//! checksum over them, so a grade scores what was predicted before the run, and an answer
//! changed afterwards counts as revised. The checksum's key ships with the CLI: it stops a
//! slip of the editor, not a learner set on forging — the teacher's guide says so.

use crate::error::{Error, Result};
use crate::meta::{Lab, item_id};
use labkit::hash::{fnv64_hex, siphash24};
use std::collections::BTreeMap;

const SEAL_PREFIX: &str = "# sealed at: ";
/// The seal line's words before `predict --seal` could seal without a run: still read.
const EARLIER_SEAL_PREFIX: &str = "# sealed at first run: ";

/// What follows a seal line's prefix, in its words now or its earlier ones.
fn after_seal_prefix(line: &str) -> Option<&str> {
    (line.strip_prefix(SEAL_PREFIX)).or_else(|| line.strip_prefix(EARLIER_SEAL_PREFIX))
}
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

    /// How many items the seal holds an answer for.
    pub fn answered(&self) -> usize {
        self.answers
            .chars()
            .filter(|c| *c != '|' && *c != '?')
            .count()
    }

    /// The answer sealed for item number `index` (in [`Lab::item_ids`] order). The seal
    /// names no id, only positions, so a file sealed under the old ids stays intact.
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

/// The ids of the items `answers` leaves open, in the lab's order.
pub fn unanswered(lab: &Lab, answers: &BTreeMap<String, Answer>) -> Vec<String> {
    (lab.item_ids().into_iter())
        .filter(|id| !answers.contains_key(id))
        .collect()
}

fn answer_code(lab: &Lab, answers: &BTreeMap<String, Answer>) -> String {
    let code: Vec<char> = (lab.item_ids().iter())
        .map(|id| answers.get(id).map_or('?', Answer::code))
        .collect();
    let (checks, questions) = code.split_at(lab.meta.checks.len());
    format!(
        "{}|{}",
        checks.iter().collect::<String>(),
        questions.iter().collect::<String>()
    )
}

fn mac(lab_id: &str, at: &str, code: &str) -> String {
    format!(
        "{:016x}",
        siphash24(SEAL_KEY, format!("{lab_id}\n{at}\n{code}").as_bytes())
    )
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Predictions {
    /// The answers given, by item id (`q01`, …), whatever id the file used.
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

/// Parses predictions from `source` (a file name, or `` `--set q01=yes` `` for one answer
/// given on the command line, which errors name without a line number).
pub fn parse_from(lab: &Lab, text: &str, source: &str) -> Result<Predictions> {
    let one_set = source.starts_with("`--set");
    // Editors on Windows may start a file with a byte-order mark and end lines with CR LF:
    // neither is part of an answer (`lines` already drops the CR).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let n_checks = lab.meta.checks.len();
    let mut predictions = Predictions::default();
    // The items a line answers, `?` included: a second line for the same item is refused,
    // whichever ids the two lines use.
    let mut given = std::collections::BTreeSet::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = if one_set {
            source.to_string()
        } else {
            format!("{source} line {}", n + 1)
        };
        if let Some(rest) = after_seal_prefix(raw) {
            if predictions.seal.is_some() || predictions.legacy_seal.is_some() {
                return Err(Error::input(format!(
                    "{at}: a second seal line; keep the first one only"
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
                        "{at}: the seal line is damaged; restore it from git or from a backup, or delete it (the first seal is also kept in .labs/progress.db)"
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
                "{at}: expected `id = answer` (`q01 = yes`), found `{line}`"
            )));
        };
        let (key, value) = (key.trim(), value.trim().to_ascii_lowercase());
        let Some(index) = lab.item_index(key) else {
            return Err(Error::input(format!(
                "{at}: `{key}` is not a question of lab {}; its questions are {}",
                lab.meta.number,
                id_range(lab)
            )));
        };
        let id = item_id(index);
        // An old id is named with the new one it stands for.
        let named = if key == id {
            format!("`{id}`")
        } else {
            format!("`{key}` ({id})")
        };
        let answer = if index < n_checks {
            claim_answer(&value).ok_or_else(|| {
                Error::input(format!(
                    "{at}: {named} is a yes/no question; answer `yes`, `no` or `?`, not `{value}`"
                ))
            })?
        } else {
            let q = &lab.meta.questions[index - n_checks];
            let letter = value.trim_end_matches(')').to_string();
            if letter == "?" || letter.is_empty() {
                None
            } else if q.options.contains_key(&letter) {
                Some(Answer::Option(letter))
            } else {
                let letters: Vec<&str> = q.options.keys().map(String::as_str).collect();
                return Err(Error::input(format!(
                    "{at}: {named} is a multiple-choice question; answer one of {} or `?`, not `{letter}`",
                    letters.join(", ")
                )));
            }
        };
        if !given.insert(index) {
            return Err(Error::input(format!(
                "{at}: {named} is answered twice; keep one line"
            )));
        }
        if let Some(answer) = answer {
            predictions.answers.insert(id, answer);
        }
    }
    Ok(predictions)
}

/// `q01 to q25`: the ids of a lab's items, for messages.
fn id_range(lab: &Lab) -> String {
    match lab.prediction_count() {
        0 => "none".into(),
        1 => format!("`{}`", item_id(0)),
        n => format!("`{}` to `{}`", item_id(0), item_id(n - 1)),
    }
}

/// Renders the file for `answers` (every item of the lab appears, by its id `qNN`;
/// unanswered ones as `?`).
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
    let value = |id: &str| answers.get(id).map(Answer::show).unwrap_or("?".into());
    for (i, check) in lab.meta.checks.iter().enumerate() {
        let id = item_id(i);
        out.push_str(&format!(
            "\n# {}. {}\n{id} = {}\n",
            i + 1,
            check.ask,
            value(&id)
        ));
    }
    if !lab.meta.questions.is_empty() {
        out.push_str("\n# ---- Multiple choice ----\n");
    }
    let asked = lab.meta.checks.len();
    for (i, q) in lab.meta.questions.iter().enumerate() {
        let id = item_id(asked + i);
        out.push_str(&format!("\n# {}. {}\n", asked + i + 1, q.prompt));
        for (letter, text) in &q.options {
            out.push_str(&format!("#   {letter}) {text}\n"));
        }
        out.push_str(&format!("{id} = {}\n", value(&id)));
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
        .filter(|l| after_seal_prefix(l).is_none())
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

    fn outbox() -> Lab {
        crate::meta::teachers_lab("outbox")
    }

    #[test]
    fn a_rendered_template_parses_back_to_the_same_answers() {
        let lab = outbox();
        let question = item_id(lab.meta.checks.len());
        let mut answers = BTreeMap::new();
        answers.insert(item_id(0), Answer::Claim(true));
        answers.insert(question.clone(), Answer::Option("c".into()));
        let text = render(&lab, &answers, None);
        assert!(text.contains("\nq01 = yes\n"), "{text}");
        assert!(text.contains(&format!("\n{question} = c\n")), "{text}");
        let parsed = parse(&lab, &text).unwrap();
        assert_eq!(parsed.answers, answers);
        assert_eq!(parsed.seal, None);
    }

    #[test]
    fn a_byte_order_mark_and_crlf_line_ends_change_nothing() {
        let lab = outbox();
        let mut answers = BTreeMap::new();
        answers.insert(item_id(0), Answer::Claim(true));
        answers.insert(item_id(1), Answer::Claim(false));
        let seal = Seal::new(&lab, &answers, "2026-12-01T04:00:00Z");
        let text = with_seal(&render(&lab, &answers, None), &seal);
        let windows = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        let parsed = parse(&lab, &windows).unwrap();
        assert_eq!(parsed.answers, answers);
        assert_eq!(parsed.seal, Some(seal.clone()));
        assert!(parsed.seal.unwrap().intact(&lab));
    }

    #[test]
    fn the_file_names_no_item_by_what_it_is_about() {
        let lab = outbox();
        let text = render(&lab, &BTreeMap::new(), None);
        for check in &lab.meta.checks {
            assert!(!text.contains(&check.slug()), "{text}");
            assert!(!text.contains(&check.claim), "{text}");
        }
        for q in &lab.meta.questions {
            assert!(!text.contains(&format!("{} =", q.id)), "{text}");
        }
        let ids: Vec<String> = (text.lines())
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(" = ").map(|(id, _)| id.to_string()))
            .collect();
        assert_eq!(ids, lab.item_ids());
        // Item N of the file is numbered N, the multiple-choice questions included.
        let n = lab.prediction_count();
        let last = &lab.meta.questions.last().unwrap().prompt;
        assert!(text.contains(&format!("# {n}. {last}\n")), "{text}");
    }

    #[test]
    fn a_seal_keeps_the_sealed_answers_and_names_each_revision() {
        let lab = outbox();
        let (first, second) = (item_id(0), item_id(1));
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

    /// A file written and sealed before the neutral ids, as the CLI of that time wrote it
    /// for lab 01 (trimmed): items named by their claims' slugs and the questions' ids
    /// (filled in from the lab, so that this file, which the student edition ships, names
    /// none of them), and a seal line whose checksum is written out.
    fn sealed_with_old_ids(lab: &Lab) -> String {
        let (checks, questions) = (&lab.meta.checks, &lab.meta.questions);
        format!(
            "# Lab 01 · Transaction boundaries and the outbox — your predictions\n\n\
             # 1. {}\n{} = yes\n\n# 2. {}\n{} = no\n\n# 3. {}\n{} = ?\n\n\
             # {}\n{} = d\n\n{} = b\n\n\
             # sealed at first run: 2026-12-01T04:00:00Z answers=yn???????????????????????|db???????? mac=@MAC@\n",
            checks[0].ask,
            checks[0].slug(),
            checks[1].ask,
            checks[1].slug(),
            checks[2].ask,
            checks[2].slug(),
            questions[0].prompt,
            questions[0].id,
            questions[1].id,
        )
    }

    #[test]
    fn a_file_sealed_with_the_old_ids_keeps_its_answers_and_its_seal() {
        let lab = outbox();
        // The checksum of a seal's answers is computed as before (here of lab 01 when it
        // had 17 multiple-choice questions).
        assert_eq!(
            mac(
                "outbox",
                "2026-12-01T04:00:00Z",
                "yn???????????????????????|db???????????????"
            ),
            "3396b95f356dcbd6",
            "the seal's checksum is computed as before"
        );
        let code = "yn???????????????????????|db????????";
        let mac = mac("outbox", "2026-12-01T04:00:00Z", code);
        let text = sealed_with_old_ids(&lab).replace("@MAC@", &mac);
        let parsed = parse(&lab, &text).unwrap();
        let seal = parsed.seal.as_ref().unwrap();
        assert!(seal.intact(&lab), "the seal is intact");
        let n = lab.meta.checks.len();
        let expected: BTreeMap<String, Answer> = [
            (item_id(0), Answer::Claim(true)),
            (item_id(1), Answer::Claim(false)),
            (item_id(n), Answer::Option("d".into())),
            (item_id(n + 1), Answer::Option("b".into())),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            parsed.answers, expected,
            "every answer is kept, under its new id"
        );
        assert_eq!(parsed.sealed_answers(&lab), expected);
        assert!(parsed.revised(&lab).is_empty(), "nothing counts as revised");
        // Written again, the file takes the new ids and keeps the seal as it was.
        let rendered = render(&lab, &parsed.answers, Some(seal));
        assert!(!rendered.contains(&lab.meta.checks[0].slug()), "{rendered}");
        assert!(rendered.contains("\nq01 = yes\n") && rendered.contains("\nq02 = no\n"));
        assert!(rendered.contains(&seal.line()));
        let again = parse(&lab, &rendered).unwrap();
        assert_eq!(again.answers, expected);
        assert!(again.seal.unwrap().intact(&lab));
    }

    #[test]
    fn an_old_id_and_a_new_one_name_the_same_item() {
        let lab = outbox();
        let old = lab.meta.checks[0].slug();
        let err = parse(&lab, &format!("{old} = yes\nq01 = no\n")).unwrap_err();
        assert!(
            err.to_string().contains("line 2: `q01` is answered twice"),
            "{err}"
        );
        let err = parse(&lab, &format!("{old} = maybe\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("`{old}` (q01) is a yes/no question")),
            "{err}"
        );
        let parsed = parse(&lab, "q4 = no\nQ05 = yes\n").unwrap();
        assert_eq!(parsed.answers[&item_id(3)], Answer::Claim(false));
        assert_eq!(parsed.answers[&item_id(4)], Answer::Claim(true));
    }

    #[test]
    fn an_unknown_id_is_named_with_the_ids_there_are() {
        let lab = outbox();
        let last = item_id(lab.prediction_count() - 1);
        for wrong in [
            "no-such-claim",
            "q00",
            &format!("q{}", lab.prediction_count() + 1),
        ] {
            let err = parse(&lab, &format!("{wrong} = yes\n")).unwrap_err();
            assert!(
                err.to_string().contains(&format!(
                    "`{wrong}` is not a question of lab 01; its questions are `q01` to `{last}`"
                )),
                "{err}"
            );
        }
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
        let err = parse(&lab, "q01 = yes\nq01 = no\n").unwrap_err();
        assert!(
            err.to_string().contains("line 2: `q01` is answered twice"),
            "{err}"
        );
    }

    #[test]
    fn the_old_words_still_parse() {
        let lab = outbox();
        let parsed = parse(&lab, "q01 = holds\n").unwrap();
        assert_eq!(parsed.answers[&item_id(0)], Answer::Claim(true));
    }
}
