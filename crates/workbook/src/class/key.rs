//! `cargo labs class key N` (teacher's edition): a lab's items with their answers and
//! explanations, as plain text to print or read before the class, in the order the
//! chapter lists them.

use crate::meta::Lab;
use crate::settings::{PredictionMode, Settings};

/// The widest line the key prints.
const COLUMNS: usize = 88;

/// `text` wrapped to `COLUMNS`, every line after the first indented by `indent`.
fn wrap(text: &str, first: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut words_on_line = 0;
    for word in text.split_whitespace() {
        if words_on_line > 0 && line.chars().count() + 1 + word.chars().count() > COLUMNS {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            words_on_line = 0;
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        words_on_line += 1;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// The key of `lab`, with the prediction mode `settings` give it today.
pub fn render(lab: &Lab, settings: &Settings) -> String {
    let mode = match settings.prediction_mode(&lab.meta.number) {
        PredictionMode::Correctness => {
            "correctness (a sealed answer earns its share when it is right and unrevised)"
        }
        PredictionMode::Participation => {
            "participation (a sealed answer earns its share, right or wrong)"
        }
    };
    let mut out = wrap(
        &format!(
            "Lab {} · {} — the answer key (teacher's edition: keep it from the class)",
            lab.meta.number, lab.meta.title
        ),
        "",
        0,
    );
    out.push_str(&wrap(
        &format!(
            "{} items: {} yes/no questions about the run, then {} multiple-choice questions. Predictions are worth {} points, scored for {}.",
            lab.prediction_count(),
            lab.meta.checks.len(),
            lab.meta.questions.len(),
            lab.meta.points.predictions,
            mode
        ),
        "",
        0,
    ));
    let ids = lab.item_ids();
    for (i, (check, key)) in lab.meta.checks.iter().zip(&lab.key.checks).enumerate() {
        out.push('\n');
        let answer = if check.answer_for(key.holds) {
            "yes"
        } else {
            "no"
        };
        out.push_str(&wrap(&check.ask, &format!("{}  {}.", ids[i], i + 1), 5));
        out.push_str(&wrap(&key.claim, "     claim:", 12));
        out.push_str(&format!("     answer: {answer}\n"));
        out.push_str(&wrap(&key.explain, "     why:", 10));
    }
    let n = lab.meta.checks.len();
    for (i, (q, key)) in lab
        .meta
        .questions
        .iter()
        .zip(&lab.key.questions)
        .enumerate()
    {
        out.push('\n');
        out.push_str(&wrap(
            &q.prompt,
            &format!("{}  {}.", ids[n + i], n + i + 1),
            5,
        ));
        for (letter, text) in &q.options {
            let mark = if *letter == key.answer { "→" } else { " " };
            out.push_str(&wrap(text, &format!("   {mark} ({letter})"), 9));
        }
        out.push_str(&format!("     answer: ({})\n", key.answer));
        out.push_str(&wrap(&key.explain, "     why:", 10));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_wraps_under_its_label() {
        let text = "word ".repeat(40);
        let wrapped = wrap(&text, "     why:", 10);
        assert!(wrapped.lines().all(|l| l.chars().count() <= COLUMNS));
        assert!(
            wrapped
                .lines()
                .skip(1)
                .all(|l| l.starts_with("          word"))
        );
    }
}
