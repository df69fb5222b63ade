//! `cargo labs predict N --send URL --code CODE [--name NAME] [--round 1|2]`: sends the
//! lab's current answers (item ids and answers, nothing else) to the teacher's poll.
//! The predictions file and its seal are only read: sending changes none of the
//! learner's files. The token the poll returns with the first receipt is kept in
//! `.labs/poll.json`, per class code, so that the next vote under the same name is
//! recognised as the same learner's.

use super::http::{self, Endpoint};
use super::wire::{Choice, Receipt, Refusal, Round, VOTES_PATH, Vote, items_digest};
use crate::error::{Error, Result};
use crate::meta::Lab;
use crate::workbook::{Workbook, read_predictions};
use crate::write_atomically;
use colored::Colorize;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `--send` was given on the command line.
#[derive(Clone, Debug)]
pub struct SendOptions<'a> {
    pub url: &'a str,
    pub code: &'a str,
    pub name: Option<&'a str>,
    pub round: Round,
}

/// The names and tokens this workbook votes with, by class code.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bindings {
    classes: BTreeMap<String, Binding>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Binding {
    name: String,
    token: String,
}

fn bindings_path(wb: &Workbook) -> PathBuf {
    crate::state_dir(&wb.root).join("poll.json")
}

fn load_bindings(path: &Path) -> Result<Bindings> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            Error::input(format!(
                "{} is damaged ({e}); it holds your poll tokens: restore it, or delete it and ask your teacher to let you vote under a new name",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Bindings::default()),
        Err(e) => Err(Error::reading(path, e)),
    }
}

/// The name to vote under, and the token the poll gave it: the name given, or the one
/// this workbook used before for the class.
fn who(
    saved: Option<&Binding>,
    given: Option<&str>,
    code: &str,
) -> Result<(String, Option<String>)> {
    let fold = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    match (saved, given) {
        (Some(saved), Some(given)) if fold(&saved.name) != fold(given) => {
            Ok((given.to_string(), None))
        }
        (Some(saved), _) => Ok((saved.name.clone(), Some(saved.token.clone()))),
        (None, Some(given)) => Ok((given.to_string(), None)),
        (None, None) => Err(Error::input(format!(
            "give your name the first time you send to class {code}: `--name \"Your Name\"` (as on the class list; it is remembered after that)"
        ))),
    }
}

/// Sends `lab`'s current answers to the poll and prints the receipt.
pub fn send(wb: &Workbook, lab: &Lab, options: &SendOptions<'_>) -> Result<()> {
    let endpoint = Endpoint::parse(options.url).map_err(Error::input)?;
    let code = options.code.trim().to_ascii_uppercase();
    let n = &lab.meta.number;
    let predictions = read_predictions(lab)?.ok_or_else(|| {
        Error::input(format!(
            "you have no predictions for lab {n} yet: `cargo labs predict {n}` first"
        ))
    })?;
    let answers: BTreeMap<String, Choice> = (predictions.answers.iter())
        .filter_map(|(id, answer)| Some((id.clone(), Choice::of(answer)?)))
        .collect();
    if answers.is_empty() {
        return Err(Error::input(format!(
            "lab {n} has no answer to send yet: `cargo labs predict {n}` first"
        )));
    }
    let path = bindings_path(wb);
    let mut bindings = load_bindings(&path)?;
    let (name, token) = who(bindings.classes.get(&code), options.name, &code)?;
    let vote = Vote {
        code: code.clone(),
        lab: lab.meta.id.clone(),
        items: items_digest(lab),
        round: options.round,
        name,
        token,
        answers,
    };
    let receipt = post(&endpoint, &vote)?;
    bindings.classes.insert(
        code,
        Binding {
            name: receipt.name.clone(),
            token: receipt.token.clone(),
        },
    );
    save_bindings(&path, &bindings)?;
    println!(
        "{} {}/{} answers of lab {n}, round {}, as {} (received {})",
        "sent".green().bold(),
        receipt.answered,
        receipt.items,
        receipt.round,
        receipt.name,
        receipt.received_at
    );
    println!(
        "Sending again before the teacher closes round {} replaces this vote.",
        receipt.round
    );
    Ok(())
}

fn save_bindings(path: &Path, bindings: &Bindings) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::writing(dir, e))?;
    }
    let text = serde_json::to_string_pretty(bindings).unwrap_or_default();
    write_atomically(path, &text).map_err(|e| Error::writing(path, e))
}

/// Posts `vote`; a refusal becomes an input error carrying the poll's own sentence.
fn post(endpoint: &Endpoint, vote: &Vote) -> Result<Receipt> {
    let body = serde_json::to_vec(vote).unwrap_or_default();
    let url = endpoint.url(VOTES_PATH);
    let reply = http::request(endpoint, "POST", VOTES_PATH, "application/json", &body)
        .map_err(|e| {
            Error::input(format!(
                "cannot reach the poll at {url} ({e}); check the address your teacher shows, and that you are on the classroom's network"
            ))
        })?;
    if reply.status == 200 {
        return serde_json::from_str(&reply.body)
            .map_err(|e| Error::input(format!("{url} answered, but not as a poll does ({e})")));
    }
    match serde_json::from_str::<Refusal>(&reply.body) {
        Ok(refusal) => Err(Error::input(format!(
            "the poll refused the vote ({}): {}",
            reply.status, refusal.error
        ))),
        Err(_) => Err(Error::input(format!(
            "{url} answered {}, and is not a poll",
            reply.status
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_given_wins_and_the_saved_one_keeps_its_token() {
        let saved = Binding {
            name: "Ada Lovelace".into(),
            token: "t1".into(),
        };
        let (name, token) = who(Some(&saved), None, "K").unwrap();
        assert_eq!(
            (name.as_str(), token.as_deref()),
            ("Ada Lovelace", Some("t1"))
        );
        let (_, token) = who(Some(&saved), Some(" ada  lovelace"), "K").unwrap();
        assert_eq!(
            token.as_deref(),
            Some("t1"),
            "the same name, typed differently"
        );
        let (name, token) = who(Some(&saved), Some("Grace"), "K").unwrap();
        assert_eq!((name.as_str(), token), ("Grace", None));
        let err = who(None, None, "K7QM2P").unwrap_err();
        assert!(err.to_string().contains("--name"), "{err}");
    }
}
