//! What travels between a learner's CLI and the teacher's poll server. Both ends use
//! these types, so a field cannot be renamed on one side and forgotten on the other, and
//! a malformed answer is refused by the type itself, before any code looks at it.
//!
//! Nothing here can carry a key: a learner sends item ids and answers, and gets back a
//! receipt or a refusal, neither of which has a field for a right answer or a reason.

use crate::meta::Lab;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a learner's CLI posts a vote (JSON [`Vote`]), relative to the poll's URL.
pub const VOTES_PATH: &str = "/votes";

/// The largest request body the poll reads. A vote for the largest lab (42 items) takes
/// about 900 bytes; anything near this cap is not a vote.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// The longest name a learner may give (in characters).
pub const MAX_NAME_CHARS: usize = 60;

/// A round of peer instruction: 1, each learner alone; 2, after the discussion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum Round {
    One,
    Two,
}

impl Round {
    pub const BOTH: [Round; 2] = [Round::One, Round::Two];

    pub fn number(self) -> u8 {
        match self {
            Round::One => 1,
            Round::Two => 2,
        }
    }
}

impl TryFrom<u8> for Round {
    type Error = String;

    fn try_from(n: u8) -> Result<Round, String> {
        match n {
            1 => Ok(Round::One),
            2 => Ok(Round::Two),
            _ => Err(format!("round {n} does not exist: a round is 1 or 2")),
        }
    }
}

impl std::str::FromStr for Round {
    type Err = String;

    /// `--round 1` or `--round 2`.
    fn from_str(text: &str) -> Result<Round, String> {
        text.trim()
            .parse::<u8>()
            .ok()
            .and_then(|n| Round::try_from(n).ok())
            .ok_or_else(|| {
                format!("`--round {text}`: a round is 1 (alone) or 2 (after the discussion)")
            })
    }
}

impl From<Round> for u8 {
    fn from(round: Round) -> u8 {
        round.number()
    }
}

impl std::fmt::Display for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// One answer: `yes` or `no` to a question about the run, or an option's letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Choice {
    Yes,
    No,
    Letter(char),
}

impl TryFrom<String> for Choice {
    type Error = String;

    fn try_from(text: String) -> Result<Choice, String> {
        let mut letters = text.chars();
        match (text.as_str(), letters.next(), letters.next()) {
            ("yes", _, _) => Ok(Choice::Yes),
            ("no", _, _) => Ok(Choice::No),
            (_, Some(c @ 'a'..='z'), None) => Ok(Choice::Letter(c)),
            _ => Err(format!(
                "`{}` is not an answer: answer `yes`, `no` or an option's letter",
                text.chars().take(20).collect::<String>()
            )),
        }
    }
}

impl From<Choice> for String {
    fn from(choice: Choice) -> String {
        choice.to_string()
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Choice::Yes => f.write_str("yes"),
            Choice::No => f.write_str("no"),
            Choice::Letter(c) => write!(f, "{c}"),
        }
    }
}

impl Choice {
    /// The choice of a predictions file's answer.
    pub fn of(answer: &crate::predictions::Answer) -> Option<Choice> {
        use crate::predictions::Answer;
        match answer {
            Answer::Claim(true) => Some(Choice::Yes),
            Answer::Claim(false) => Some(Choice::No),
            Answer::Option(letter) => Choice::try_from(letter.clone()).ok(),
        }
    }

    /// The predictions file's answer for this choice (what a grade scores).
    pub fn answer(self) -> crate::predictions::Answer {
        use crate::predictions::Answer;
        match self {
            Choice::Yes => Answer::Claim(true),
            Choice::No => Answer::Claim(false),
            Choice::Letter(letter) => Answer::Option(letter.to_string()),
        }
    }
}

/// A learner's answers to one lab, for one round: what `cargo labs predict N --send` posts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vote {
    /// The class code the teacher shows in the room.
    pub code: String,
    /// The lab: its id (`outbox`) or number (`01`).
    pub lab: String,
    /// [`items_digest`] of the lab as the learner's workbook asks it: a learner on another
    /// version of the items is told so, instead of being counted under the wrong question.
    pub items: String,
    pub round: Round,
    pub name: String,
    /// The token the poll gave this learner with its first receipt; none the first time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Item id (`q01`, …) → answer; unanswered items are left out.
    pub answers: BTreeMap<String, Choice>,
}

/// The poll's answer to an accepted vote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub lab: String,
    pub round: Round,
    /// The name the vote counts under: the roster's, when the teacher gave a roster.
    pub name: String,
    /// Keep it: the next vote under this name must carry it.
    pub token: String,
    /// The server's time of the vote (UTC), the one a grade would use.
    pub received_at: String,
    pub answered: usize,
    pub items: usize,
}

/// Why the poll refused a request. The kind decides the HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefusalKind {
    Malformed,
    TooLarge,
    NotJson,
    WrongCode,
    UnknownLab,
    OtherItems,
    BadAnswer,
    NotOnRoster,
    TokenMissing,
    TokenWrong,
    RoundClosed,
    RoundNotOpen,
    TooMany,
    Slow,
    TeacherOnly,
    NotFound,
    WrongMethod,
    Internal,
}

impl RefusalKind {
    /// The HTTP status a refusal of this kind is sent with.
    pub fn status(self) -> u16 {
        use RefusalKind::*;
        match self {
            Malformed | BadAnswer => 400,
            TokenMissing => 401,
            WrongCode | NotOnRoster | TokenWrong | TeacherOnly => 403,
            UnknownLab | NotFound => 404,
            WrongMethod => 405,
            Slow => 408,
            RoundClosed | RoundNotOpen | OtherItems => 409,
            TooLarge => 413,
            NotJson => 415,
            TooMany => 429,
            Internal => 500,
        }
    }
}

/// The body of every refusal: its kind, and a sentence a learner can act on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    pub kind: RefusalKind,
    pub error: String,
}

/// A digest of what a lab asks (every question, prompt and option, in order): equal on
/// the teacher's and the learner's side when `q04` means the same question on both.
pub fn items_digest(lab: &Lab) -> String {
    let mut text = String::new();
    for check in &lab.meta.checks {
        text.push_str(&check.ask);
        text.push('\n');
    }
    for question in &lab.meta.questions {
        text.push_str(&question.prompt);
        text.push('\n');
        for (letter, option) in &question.options {
            text.push_str(&format!("{letter}) {option}\n"));
        }
    }
    crate::predictions::digest(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_yes_no_or_one_letter() {
        for (text, choice) in [
            ("yes", Choice::Yes),
            ("no", Choice::No),
            ("c", Choice::Letter('c')),
        ] {
            assert_eq!(Choice::try_from(text.to_string()), Ok(choice));
            assert_eq!(choice.to_string(), text);
        }
        for choice in [Choice::Yes, Choice::No, Choice::Letter('d')] {
            assert_eq!(Choice::of(&choice.answer()), Some(choice));
        }
        for bad in ["", "YES", "ab", "1", "é", "maybe"] {
            assert!(Choice::try_from(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_round_is_one_or_two() {
        assert_eq!("2".parse::<Round>(), Ok(Round::Two));
        for bad in ["0", "3", "x", ""] {
            assert!(
                bad.parse::<Round>().unwrap_err().contains("a round is 1"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_vote_with_a_malformed_answer_or_round_does_not_parse() {
        let vote = r#"{"code":"K","lab":"01","items":"x","round":1,"name":"Ada","answers":{"q01":"yes","q26":"b"}}"#;
        let parsed: Vote = serde_json::from_str(vote).unwrap();
        assert_eq!(parsed.answers["q26"], Choice::Letter('b'));
        assert_eq!(serde_json::to_string(&parsed).unwrap(), vote);
        for bad in [
            vote.replace("\"yes\"", "\"perhaps\""),
            vote.replace("\"round\":1", "\"round\":3"),
            vote.replace("\"name\"", "\"nickname\""),
        ] {
            assert!(serde_json::from_str::<Vote>(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_refusal_is_a_client_error_but_the_servers_own() {
        let kinds = [
            RefusalKind::Malformed,
            RefusalKind::TooLarge,
            RefusalKind::RoundClosed,
            RefusalKind::TooMany,
            RefusalKind::TeacherOnly,
        ];
        assert!(kinds.iter().all(|k| (400..500).contains(&k.status())));
        assert_eq!(RefusalKind::Internal.status(), 500);
        assert_eq!(
            serde_json::to_string(&RefusalKind::RoundClosed).unwrap(),
            "\"round-closed\""
        );
    }
}
