//! A run's report against its lab: the one rule the consistency gate and the scaffold's
//! test share.
//!
//! The observe code records each answer under the question's text (`obs.ask("…", yes)`,
//! `obs.choose("…", letter, evidence)`), and `lab.toml` asks the same text: the two are
//! written in two places, so they are proven to agree. Every question about the run of
//! `lab.toml` is recorded exactly once and in `lab.toml`'s order, every multiple-choice
//! question exactly once, and nothing is recorded that `lab.toml` does not ask; then
//! every observed answer equals its key.

use crate::meta::{Lab, item_id};
use labkit::Report;

/// Everything wrong with `report` as the run of `lab`, in words that name the lab and
/// the question's text. Empty when the report answers exactly `lab`'s items, as its key
/// says.
pub fn report_problems(lab: &Lab, report: &Report) -> Vec<String> {
    let mut problems = asked_problems(lab, report);
    problems.extend(chosen_problems(lab, report));
    problems.extend(answer_problems(lab, report));
    problems
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

/// How often each text of `wanted` is in `recorded`, and the texts recorded that
/// `wanted` lacks.
fn counted<'a>(wanted: &[&'a str], recorded: &[&'a str]) -> (Vec<usize>, Vec<&'a str>) {
    let counts = (wanted.iter())
        .map(|w| recorded.iter().filter(|r| *r == w).count())
        .collect();
    let unknown = (recorded.iter())
        .filter(|r| !wanted.contains(r))
        .copied()
        .collect();
    (counts, unknown)
}

/// The questions about the run: each recorded once, in order, none unknown.
fn asked_problems(lab: &Lab, report: &Report) -> Vec<String> {
    let n = &lab.meta.number;
    let wanted: Vec<&str> = lab.meta.checks.iter().map(|c| c.ask.as_str()).collect();
    let recorded: Vec<&str> = report.checks.iter().map(|c| c.ask.as_str()).collect();
    let (counts, unknown) = counted(&wanted, &recorded);
    let mut problems = Vec::new();
    for (i, (ask, count)) in wanted.iter().zip(&counts).enumerate() {
        match count {
            1 => {}
            0 => problems.push(format!(
                "lab {n}: lab.toml asks {} \"{ask}\", and the observe code never records it (`obs.ask` must quote lab.toml's text word for word)",
                item_id(i)
            )),
            k => problems.push(format!(
                "lab {n}: the observe code records {} \"{ask}\" {k} times; it must record it once",
                item_id(i)
            )),
        }
    }
    for ask in unknown {
        problems.push(format!(
            "lab {n}: the observe code records \"{ask}\", which lab.toml does not ask (every `obs.ask` quotes an `ask` of lab.toml, word for word)"
        ));
    }
    if problems.is_empty()
        && let Some(i) = (0..wanted.len()).find(|&i| wanted[i] != recorded[i])
    {
        problems.push(format!(
            "lab {n}: the observe code records the questions about the run in another order than lab.toml: {} is \"{}\", but the run's {} answer is to \"{}\"",
            item_id(i),
            wanted[i],
            ordinal(i + 1),
            recorded[i]
        ));
    }
    problems
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The multiple-choice questions: each recorded once (in any order), none unknown.
fn chosen_problems(lab: &Lab, report: &Report) -> Vec<String> {
    let n = &lab.meta.number;
    let asked = lab.meta.checks.len();
    let wanted: Vec<&str> = (lab.meta.questions.iter())
        .map(|q| q.prompt.as_str())
        .collect();
    let recorded: Vec<&str> = (report.questions.iter())
        .map(|q| q.prompt.as_str())
        .collect();
    let (counts, unknown) = counted(&wanted, &recorded);
    let mut problems = Vec::new();
    for (i, (prompt, count)) in wanted.iter().zip(&counts).enumerate() {
        match count {
            1 => {}
            0 => problems.push(format!(
                "lab {n}: lab.toml asks {} \"{prompt}\", and the observe code never answers it (`obs.choose` must quote lab.toml's prompt word for word)",
                item_id(asked + i)
            )),
            k => problems.push(format!(
                "lab {n}: the observe code answers {} \"{prompt}\" {k} times; it must answer it once",
                item_id(asked + i)
            )),
        }
    }
    for prompt in unknown {
        problems.push(format!(
            "lab {n}: the observe code answers \"{prompt}\", which lab.toml does not ask (every `obs.choose` quotes a `prompt` of lab.toml, word for word)"
        ));
    }
    problems
}

/// Every answer the run recorded for an item equals the item's key.
fn answer_problems(lab: &Lab, report: &Report) -> Vec<String> {
    let n = &lab.meta.number;
    let ids = lab.item_ids();
    let mut problems = Vec::new();
    for ((check, key), id) in lab.meta.checks.iter().zip(&lab.key.checks).zip(&ids) {
        let right = check.answer_for(key.holds);
        for observed in report.checks.iter().filter(|c| c.ask == check.ask) {
            if observed.yes != right {
                problems.push(format!(
                    "lab {n}: {id} \"{}\" observed {}, but the key says {} (`{}` holds = {})",
                    check.ask,
                    yes_no(observed.yes),
                    yes_no(right),
                    check.claim,
                    key.holds
                ));
            }
        }
    }
    let asked = lab.meta.checks.len();
    let questions = lab.meta.questions.iter().zip(&lab.key.questions);
    for ((q, key), id) in questions.zip(&ids[asked..]) {
        for observed in report.questions.iter().filter(|a| a.prompt == q.prompt) {
            if observed.answer != key.answer {
                problems.push(format!(
                    "lab {n}: {id} \"{}\" observed ({}) — {} — but the key says ({})",
                    q.prompt, observed.answer, observed.evidence, key.answer
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::Observation;

    fn outbox() -> Lab {
        crate::meta::teachers_lab("outbox")
    }

    /// The report the lab's key describes, each item answered as the key says.
    fn keyed_observation(lab: &Lab) -> Observation {
        let mut obs = Observation::new(&lab.meta.id);
        for (check, key) in lab.meta.checks.iter().zip(&lab.key.checks) {
            obs.ask(&check.ask, check.answer_for(key.holds));
        }
        for (q, key) in lab.meta.questions.iter().zip(&lab.key.questions) {
            obs.choose(&q.prompt, &key.answer, "as keyed");
        }
        obs
    }

    fn report(obs: Observation) -> Report {
        obs.finish(None, serde_json::json!({}))
    }

    #[test]
    fn the_report_the_key_describes_has_no_problem() {
        let lab = outbox();
        assert_eq!(
            report_problems(&lab, &report(keyed_observation(&lab))),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_misquoted_a_missing_a_repeated_and_a_misplaced_question_are_named() {
        let lab = outbox();
        let first = lab.meta.checks[0].ask.clone();
        let second = lab.meta.checks[1].ask.clone();

        let mut misquoted = report(keyed_observation(&lab));
        misquoted.checks[0].ask = format!("{first} ");
        let problems = report_problems(&lab, &misquoted);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].starts_with(&format!(
            "lab 01: lab.toml asks q01 \"{first}\", and the observe code never records it"
        )));
        assert!(problems[1].contains(&format!(
            "records \"{first} \", which lab.toml does not ask"
        )));

        let mut repeated = report(keyed_observation(&lab));
        repeated.checks[1].ask = first.clone();
        let problems = report_problems(&lab, &repeated);
        assert!(
            problems
                .iter()
                .any(|p| p.contains(&format!("q01 \"{first}\" 2 times"))),
            "{problems:#?}"
        );
        assert!(
            problems.iter().any(|p| p.contains(&format!(
                "q02 \"{second}\", and the observe code never records it"
            ))),
            "{problems:#?}"
        );

        let mut swapped = report(keyed_observation(&lab));
        swapped.checks.swap(0, 1);
        let problems = report_problems(&lab, &swapped);
        assert_eq!(
            problems,
            [format!(
                "lab 01: the observe code records the questions about the run in another order than lab.toml: q01 is \"{first}\", but the run's 1st answer is to \"{second}\""
            )]
        );

        let mut unknown = report(keyed_observation(&lab));
        unknown.questions[0].prompt.push('?');
        let problems = report_problems(&lab, &unknown);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        let id = item_id(lab.meta.checks.len());
        assert!(problems[0].contains(&format!("{id} \"")), "{problems:#?}");
    }

    #[test]
    fn an_answer_other_than_the_key_is_named() {
        let lab = outbox();
        let mut wrong = report(keyed_observation(&lab));
        wrong.checks[0].yes = !wrong.checks[0].yes;
        wrong.questions[0].answer = "z".into();
        let problems = report_problems(&lab, &wrong);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].starts_with(&format!(
            "lab 01: q01 \"{}\" observed",
            lab.meta.checks[0].ask
        )));
        assert!(problems[1].contains("observed (z) — as keyed — but the key says"));
    }
}
