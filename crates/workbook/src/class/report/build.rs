//! The report computed from a class grade and the labs. It reads what the grade recorded
//! (statuses, points, sealed and current answers, failures and their diagnoses, notes)
//! and never re-scores: the only thing it takes from today's labs is what the grade does
//! not hold — each item's question, options, right answer and explanation, and the
//! chapters' headings — and it says so when today's key disagrees with the recorded
//! counts.

use super::model::*;
use super::names::Names;
use crate::class::ClassGrade;
use crate::grade::{LabGrade, LabStatus};
use crate::meta::Lab;
use std::collections::BTreeMap;
use std::path::Path;

/// How a report is made.
#[derive(Clone, Debug)]
pub struct Options {
    /// Learners by stable pseudonyms.
    pub anonymous: bool,
    /// Where the built book is, ending in `/` (a `file://` folder or a web address): the
    /// misconceptions link there.
    pub book_base: String,
}

/// One learner's grade of one lab, with the learner as shown.
struct Taken<'a> {
    learner: String,
    grade: &'a LabGrade,
}

/// The report of `class`, with the items, keys and chapters of `labs` (under `root`).
pub fn build(class: &ClassGrade, root: &Path, labs: &[Lab], options: &Options) -> Report {
    let real: Vec<String> = (class.learners.iter().enumerate())
        .map(|(i, g)| {
            (g.learner.as_ref())
                .map(|l| l.name.clone())
                .unwrap_or_else(|| format!("learner {}", i + 1))
        })
        .collect();
    let names = Names::new(&real, options.anonymous);
    let shown: Vec<String> = real.iter().map(|n| names.show(n)).collect();

    // The labs of the class grade, by number.
    let mut infos: BTreeMap<String, LabInfo> = BTreeMap::new();
    for grade in &class.learners {
        for lab in &grade.labs {
            infos.entry(lab.lab.clone()).or_insert_with(|| LabInfo {
                number: lab.lab.clone(),
                id: lab.id.clone(),
                title: lab.title.clone(),
                max_graded: lab.points.max_graded,
                max_predictions: lab.points.max_predictions,
            });
        }
    }
    let infos: Vec<LabInfo> = infos.into_values().collect();

    let glance = glance(class, &shown, &infos, &names);
    let mut warnings = Vec::new();
    let mut lab_reports = Vec::new();
    for info in &infos {
        let taken: Vec<Taken<'_>> = (class.learners.iter().zip(&shown))
            .filter_map(|(g, name)| {
                let grade = g.labs.iter().find(|l| l.lab == info.number)?;
                Some(Taken {
                    learner: name.clone(),
                    grade,
                })
            })
            .collect();
        let lab = labs.iter().find(|l| l.meta.number == info.number);
        if lab.is_none() {
            warnings.push(format!(
                "lab {} is not in this workbook: its items and explanations cannot be shown",
                info.number
            ));
        }
        let report = lab_report(info, lab, &taken, root, labs, options);
        if !report.key_changed_for.is_empty() {
            warnings.push(format!(
                "lab {}: today's key disagrees with the right answers recorded for {} learner(s) ({}): the lab's items changed since the grading, so the shares right below use today's key, while every point shown is the one recorded",
                info.number,
                report.key_changed_for.len(),
                some(&report.key_changed_for)
            ));
        }
        lab_reports.push(report);
    }
    Report {
        version: REPORT_VERSION,
        anonymous: options.anonymous,
        learners: shown.clone(),
        labs: infos,
        glance,
        lab_reports,
        integrity: integrity(class, &shown, &names),
        warnings,
    }
}

/// A few names, and how many more.
fn some(names: &[String]) -> String {
    const SHOWN: usize = 5;
    if names.len() <= SHOWN + 1 {
        names.join(", ")
    } else {
        format!(
            "{} and {} more",
            names[..SHOWN].join(", "),
            names.len() - SHOWN
        )
    }
}

/// The gist of a recorded reason: its first line, and the line after it when the first
/// only announces it ("The compiler said:").
fn gist(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_string();
    match lines.next() {
        Some(next) if first.ends_with(':') => format!("{first} {next}"),
        _ => first,
    }
}

fn glance(class: &ClassGrade, shown: &[String], labs: &[LabInfo], names: &Names) -> Glance {
    let mut rows = Vec::new();
    let mut did_not_build = Vec::new();
    let mut refused = Vec::new();
    let mut with_notes = Vec::new();
    for (grade, learner) in class.learners.iter().zip(shown) {
        let mut all = SeverityCounts::default();
        let mut cells = Vec::new();
        for info in labs {
            let Some(lab) = grade.labs.iter().find(|l| l.lab == info.number) else {
                cells.push(None);
                continue;
            };
            let mut notes = SeverityCounts::default();
            for note in &lab.integrity.notes {
                notes.add(note.severity);
                all.add(note.severity);
            }
            cells.push(Some(GlanceCell {
                status: lab.status,
                graded: lab.points.graded,
                max_graded: lab.points.max_graded,
                predictions: lab.points.predictions,
                max_predictions: lab.points.max_predictions,
                mode: lab.predictions.mode,
                notes,
            }));
            let unbuilt = |fault| Unbuilt {
                learner: learner.clone(),
                lab: lab.lab.clone(),
                status: lab.status,
                fault,
                // A compiler's message may name the learner's folder.
                reason: names.scrub(
                    &(lab.reason.as_deref().map(gist))
                        .unwrap_or_else(|| lab.status.words().to_string()),
                ),
            };
            match lab.status {
                LabStatus::Graded => {}
                LabStatus::DidNotCompile | LabStatus::BuildCapped => {
                    did_not_build.push(unbuilt(Fault::Learner))
                }
                LabStatus::GraderFault | LabStatus::BrokenMetadata => {
                    did_not_build.push(unbuilt(Fault::Grader))
                }
                LabStatus::Refused | LabStatus::NotAWorkbook => {
                    refused.push(unbuilt(Fault::Learner))
                }
            }
        }
        if all.total() > 0 {
            with_notes.push(NotesOf {
                learner: learner.clone(),
                counts: all,
            });
        }
        rows.push(GlanceRow {
            learner: learner.clone(),
            cells,
            points: grade.points,
            max_points: grade.max_points,
            notes: all,
        });
    }
    with_notes.sort_by(|a, b| {
        (b.counts.serious, b.counts.review, b.counts.info).cmp(&(
            a.counts.serious,
            a.counts.review,
            a.counts.info,
        ))
    });
    Glance {
        rows,
        did_not_build,
        refused,
        with_notes,
    }
}

/// An item of a lab, as the teacher's key describes it.
struct Item {
    id: String,
    kind: ItemKind,
    question: String,
    claim: Option<String>,
    options: Vec<(String, Option<String>)>,
    right: String,
    explanation: String,
}

fn items_of(lab: &Lab) -> Vec<Item> {
    let ids = lab.item_ids();
    let mut items = Vec::new();
    for (i, (check, key)) in lab.meta.checks.iter().zip(&lab.key.checks).enumerate() {
        let yes = check.answer_for(key.holds);
        items.push(Item {
            id: ids[i].clone(),
            kind: ItemKind::Check,
            question: check.ask.clone(),
            claim: Some(key.claim.clone()),
            options: vec![("yes".into(), None), ("no".into(), None)],
            right: if yes { "yes" } else { "no" }.into(),
            explanation: key.explain.clone(),
        });
    }
    let n = lab.meta.checks.len();
    for (i, (q, key)) in lab
        .meta
        .questions
        .iter()
        .zip(&lab.key.questions)
        .enumerate()
    {
        items.push(Item {
            id: ids[n + i].clone(),
            kind: ItemKind::Question,
            question: q.prompt.clone(),
            claim: None,
            options: (q.options.iter())
                .map(|(letter, text)| (letter.clone(), Some(text.clone())))
                .collect(),
            right: key.answer.clone(),
            explanation: key.explain.clone(),
        });
    }
    items
}

/// `part / whole` lies in the discussion band (inclusive), in whole numbers.
fn in_discussion_band(part: usize, whole: usize) -> bool {
    whole > 0
        && part * DISCUSS_FROM.1 >= DISCUSS_FROM.0 * whole
        && part * DISCUSS_TO.1 <= DISCUSS_TO.0 * whole
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn item_report(number: usize, item: &Item, sealed: &[&Taken<'_>]) -> ItemReport {
    let mut options: Vec<OptionCount> = (item.options.iter())
        .map(|(answer, text)| OptionCount {
            answer: answer.clone(),
            text: text.clone(),
            right: *answer == item.right,
            sealed: 0,
            current: 0,
        })
        .collect();
    let (mut answered, mut right_count) = (0, 0);
    let (mut answered_now, mut right_now) = (0, 0);
    let mut shift = Shift {
        learners: Vec::new(),
        wrong_to_right: 0,
        right_to_wrong: 0,
        wrong_to_wrong: 0,
        share_right_now: None,
    };
    for taken in sealed {
        let p = &taken.grade.predictions;
        let before = p.sealed_answers.get(&item.id);
        let now = p.current_answers.get(&item.id);
        if let Some(answer) = before {
            answered += 1;
            if *answer == item.right {
                right_count += 1;
            }
            if let Some(option) = options.iter_mut().find(|o| &o.answer == answer) {
                option.sealed += 1;
            }
        }
        if let Some(answer) = now {
            answered_now += 1;
            if *answer == item.right {
                right_now += 1;
            }
            if let Some(option) = options.iter_mut().find(|o| &o.answer == answer) {
                option.current += 1;
            }
        }
        if p.revised.contains(&item.id) {
            shift.learners.push(taken.learner.clone());
            let was = before.is_some_and(|a| *a == item.right);
            let is = now.is_some_and(|a| *a == item.right);
            match (was, is) {
                (false, true) => shift.wrong_to_right += 1,
                (true, false) => shift.right_to_wrong += 1,
                _ => shift.wrong_to_wrong += 1,
            }
        }
    }
    shift.share_right_now = share(right_now, answered_now);
    ItemReport {
        id: item.id.clone(),
        number,
        kind: item.kind,
        question: item.question.clone(),
        claim: item.claim.clone(),
        options,
        right: item.right.clone(),
        answered,
        unanswered: sealed.len() - answered,
        right_count,
        share_right: share(right_count, answered),
        discuss: in_discussion_band(right_count, answered),
        explanation: item.explanation.clone(),
        shift: (!shift.learners.is_empty()).then_some(shift),
    }
}

fn lab_report(
    info: &LabInfo,
    lab: Option<&Lab>,
    taken: &[Taken<'_>],
    root: &Path,
    labs: &[Lab],
    options: &Options,
) -> LabReport {
    let sealed: Vec<&Taken<'_>> = taken
        .iter()
        .filter(|t| t.grade.predictions.sealed)
        .collect();
    let items = lab.map(items_of).unwrap_or_default();
    let mut reports: Vec<ItemReport> = (items.iter().enumerate())
        .map(|(i, item)| item_report(i + 1, item, &sealed))
        .collect();
    // The most missed first; items nobody answered last; the lab's order otherwise.
    reports.sort_by(|a, b| match (a.share_right, b.share_right) {
        (Some(x), Some(y)) => x.total_cmp(&y).then(a.number.cmp(&b.number)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.number.cmp(&b.number),
    });
    let right: BTreeMap<&str, &str> = (items.iter())
        .map(|i| (i.id.as_str(), i.right.as_str()))
        .collect();
    let key_changed_for = if lab.is_some() {
        (sealed.iter())
            .filter(|t| {
                let p = &t.grade.predictions;
                let today = (p.sealed_answers.iter())
                    .filter(|(id, a)| right.get(id.as_str()) == Some(&a.as_str()))
                    .count();
                !p.sealed_answers.is_empty() && today != p.correct
            })
            .map(|t| t.learner.clone())
            .collect()
    } else {
        Vec::new()
    };
    let mut modes = Vec::new();
    for t in taken {
        if !modes.contains(&t.grade.predictions.mode) {
            modes.push(t.grade.predictions.mode);
        }
    }

    let graded: Vec<&Taken<'_>> = (taken.iter())
        .filter(|t| t.grade.status == LabStatus::Graded)
        .collect();
    let mut misconceptions: Vec<Misconception> = Vec::new();
    let mut unmatched: Vec<Unmatched> = Vec::new();
    let mut as_starter = Vec::new();
    let mut failed_runs = 0;
    let starter_fails: Option<Vec<&String>> = lab.map(|l| {
        let mut fails: Vec<&String> = l.meta.starter_fails.iter().collect();
        fails.sort();
        fails
    });
    let fails_as_starter = |fails: &[String]| {
        let mut fails: Vec<&String> = fails.iter().collect();
        fails.sort();
        starter_fails.as_ref() == Some(&fails)
    };
    for t in &graded {
        let Some(failure) = &t.grade.failure else {
            continue;
        };
        failed_runs += 1;
        for d in &failure.diagnoses {
            match (misconceptions.iter_mut())
                .find(|m| m.misconception == d.misconception && m.section.target == d.section)
            {
                Some(m) => m.learners.push(t.learner.clone()),
                None => misconceptions.push(Misconception {
                    misconception: d.misconception.clone(),
                    section: super::book::section(root, labs, &d.section, &options.book_base),
                    learners: vec![t.learner.clone()],
                }),
            }
        }
        if failure.diagnoses.is_empty() && fails_as_starter(&failure.fails) {
            as_starter.push(t.learner.clone());
        } else if failure.diagnoses.is_empty() {
            match (unmatched.iter_mut())
                .find(|u| u.fails == failure.fails && u.invariant == failure.invariant)
            {
                Some(u) => u.learners.push(t.learner.clone()),
                None => unmatched.push(Unmatched {
                    fails: failure.fails.clone(),
                    invariant: failure.invariant.clone(),
                    learners: vec![t.learner.clone()],
                }),
            }
        }
    }
    // The most common first (a stable sort: first seen first among equals).
    misconceptions.sort_by_key(|m| std::cmp::Reverse(m.learners.len()));
    unmatched.sort_by_key(|u| std::cmp::Reverse(u.learners.len()));

    let mut tests: Vec<TestRate> = Vec::new();
    for t in &graded {
        for result in &t.grade.tests.results {
            let at = match tests.iter().position(|r| r.name == result.name) {
                Some(at) => at,
                None => {
                    tests.push(TestRate {
                        name: result.name.clone(),
                        earns: result.max_points > 0.0,
                        passed: 0,
                        runs: 0,
                    });
                    tests.len() - 1
                }
            };
            tests[at].runs += 1;
            tests[at].passed += usize::from(result.passed);
        }
    }
    LabReport {
        lab: info.number.clone(),
        id: info.id.clone(),
        title: info.title.clone(),
        learners: taken.len(),
        sealed: sealed.len(),
        revised: (sealed.iter())
            .filter(|t| !t.grade.predictions.revised.is_empty())
            .count(),
        modes,
        from_poll: (taken.iter())
            .filter(|t| t.grade.predictions.source == crate::grade::PredictionSource::Poll)
            .count(),
        items: reports,
        key_changed_for,
        graded_runs: graded.len(),
        failed_runs,
        misconceptions,
        unmatched,
        as_starter,
        tests,
    }
}

fn integrity(class: &ClassGrade, shown: &[String], names: &Names) -> IntegrityReport {
    let mut notes = Vec::new();
    for (grade, learner) in class.learners.iter().zip(shown) {
        for lab in &grade.labs {
            for note in &lab.integrity.notes {
                notes.push(IntegrityNote {
                    severity: note.severity,
                    learner: learner.clone(),
                    lab: lab.lab.clone(),
                    text: names.scrub(&note.text),
                    file: note.file.as_deref().map(|f| names.scrub(f)),
                    lines: note.lines.clone(),
                    excerpt: note.excerpt.as_deref().map(|e| names.scrub(e)),
                });
            }
        }
    }
    // Most serious first; the class's order among equals.
    notes.sort_by_key(|n| n.severity);
    let whose = |owner: &str| match owner {
        "reference" => "the reference solution".to_string(),
        o if o.starts_with("catalogue:") => {
            format!(
                "the catalogue's wrong solution `{}`",
                &o["catalogue:".len()..]
            )
        }
        o => names.show(o),
    };
    let mut code_pairs: Vec<CodePairView> = (class.copied_code.iter())
        .map(|c| CodePairView {
            lab: c.lab.clone(),
            left: whose(&c.pair.left),
            right: whose(&c.pair.right),
            file: c.pair.file.clone(),
            share: c.pair.share,
            matched_tokens: c.pair.matched_tokens,
        })
        .collect();
    code_pairs.sort_by(|a, b| b.share.total_cmp(&a.share));
    let mut prediction_pairs: Vec<PredictionPairView> = (class.copied_predictions.iter())
        .map(|p| PredictionPairView {
            lab: p.lab.clone(),
            learners: [names.show(&p.learners[0]), names.show(&p.learners[1])],
            shared_wrong: p.shared_wrong.clone(),
            score: p.score,
        })
        .collect();
    prediction_pairs.sort_by(|a, b| b.score.total_cmp(&a.score));
    IntegrityReport {
        notes,
        code_pairs,
        prediction_pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_that_announces_its_detail_keeps_it() {
        let reason = "lab 01 does not compile. The compiler said:\n\nerror[E0425]: x\n more";
        assert_eq!(
            gist(reason),
            "lab 01 does not compile. The compiler said: error[E0425]: x"
        );
        assert_eq!(gist("the disk is full\nmore"), "the disk is full");
    }

    #[test]
    fn the_discussion_band_is_30_to_70_percent_inclusive() {
        assert!(!in_discussion_band(2, 10));
        assert!(in_discussion_band(3, 10));
        assert!(in_discussion_band(7, 10));
        assert!(!in_discussion_band(8, 10));
        assert!(!in_discussion_band(1, 4));
        assert!(in_discussion_band(1, 3));
        assert!(!in_discussion_band(0, 0));
    }
}
