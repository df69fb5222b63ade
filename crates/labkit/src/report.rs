//! Observations and the JSON report of one lab run.

use serde::{Deserialize, Serialize};

/// The answer a run observed to one yes/no question of the lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedCheck {
    /// The question, word for word as the lab's `lab.toml` asks it.
    pub ask: String,
    /// What running the code showed: is the answer yes?
    pub yes: bool,
}

/// The option a run observed for one multiple-choice question of the lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedAnswer {
    /// The question's prompt, word for word as the lab's `lab.toml` has it.
    pub prompt: String,
    /// The option (a letter) that describes what the run showed.
    pub answer: String,
    /// The observations the answer was computed from, in words.
    pub evidence: String,
}

/// The JSON one lab run prints with `observe --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The lab's number and name, as the CLI names it.
    pub lab: String,
    /// The observed answers to the yes/no questions, in the order they were asked.
    pub checks: Vec<ObservedCheck>,
    /// The observed answers to the multiple-choice questions, in the order they were asked.
    pub questions: Vec<ObservedAnswer>,
    /// The SQLite library version the run used, when it used SQLite.
    pub sqlite: Option<String>,
    /// Lab-specific facts about the run (counts, the database, a seed).
    pub summary: serde_json::Value,
}

/// Collects what a lab run observed. Every answer passed in is a value the code computed
/// by running the scenario, recorded under the question it answers (the question's text,
/// as the learner reads it: nothing in the observe code names what the answer should be).
/// The answer keys live in the lab's `lab.toml`, and the workbook's consistency gate
/// proves that the two ask the same questions, in the same order, and agree.
#[derive(Debug)]
pub struct Observation {
    lab: String,
    checks: Vec<ObservedCheck>,
    questions: Vec<ObservedAnswer>,
}

impl Observation {
    /// An empty observation for lab `lab`.
    pub fn new(lab: &str) -> Self {
        Observation {
            lab: lab.to_string(),
            checks: Vec::new(),
            questions: Vec::new(),
        }
    }

    /// Records the answer the run observed to the yes/no question `ask`: `yes` is true
    /// exactly when the answer is yes. Returns `yes`.
    pub fn ask(&mut self, ask: &str, yes: bool) -> bool {
        self.checks.push(ObservedCheck {
            ask: ask.to_string(),
            yes,
        });
        yes
    }

    /// Records the option (a letter) the run's observations select for the
    /// multiple-choice question whose prompt is `prompt`, and the evidence, in words.
    pub fn choose(&mut self, prompt: &str, letter: &str, evidence: impl Into<String>) {
        self.questions.push(ObservedAnswer {
            prompt: prompt.to_string(),
            answer: letter.to_string(),
            evidence: evidence.into(),
        });
    }

    /// The yes/no answers recorded so far.
    pub fn checks(&self) -> &[ObservedCheck] {
        &self.checks
    }

    /// Ends the observation and makes the report the CLI reads, with the SQLite version
    /// and the lab's own summary.
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
    fn an_observation_keeps_its_questions_in_order() {
        let mut obs = Observation::new("demo");
        assert!(obs.ask("Is the first one there?", true));
        assert!(!obs.ask("Is the second one there?", false));
        obs.choose("What remains?", "b", "one row");
        let report = obs.finish(None, serde_json::json!({}));
        let asked: Vec<_> = report.checks.iter().map(|c| c.ask.as_str()).collect();
        assert_eq!(
            asked,
            ["Is the first one there?", "Is the second one there?"]
        );
        assert_eq!(report.questions[0].prompt, "What remains?");
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
    }
}
