//! Copied predictions: two learners whose sealed answers share wrong answers that few in
//! the class gave. A shared right answer proves nothing (the right answer is what study
//! produces), and a wrong answer half the class shares is a common misconception; a wrong
//! answer only those two gave, again and again, is what a copy looks like, whatever its
//! seal line says (a copied file resealed a second later has a seal of its own).
//!
//! The score of a pair is the sum, over the items where both sealed the same wrong
//! answer, of −ln(share of the class that sealed that answer). A pair is named when the
//! score is at least [`THRESHOLD`] over at least [`MIN_SHARED`] such items. In a class of
//! 30, an answer only the two gave weighs ln(15) ≈ 2.7: about five of them make a pair;
//! an answer a third of the class gave weighs about 1.1, and twelve of those do not.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The least score for which a pair is named.
pub const THRESHOLD: f64 = 12.0;
/// The least number of shared wrong answers for which a pair is named.
pub const MIN_SHARED: usize = 4;

/// One learner's sealed answers to one lab, and the key.
pub struct Sealed<'a> {
    pub learner: &'a str,
    pub answers: &'a BTreeMap<String, String>,
}

/// Two learners whose predictions look copied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictionPair {
    pub lab: String,
    pub learners: [String; 2],
    /// The items where both sealed the same wrong answer, with that answer.
    pub shared_wrong: Vec<(String, String)>,
    pub score: f64,
}

/// The pairs of `class` (one lab's sealed answers) that share rare wrong answers; `key`
/// holds each item's right answer.
pub fn copied(
    lab: &str,
    class: &[Sealed<'_>],
    key: &BTreeMap<String, String>,
) -> Vec<PredictionPair> {
    // How many learners sealed each answer to each item.
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut answered: BTreeMap<&str, usize> = BTreeMap::new();
    for learner in class {
        for (item, answer) in learner.answers {
            *counts.entry((item, answer)).or_default() += 1;
            *answered.entry(item).or_default() += 1;
        }
    }
    let mut pairs = Vec::new();
    for (i, a) in class.iter().enumerate() {
        for b in &class[i + 1..] {
            let shared: Vec<(String, String)> = (a.answers.iter())
                .filter(|(item, answer)| {
                    b.answers.get(*item) == Some(answer) && key.get(*item) != Some(answer)
                })
                .map(|(item, answer)| (item.clone(), answer.clone()))
                .collect();
            let score: f64 = (shared.iter())
                .map(|(item, answer)| {
                    let given = counts[&(item.as_str(), answer.as_str())] as f64;
                    let all = answered[item.as_str()] as f64;
                    -(given / all).ln()
                })
                .sum();
            if shared.len() >= MIN_SHARED && score >= THRESHOLD {
                pairs.push(PredictionPair {
                    lab: lab.to_string(),
                    learners: [a.learner.to_string(), b.learner.to_string()],
                    shared_wrong: shared,
                    score: (score * 10.0).round() / 10.0,
                });
            }
        }
    }
    pairs.sort_by(|x, y| y.score.total_cmp(&x.score));
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(text: &str) -> BTreeMap<String, String> {
        text.chars()
            .enumerate()
            .map(|(i, c)| (format!("q{:02}", i + 1), c.to_string()))
            .collect()
    }

    #[test]
    fn rare_shared_wrong_answers_name_a_pair_and_right_answers_never_do() {
        let key = answers("yyyyyyyyyyyy");
        let mut class: Vec<(String, BTreeMap<String, String>)> = (0..28)
            .map(|i| {
                // Honest learners: wrong on one or two items each, different ones.
                let mut text: Vec<char> = "yyyyyyyyyyyy".chars().collect();
                text[i % 12] = 'n';
                if i % 3 == 0 {
                    text[(i + 5) % 12] = 'n';
                }
                (
                    format!("l{i:02}"),
                    answers(&text.iter().collect::<String>()),
                )
            })
            .collect();
        // Everything right, twice: never named.
        class.push(("perfect-a".into(), key.clone()));
        class.push(("perfect-b".into(), key.clone()));
        // A copy: the same seven wrong answers, which nobody else gave all of.
        class.push(("copier".into(), answers("nnnnnnnyyyyy")));
        class.push(("source".into(), answers("nnnnnnnyyyyy")));
        let sealed: Vec<Sealed<'_>> = (class.iter())
            .map(|(learner, answers)| Sealed { learner, answers })
            .collect();
        let pairs = copied("01", &sealed, &key);
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        assert_eq!(
            pairs[0].learners,
            ["copier".to_string(), "source".to_string()]
        );
        assert_eq!(pairs[0].shared_wrong.len(), 7);
    }
}
