//! Observations and the JSON report of one lab run.

use serde::{Deserialize, Serialize};

/// A check's stable id: its claim in lower case, words joined by `-`.
pub fn slug(claim: &str) -> String {
    let mut out = String::new();
    for word in claim
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedCheck {
    pub id: String,
    pub claim: String,
    /// What running the code showed: does the claim hold?
    pub holds: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedAnswer {
    pub id: String,
    /// The option (a letter) that describes what the run showed.
    pub answer: String,
    /// The observations the answer was computed from, in words.
    pub evidence: String,
}

/// The JSON one lab run prints with `observe --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub lab: String,
    pub checks: Vec<ObservedCheck>,
    pub questions: Vec<ObservedAnswer>,
    /// The SQLite library version the run used, when it used SQLite.
    pub sqlite: Option<String>,
    /// Lab-specific facts about the run (counts, the database, a seed).
    pub summary: serde_json::Value,
}

/// Collects what a lab run observed. Every verdict passed in is a value the code computed
/// by running the scenario; the answer keys live in the lab's `lab.toml`, and the
/// workbook's consistency gate proves the two agree.
#[derive(Debug)]
pub struct Observation {
    lab: String,
    checks: Vec<ObservedCheck>,
    questions: Vec<ObservedAnswer>,
}

impl Observation {
    pub fn new(lab: &str) -> Self {
        Observation {
            lab: lab.to_string(),
            checks: Vec::new(),
            questions: Vec::new(),
        }
    }

    /// Records a claim and whether the run showed it to hold. Returns the verdict.
    pub fn check(&mut self, claim: &str, holds: bool) -> bool {
        self.checks.push(ObservedCheck {
            id: slug(claim),
            claim: claim.to_string(),
            holds,
        });
        holds
    }

    /// Records the option the run's observations select for a question.
    pub fn answer(&mut self, id: &str, answer: &str, evidence: impl Into<String>) {
        self.questions.push(ObservedAnswer {
            id: id.to_string(),
            answer: answer.to_string(),
            evidence: evidence.into(),
        });
    }

    pub fn checks(&self) -> &[ObservedCheck] {
        &self.checks
    }

    pub fn finish(self, sqlite: Option<String>, summary: serde_json::Value) -> Report {
        Report {
            lab: self.lab,
            checks: self.checks,
            questions: self.questions,
            sqlite,
            summary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_words_joined_by_dashes() {
        assert_eq!(slug("unsafe attempt aborts"), "unsafe-attempt-aborts");
        assert_eq!(slug("Two calls, one effect!"), "two-calls-one-effect");
    }

    #[test]
    fn an_observation_keeps_the_order_of_its_checks() {
        let mut obs = Observation::new("demo");
        assert!(obs.check("first", true));
        assert!(!obs.check("second", false));
        obs.answer("q1", "b", "one row");
        let report = obs.finish(None, serde_json::json!({}));
        let ids: Vec<_> = report.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["first", "second"]);
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
    }
}
