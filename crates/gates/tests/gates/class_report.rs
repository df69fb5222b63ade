//! The class view over a scripted class: twelve learners graded by the real scorer
//! (`grade::grade_lab`) on labs 01 and 03 of this teacher's edition, with sealed and
//! current answers written here, some revised after the seal, two who copied each
//! other's predictions, graded runs that fail exactly as entries of the real catalogue
//! fail (and one as none does), a lab that did not compile, one refused, one the
//! grader's environment failed, and integrity notes of every severity. The class is saved
//! as a `grade-class --json` file, and from it:
//!
//! - `class report` gives a report whose counts, item order, discussion marks, shifts,
//!   diagnoses, pass rates and integrity lists are those of the script (read from its
//!   typed model, `--json`), all of which the page shows; `--anonymous` shows no name and
//!   the same pseudonyms in every report of the class;
//! - headless Chromium renders the page, and that of a class of sixty over every lab,
//!   with no element wider than its column and every chart with both axes labelled, and
//!   prints it (skipped, with its reason, where Chromium is missing outside CI; a failure
//!   under CI); it also takes the teaching chapter's screenshot (written into the book
//!   only under `BLESS=1`);
//! - `class gradebook` writes the recorded points in each layout, with and without a
//!   roster; `class key` prints a lab's key, and only in the teacher's edition;
//! - a lab in participation mode scores so while another stays in correctness, each
//!   grade records its mode, and neither the report nor the gradebook re-scores when
//!   today's settings say otherwise.

use crate::browser::{self, find_chromium, in_ci};
use crate::common;

use common::{repo, run_cli, scratch_dir, stderr, stdout};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use workbook::class::report::{Fault, ItemReport, Report};
use workbook::class::{ClassGrade, CodePair, copies, table};
use workbook::grade::{
    self, Grade, Integrity, LabEvidence, LabGrade, LabRun, Learner, Note, PredictionSource,
    Severity, SuiteRun, TestOutcome, TestRun,
};
use workbook::meta::{Lab, Signature};
use workbook::predictions::{self, Answer};
use workbook::settings::{PredictionMode, Settings};
use workbook::similarity::{Lines, Pair};

/// The class, in the order of the class grade: A … L.
const NAMES: [&str; 12] = [
    "ailsa7", "bryn7", "calum7", "dougal7", "eilidh7", "fergus7", "greer7", "hamish7", "isla7",
    "jock7", "kirsty7", "lachlan7",
];
const A: usize = 0;
const B: usize = 1;
const C: usize = 2;
const D: usize = 3;
const E: usize = 4;
const F: usize = 5;
const G: usize = 6;
const H: usize = 7;
const I: usize = 8;
const J: usize = 9;
const K: usize = 10;
const L: usize = 11;

/// The teacher's settings of the script: lab 03 for participation, the rest for
/// correctness.
fn script_settings() -> Settings {
    toml::from_str("[predictions]\nmode = \"correctness\"\nlabs = { \"03\" = \"participation\" }\n")
        .expect("the settings parse")
}

fn lab(number: &str) -> Lab {
    workbook::meta::load_labs(&repo())
        .unwrap()
        .labs
        .into_iter()
        .find(|l| l.meta.number == number)
        .expect("the lab exists")
}

fn expected_tests(lab: &Lab) -> Vec<String> {
    let source = std::fs::read_to_string(repo().join(&lab.meta.graded_suite)).unwrap();
    workbook::meta::graded_test_names(&source)
}

/// Catalogue signatures that no other entry of the lab shares: a run that fails so is
/// diagnosed with exactly one misconception.
fn unique_signatures(lab: &Lab) -> Vec<(Signature, String)> {
    let all = &lab.key.diagnoses;
    all.iter()
        .filter(|d| all.iter().filter(|o| o.signature == d.signature).count() == 1)
        .map(|d| (d.signature.clone(), d.misconception.clone()))
        .collect()
}

/// A run that fails exactly as `signature` says (every other expected test passes).
fn run_failing(expected: &[String], signature: &Signature) -> SuiteRun {
    let first = expected.iter().find(|t| signature.fails.contains(t));
    SuiteRun {
        tests: expected
            .iter()
            .map(|name| {
                let failed = signature.fails.contains(name);
                let output = match (&signature.invariant, Some(name) == first) {
                    (Some(inv), true) => {
                        format!("invariant violated: {inv} (lab script, schedule 3)\n")
                    }
                    (None, true) => "assertion failed: left == right\n".into(),
                    _ => String::new(),
                };
                TestRun {
                    name: name.clone(),
                    outcome: if failed {
                        TestOutcome::Failed
                    } else {
                        TestOutcome::Passed
                    },
                    output,
                    detail: None,
                }
            })
            .collect(),
        notes: Vec::new(),
    }
}

fn passing(expected: &[String]) -> SuiteRun {
    run_failing(expected, &Signature::default())
}

/// The wrong answer `k` (0 or 1) to an item: the other yes/no, or another letter.
fn wrong(lab: &Lab, id: &str, right: &Answer, k: usize) -> Answer {
    match right {
        Answer::Claim(yes) => Answer::Claim(!yes),
        Answer::Option(letter) => {
            let index = lab.item_index(id).unwrap() - lab.meta.checks.len();
            let others: Vec<&String> = (lab.meta.questions[index].options.keys())
                .filter(|l| *l != letter)
                .collect();
            Answer::Option(others[k.min(others.len() - 1)].clone())
        }
    }
}

/// One learner's answers to one lab: sealed, and now.
#[derive(Clone, Default)]
struct Answers {
    sealed: BTreeMap<String, Answer>,
    now: BTreeMap<String, Answer>,
}

/// The script's answers to lab 01 (see the module's comment and each line).
fn lab01_answers(lab: &Lab) -> Vec<Answers> {
    let right = lab.right_answers();
    let mut class: Vec<Answers> = (0..12)
        .map(|_| Answers {
            sealed: right.clone(),
            now: right.clone(),
        })
        .collect();
    let mut seal_wrong = |who: &[usize], id: &str, k: usize| {
        for &w in who {
            let answer = wrong(lab, id, &right[id], k);
            class[w].sealed.insert(id.into(), answer.clone());
            class[w].now.insert(id.into(), answer);
        }
    };
    // q01: 3 of 12 right (25 %: too few to discuss).
    seal_wrong(&[D, E, F, G, H, I, J, K, L], "q01", 0);
    // q02: 4 of 12 (33 %: discuss).
    seal_wrong(&[E, F, G, H, I, J, K, L], "q02", 0);
    // q03: 6 of 12 (50 %: discuss).
    seal_wrong(&[G, H, I, J, K, L], "q03", 0);
    // q26, the first multiple-choice question: 8 of 12 (67 %: discuss), two wrong letters.
    seal_wrong(&[I, J], "q26", 0);
    seal_wrong(&[K, L], "q26", 1);
    // q27: 9 of 12 (75 %: not to discuss), one wrong letter.
    seal_wrong(&[J, K, L], "q27", 0);
    // q05 … q11: the copiers' rare wrong answers, given by nobody else (10 of 12).
    for n in 5..=11 {
        seal_wrong(&[C, D], &format!("q{n:02}"), 0);
    }
    // q04: K had not answered it when sealing (and has not since).
    class[K].sealed.remove("q04");
    class[K].now.remove("q04");
    // Revisions after the seal: three learners put q03 right, J swaps one wrong letter
    // of q26 for the other, B changes a right q27 for a wrong one.
    for w in [G, H, I] {
        class[w].now.insert("q03".into(), right["q03"].clone());
    }
    class[J]
        .now
        .insert("q26".into(), wrong(lab, "q26", &right["q26"], 1));
    class[B]
        .now
        .insert("q27".into(), wrong(lab, "q27", &right["q27"], 0));
    class
}

/// The script's answers to lab 03: A and B wrong on q01, C revises q02 after the seal.
fn lab03_answers(lab: &Lab) -> Vec<Answers> {
    let right = lab.right_answers();
    let mut class: Vec<Answers> = (0..12)
        .map(|_| Answers {
            sealed: right.clone(),
            now: right.clone(),
        })
        .collect();
    for w in [A, B] {
        let answer = wrong(lab, "q01", &right["q01"], 0);
        class[w].sealed.insert("q01".into(), answer.clone());
        class[w].now.insert("q01".into(), answer);
    }
    class[C]
        .now
        .insert("q02".into(), wrong(lab, "q02", &right["q02"], 0));
    class
}

fn predictions_of(lab: &Lab, answers: &Answers) -> predictions::Predictions {
    let seal = predictions::Seal::new(lab, &answers.sealed, "2026-03-02T09:00:00Z");
    let text = predictions::with_seal(&predictions::render(lab, &answers.now, None), &seal);
    predictions::parse(lab, &text).expect("the predictions parse")
}

fn note(severity: Severity, text: &str, file: &str, line: usize, excerpt: &str) -> Note {
    Note {
        severity,
        text: text.into(),
        file: Some(file.into()),
        lines: vec![line],
        excerpt: Some(excerpt.into()),
    }
}

/// Everything the script decided, to check the report against.
struct Script {
    lab01: Lab,
    lab03: Lab,
    /// Lab 01's two diagnosed failures: (signature, misconception, learners).
    diagnosed01: Vec<(Signature, String, Vec<usize>)>,
    /// Lab 01's failure no entry explains (J).
    unmatched01: Signature,
    /// Lab 03's diagnosed failure (E).
    diagnosed03: (Signature, String),
}

/// Grades the scripted class with the real scorer, as `grade-class` would.
fn scripted_class() -> (ClassGrade, Script) {
    let lab01 = lab("01");
    let lab03 = lab("03");
    let settings = script_settings();
    let expected01 = expected_tests(&lab01);
    let expected03 = expected_tests(&lab03);
    let unique01 = unique_signatures(&lab01);
    let unique03 = unique_signatures(&lab03);
    assert!(unique01.len() >= 2 && !unique03.is_empty());
    let m1 = unique01[0].clone();
    let m2 = unique01
        .iter()
        .find(|(s, _)| s.fails != m1.0.fails)
        .cloned()
        .unwrap_or_else(|| unique01[1].clone());
    let unmatched01 = Signature {
        fails: vec![expected01.last().unwrap().clone()],
        invariant: Some("an invariant no catalogue entry reports".into()),
    };
    assert!(
        !lab01
            .key
            .diagnoses
            .iter()
            .any(|d| d.signature == unmatched01),
        "the unmatched failure matches no entry"
    );
    let answers01 = lab01_answers(&lab01);
    let answers03 = lab03_answers(&lab03);
    let relay = "labs/01-outbox/src/relay.rs";
    let code_pair = Pair {
        left: NAMES[C].into(),
        right: NAMES[D].into(),
        file: relay.into(),
        share: 0.97,
        matched_fingerprints: 60,
        fingerprints: 62,
        matched_tokens: 240,
        left_lines: vec![Lines {
            first: 10,
            last: 40,
        }],
        right_lines: vec![Lines {
            first: 12,
            last: 42,
        }],
    };
    let mut learners = Vec::new();
    for (w, name) in NAMES.iter().enumerate() {
        // Lab 01.
        let mut integrity = Integrity {
            notes: Vec::new(),
            sandboxed: true,
            refused: false,
        };
        let run01 = match w {
            K => LabRun::DidNotCompile(
                "error: couldn't read `/home/kirsty7/notes.rs`: No such file or directory (os error 2)\n --> labs/01-outbox/src/relay.rs:3:1".into(),
            ),
            L => {
                integrity.refused = true;
                integrity.notes.push(note(
                    Severity::Serious,
                    "brings in another file (`include!`): the grader takes only learner files, so the starter is graded in its place",
                    relay,
                    3,
                    "include!(\"/home/lachlan7/answer.rs\");",
                ));
                let starter = Signature {
                    fails: lab01.meta.starter_fails.clone(),
                    invariant: None,
                };
                LabRun::Ran(run_failing(&expected01, &starter))
            }
            E | F | G => LabRun::Ran(run_failing(&expected01, &m1.0)),
            H | I => LabRun::Ran(run_failing(&expected01, &m2.0)),
            J => LabRun::Ran(run_failing(&expected01, &unmatched01)),
            _ => LabRun::Ran(passing(&expected01)),
        };
        if w == C || w == D {
            let other = if w == C { NAMES[D] } else { NAMES[C] };
            integrity.notes.push(note(
                Severity::Serious,
                &format!(
                    "shares 97 % of its fingerprints (240 tokens) with {other}'s (lines 10–40 here; {other}'s lines 12–42): read both before you grade"
                ),
                relay,
                10,
                "let held: Option<i64> = tx",
            ));
        }
        if w == B {
            integrity.notes.push(note(
                Severity::Info,
                "prints to stdout or stderr itself (usually debugging output)",
                relay,
                57,
                "println!(\"relay {id}\");",
            ));
        }
        let g01 = grade::grade_lab(LabEvidence {
            lab: &lab01,
            predictions: Ok(Some(predictions_of(&lab01, &answers01[w]))),
            first_seal: None,
            source: PredictionSource::File,
            mode: settings.prediction_mode("01"),
            run: run01,
            expected: expected01.clone(),
            integrity,
            notes: Vec::new(),
        });
        // Lab 03.
        let mut integrity = Integrity {
            notes: Vec::new(),
            sandboxed: true,
            refused: false,
        };
        if w == H {
            integrity.notes.push(note(
                Severity::Review,
                "uses `std::process` (ending the process early can hide a failing test; starting another one can do anything)",
                "labs/03-snapshots/src/reserve.rs",
                21,
                "std::process::exit(0);",
            ));
        }
        let (run03, predictions03) = match w {
            L => (
                LabRun::GraderFault(
                    "the grader's disk is full: free some room and grade again".into(),
                ),
                Ok(None),
            ),
            E => (
                LabRun::Ran(run_failing(&expected03, &unique03[0].0)),
                Ok(Some(predictions_of(&lab03, &answers03[w]))),
            ),
            // F's lab 03 is the untouched starter.
            F => (
                LabRun::Ran(run_failing(
                    &expected03,
                    &Signature {
                        fails: lab03.meta.starter_fails.clone(),
                        invariant: None,
                    },
                )),
                Ok(Some(predictions_of(&lab03, &answers03[w]))),
            ),
            _ => (
                LabRun::Ran(passing(&expected03)),
                Ok(Some(predictions_of(&lab03, &answers03[w]))),
            ),
        };
        let g03 = grade::grade_lab(LabEvidence {
            lab: &lab03,
            predictions: predictions03,
            first_seal: None,
            // H's lab 03 predictions came from the live poll's round-1 votes.
            source: if w == H {
                PredictionSource::Poll
            } else {
                PredictionSource::File
            },
            mode: settings.prediction_mode("03"),
            run: run03,
            expected: expected03.clone(),
            integrity,
            notes: Vec::new(),
        });
        learners.push(grade::total(
            vec![g01, g03],
            Some(Learner {
                name: name.to_string(),
                submission: format!("submissions/{name}"),
            }),
        ));
    }
    let mut copied_predictions = Vec::new();
    for lab in [&lab01, &lab03] {
        let key: BTreeMap<String, String> = (lab.right_answers().into_iter())
            .map(|(id, a)| (id, a.show()))
            .collect();
        let sealed: Vec<copies::Sealed<'_>> = learners
            .iter()
            .filter_map(|g: &Grade| {
                let graded = g.labs.iter().find(|l| l.lab == lab.meta.number)?;
                graded.predictions.sealed.then(|| copies::Sealed {
                    learner: &g.learner.as_ref().unwrap().name,
                    answers: &graded.predictions.sealed_answers,
                })
            })
            .collect();
        copied_predictions.extend(copies::copied(&lab.meta.number, &sealed, &key));
    }
    let class = ClassGrade {
        version: grade::FORMAT_VERSION,
        sandboxed: true,
        rows: table::rows(&learners),
        learners,
        copied_predictions,
        copied_code: vec![CodePair {
            lab: "01".into(),
            pair: code_pair,
        }],
        seconds: vec![3.5; 12],
    };
    let script = Script {
        diagnosed01: vec![(m1.0, m1.1, vec![E, F, G]), (m2.0, m2.1, vec![H, I])],
        unmatched01,
        diagnosed03: unique03[0].clone(),
        lab01,
        lab03,
    };
    (class, script)
}

/// The scripted class saved as `grade-class --json` saves it.
fn saved_class(dir: &Path) -> (PathBuf, ClassGrade, Script) {
    let (class, script) = scripted_class();
    let path = dir.join("class.json");
    std::fs::write(&path, serde_json::to_string_pretty(&class).unwrap()).unwrap();
    (path, class, script)
}

/// `class report` on the saved class: the page and its model.
fn make_report(dir: &Path, class: &Path, extra: &[&str]) -> (String, Report) {
    let tag: String = (extra.join("").chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let html = dir.join(format!("report{tag}.html"));
    let json = dir.join(format!("report{tag}.json"));
    let mut args = vec![
        "class",
        "report",
        class.to_str().unwrap(),
        "--out",
        html.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = run_cli(&repo(), &args);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let model: Report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (std::fs::read_to_string(&html).unwrap(), model)
}

fn names(who: &[usize]) -> Vec<String> {
    who.iter().map(|&w| NAMES[w].to_string()).collect()
}

fn item<'a>(report: &'a Report, lab: &str, id: &str) -> &'a ItemReport {
    let lab = report.lab_reports.iter().find(|l| l.lab == lab).unwrap();
    lab.items.iter().find(|i| i.id == id).unwrap()
}

/// `text` as the page escapes it.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Text with `code` spans as the page writes it.
fn inline(text: &str) -> String {
    (text.split('`').enumerate())
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(part))
            } else {
                esc(part)
            }
        })
        .collect()
}

#[test]
fn the_report_counts_orders_and_diagnoses_the_scripted_class() {
    let dir = scratch_dir("class-report");
    let (path, class, script) = saved_class(&dir);
    let (html, report) = make_report(&dir, &path, &[]);
    assert_eq!(report.learners, names(&(0..12).collect::<Vec<_>>()));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let labs: Vec<&str> = report.labs.iter().map(|l| l.number.as_str()).collect();
    assert_eq!(labs, ["01", "03"]);

    // Lab 01's items, the most missed first; ties in the lab's order.
    let lab01 = &report.lab_reports[0];
    let order: Vec<&str> = lab01.items.iter().map(|i| i.id.as_str()).collect();
    let mut expected: Vec<String> = ["q01", "q02", "q03", "q26", "q27"]
        .map(String::from)
        .to_vec();
    expected.extend((5..=11).map(|n| format!("q{n:02}")));
    expected.push("q04".into());
    expected.extend(
        (12..=script.lab01.prediction_count())
            .filter(|&n| n != 26 && n != 27)
            .map(|n| format!("q{n:02}")),
    );
    assert_eq!(order, expected);
    let shares: Vec<(usize, usize)> = (lab01.items.iter().take(5))
        .map(|i| (i.right_count, i.answered))
        .collect();
    assert_eq!(shares, [(3, 12), (4, 12), (6, 12), (8, 12), (9, 12)]);
    // Discussed: the items 30 to 70 % right, and only those.
    let discuss: Vec<&str> = (lab01.items.iter().filter(|i| i.discuss))
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(discuss, ["q02", "q03", "q26"]);
    assert!(report.lab_reports[1].items.iter().all(|i| !i.discuss));
    // Counts per option, sealed and now, and the right one marked.
    let q26 = item(&report, "01", "q26");
    let right26 = script.lab01.right_answers()["q26"].show();
    let (w0, w1) = (
        wrong(&script.lab01, "q26", &Answer::Option(right26.clone()), 0).show(),
        wrong(&script.lab01, "q26", &Answer::Option(right26.clone()), 1).show(),
    );
    let count = |answer: &str| {
        let o = q26.options.iter().find(|o| o.answer == answer).unwrap();
        (o.sealed, o.current, o.right)
    };
    assert_eq!(count(&right26), (8, 8, true));
    assert_eq!(count(&w0), (2, 1, false));
    assert_eq!(count(&w1), (2, 3, false));
    let shift = q26.shift.as_ref().unwrap();
    assert_eq!(shift.learners, names(&[J]));
    assert_eq!(
        (
            shift.wrong_to_right,
            shift.right_to_wrong,
            shift.wrong_to_wrong
        ),
        (0, 0, 1)
    );
    let q03 = item(&report, "01", "q03");
    let shift = q03.shift.as_ref().unwrap();
    assert_eq!(shift.learners, names(&[G, H, I]));
    assert_eq!(shift.wrong_to_right, 3);
    assert_eq!(shift.share_right_now, Some(9.0 / 12.0));
    let q27 = item(&report, "01", "q27");
    assert_eq!(q27.shift.as_ref().unwrap().right_to_wrong, 1);
    assert_eq!(q27.shift.as_ref().unwrap().learners, names(&[B]));
    let q04 = item(&report, "01", "q04");
    assert_eq!((q04.answered, q04.unanswered, q04.right_count), (11, 1, 11));
    assert!(q04.shift.is_none());
    assert_eq!((lab01.learners, lab01.sealed, lab01.revised), (12, 12, 5));
    assert_eq!(lab01.from_poll, 0);
    assert_eq!(report.lab_reports[1].from_poll, 1);
    assert!(html.contains("The predictions of 1 of them are their round-1 votes in the live poll"));
    assert_eq!(lab01.modes, [PredictionMode::Correctness]);
    assert_eq!(report.lab_reports[1].modes, [PredictionMode::Participation]);
    assert_eq!(
        report.lab_reports[1].sealed, 11,
        "L's lab 03 was never graded"
    );

    // Diagnoses: each catalogue entry the graded runs matched, the most common first.
    assert_eq!((lab01.graded_runs, lab01.failed_runs), (10, 6));
    let found: Vec<(String, Vec<String>)> = (lab01.misconceptions.iter())
        .map(|m| (m.misconception.clone(), m.learners.clone()))
        .collect();
    let wanted: Vec<(String, Vec<String>)> = (script.diagnosed01.iter())
        .map(|(_, m, who)| (m.clone(), names(who)))
        .collect();
    assert_eq!(found, wanted);
    for m in &lab01.misconceptions {
        let d = (script.lab01.key.diagnoses.iter())
            .find(|d| d.misconception == m.misconception)
            .unwrap();
        assert_eq!(m.section.target, d.section);
        assert!(m.section.heading.is_some(), "{} names a heading", d.section);
        // The heading is on the chapter's page or on its page after the run.
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
        let page = workbook::pages::section_page(&src, &d.section);
        assert!(
            m.section.href.ends_with(&page.replace(".md#", ".html#")),
            "{} links {}",
            d.section,
            m.section.href
        );
    }
    assert_eq!(lab01.unmatched.len(), 1);
    assert_eq!(lab01.unmatched[0].fails, script.unmatched01.fails);
    assert_eq!(lab01.unmatched[0].invariant, script.unmatched01.invariant);
    assert_eq!(lab01.unmatched[0].learners, names(&[J]));
    let lab03 = &report.lab_reports[1];
    assert_eq!(lab03.misconceptions.len(), 1);
    assert_eq!(lab03.misconceptions[0].misconception, script.diagnosed03.1);
    assert_eq!(lab03.misconceptions[0].learners, names(&[E]));
    assert!(lab03.unmatched.is_empty(), "{:?}", lab03.unmatched);
    assert_eq!(lab03.as_starter, names(&[F]));
    assert!(lab01.as_starter.is_empty());
    assert!(html.contains(
        "1 graded run(s) failed every test the untouched starter fails, and no other: no work of the build phase shows (fergus7)."
    ));
    // Pass rates over the ten graded runs (K did not compile, L was refused).
    let rates: BTreeMap<&str, (usize, usize)> = (lab01.tests.iter())
        .map(|t| (t.name.as_str(), (t.passed, t.runs)))
        .collect();
    for test in expected_tests(&script.lab01) {
        let mut failing = 0;
        for (signature, _, who) in &script.diagnosed01 {
            if signature.fails.contains(&test) {
                failing += who.len();
            }
        }
        if script.unmatched01.fails.contains(&test) {
            failing += 1;
        }
        assert_eq!(rates[test.as_str()], (10 - failing, 10), "{test}");
    }
    let earning: BTreeSet<&str> = (lab01.tests.iter().filter(|t| t.earns))
        .map(|t| t.name.as_str())
        .collect();
    let starter: BTreeSet<&str> = script
        .lab01
        .meta
        .starter_fails
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(earning, starter);

    // At a glance: who did not build (and whose doing it was), who was refused, who has
    // notes, the most serious first; points as recorded.
    let unbuilt: Vec<(String, String, Fault)> = (report.glance.did_not_build.iter())
        .map(|u| (u.learner.clone(), u.lab.clone(), u.fault))
        .collect();
    assert_eq!(
        unbuilt,
        [
            (NAMES[K].to_string(), "01".to_string(), Fault::Learner),
            (NAMES[L].to_string(), "03".to_string(), Fault::Grader),
        ]
    );
    assert!(
        report.glance.did_not_build[0]
            .reason
            .ends_with("The compiler said: error: couldn't read `/home/kirsty7/notes.rs`: No such file or directory (os error 2)"),
        "{}",
        report.glance.did_not_build[0].reason
    );
    assert_eq!(report.glance.refused.len(), 1);
    assert_eq!(report.glance.refused[0].learner, NAMES[L]);
    let noted: Vec<&str> = (report.glance.with_notes.iter())
        .map(|n| n.learner.as_str())
        .collect();
    assert_eq!(noted, [NAMES[C], NAMES[D], NAMES[L], NAMES[H], NAMES[B]]);
    for (row, grade) in report.glance.rows.iter().zip(&class.learners) {
        assert_eq!(row.points, grade.points);
        for (cell, lab) in row.cells.iter().zip(&grade.labs) {
            let cell = cell.as_ref().unwrap();
            assert_eq!(
                (cell.graded, cell.predictions),
                (lab.points.graded, lab.points.predictions)
            );
            assert_eq!(cell.status, lab.status);
        }
    }

    // Integrity: every note, the most serious first; the similar code and the copiers.
    let severities: Vec<Severity> = report.integrity.notes.iter().map(|n| n.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted);
    assert_eq!(severities.len(), 5);
    assert_eq!(report.integrity.notes[0].learner, NAMES[C]);
    assert_eq!(report.integrity.notes[4].severity, Severity::Info);
    assert_eq!(report.integrity.code_pairs.len(), 1);
    assert_eq!(
        report.integrity.prediction_pairs.len(),
        1,
        "{:?}",
        class.copied_predictions
    );
    let pair = &report.integrity.prediction_pairs[0];
    assert_eq!(
        (pair.lab.as_str(), &pair.learners),
        ("01", &[NAMES[C].to_string(), NAMES[D].to_string()])
    );
    let shared: Vec<&str> = pair
        .shared_wrong
        .iter()
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(shared, ["q05", "q06", "q07", "q08", "q09", "q10", "q11"]);

    // The page shows all of it.
    for item in &lab01.items {
        assert!(html.contains(&format!("id=\"lab-01-{}\"", item.id)));
        assert!(html.contains(&format!(
            "{} of {} who answered before the run were right",
            item.right_count, item.answered
        )));
    }
    for id in ["q02", "q03", "q26"] {
        assert!(
            html.contains(&format!(
                "<article class=\"item discuss\" id=\"lab-01-{id}\">"
            )),
            "{id}"
        );
    }
    assert_eq!(html.matches("<article class=\"item discuss\"").count(), 3);
    let first = |id: &str| html.find(&format!("id=\"lab-01-{id}\"")).unwrap();
    assert!(
        first("q01") < first("q02") && first("q02") < first("q03") && first("q27") < first("q05")
    );
    for (_, misconception, who) in &script.diagnosed01 {
        let row = html
            .split(&inline(misconception))
            .nth(1)
            .expect("the misconception is on the page");
        let row = row.split("</tr>").next().unwrap();
        let listed = format!("<strong>{}</strong>: {}", who.len(), names(who).join(", "));
        assert!(row.contains(&listed), "{row}");
    }
    assert!(html.contains("the catalogue's next entry"));
    assert!(html.contains(
        "After the seal, 3 changed this answer (greer7, hamish7, isla7): 3 from wrong to right"
    ));
    for check in &script.lab01.key.checks {
        assert!(html.contains(&inline(&check.explain)), "{}", check.explain);
    }
    for name in NAMES {
        assert!(html.contains(name));
    }
    // Self-contained: no script, nothing loaded from anywhere.
    assert!(!html.contains("<script"));
    assert!(!html.contains(" src="));
    assert!(!html.contains("<link"));
    assert!(!html.contains("url("));
    assert!(!html.contains("@import"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_anonymous_report_shows_no_name_and_the_same_pseudonyms_every_time() {
    let dir = scratch_dir("class-report-anon");
    let (path, class, _) = saved_class(&dir);
    let (html, report) = make_report(&dir, &path, &["--anonymous"]);
    assert!(report.anonymous);
    for name in NAMES {
        assert!(!html.contains(name), "{name} is on the anonymous page");
    }
    let unique: BTreeSet<&String> = report.learners.iter().collect();
    assert_eq!(unique.len(), 12);
    // Again, from the same class: the same page.
    let again_dir = dir.join("again");
    std::fs::create_dir_all(&again_dir).unwrap();
    let (again, _) = make_report(&again_dir, &path, &["--anonymous"]);
    assert_eq!(html, again);
    // Another report of the same class (lab 03 alone, learners in another order): the
    // same learner, the same pseudonym.
    let mut other = class.clone();
    other.learners.reverse();
    for grade in &mut other.learners {
        grade.labs.retain(|l| l.lab == "03");
    }
    other.copied_code.clear();
    other.copied_predictions.clear();
    let other_path = dir.join("class-03.json");
    std::fs::write(&other_path, serde_json::to_string(&other).unwrap()).unwrap();
    let (_, other_report) = make_report(&dir, &other_path, &["--anonymous"]);
    let mut reversed = report.learners.clone();
    reversed.reverse();
    assert_eq!(other_report.learners, reversed);
    // The links into the book go where `--book` says.
    let (_, linked) = make_report(&dir, &path, &["--book", "https://course.example/book/"]);
    let m = &linked.lab_reports[0].misconceptions[0];
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
    let page = workbook::pages::section_page(&src, &m.section.target);
    assert_eq!(
        m.section.href,
        format!(
            "https://course.example/book/{}",
            page.replace(".md#", ".html#")
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `class gradebook` and returns its CSV as records.
fn gradebook(dir: &Path, class: &Path, extra: &[&str]) -> (Vec<Vec<String>>, String) {
    let out_file = dir.join(format!("gradebook{}.csv", extra.join("").replace('/', "_")));
    let mut args = vec![
        "class",
        "gradebook",
        class.to_str().unwrap(),
        "--out",
        out_file.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = run_cli(&repo(), &args);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = std::fs::read_to_string(&out_file).unwrap();
    (workbook::class::gradebook::csv_records(&text), stdout(&out))
}

fn number(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("`{text}` is a number"))
}

fn lab_of<'a>(class: &'a ClassGrade, who: usize, lab: &str) -> &'a LabGrade {
    class.learners[who]
        .labs
        .iter()
        .find(|l| l.lab == lab)
        .unwrap()
}

#[test]
fn the_gradebook_holds_the_recorded_points_in_every_layout() {
    let dir = scratch_dir("class-gradebook");
    let (path, class, script) = saved_class(&dir);
    let max01 = script.lab01.meta.points.predictions + script.lab01.meta.points.graded;
    let max03 = script.lab03.meta.points.predictions + script.lab03.meta.points.graded;
    let title01 = format!("Lab 01: {}", script.lab01.meta.title);
    let title03 = format!("Lab 03: {}", script.lab03.meta.title);

    // Plain, without a roster: a row per learner, the recorded points, out of the labs
    // graded (L's lab 03 failed on the grader's side: blank, and not counted).
    let (rows, _) = gradebook(&dir, &path, &[]);
    assert_eq!(
        rows[0],
        [
            "learner",
            "student_id",
            "name",
            "email",
            "lab_01",
            "lab_03",
            "total",
            "out_of",
            "not_graded"
        ]
    );
    assert_eq!(rows.len(), 13);
    for (w, row) in rows[1..].iter().enumerate() {
        assert_eq!(row[0], NAMES[w]);
        assert_eq!(number(&row[4]), lab_of(&class, w, "01").points.total);
        if w == L {
            assert_eq!(row[5], "");
            assert_eq!(number(&row[6]), lab_of(&class, w, "01").points.total);
            assert_eq!(number(&row[7]), max01 as f64);
            assert_eq!(row[8], "03: not graded (grader's environment)");
        } else {
            assert_eq!(number(&row[5]), lab_of(&class, w, "03").points.total);
            assert_eq!(number(&row[6]), class.learners[w].points);
            assert_eq!(number(&row[7]), (max01 + max03) as f64);
        }
    }
    // A learner whose lab did not compile keeps what their predictions earned.
    assert!(number(&rows[1 + K][4]) > 0.0);
    assert_eq!(lab_of(&class, K, "01").points.graded, 0.0);

    // With a roster: eleven of the learners, and one without a submission.
    let mut roster = String::from("folder,id,name,email,section\n");
    for (w, name) in NAMES.iter().enumerate().take(11) {
        roster.push_str(&format!(
            "{name},S{w:03},\"Learner {w}, {name}\",{name}@uni.example,B2\n"
        ));
    }
    roster.push_str("morag7,S999,Morag Without,morag7@uni.example,B2\n");
    let roster_path = dir.join("roster.csv");
    std::fs::write(&roster_path, roster).unwrap();
    let roster_arg = roster_path.to_str().unwrap();

    let (rows, said) = gradebook(&dir, &path, &["--roster", roster_arg, "--format", "canvas"]);
    assert!(
        said.contains("the roster does not name 1") && said.contains(NAMES[L]),
        "{said}"
    );
    assert!(
        said.contains("1 of the roster have no submission") && said.contains("morag7"),
        "{said}"
    );
    assert_eq!(
        rows[0],
        [
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            title01.as_str(),
            title03.as_str(),
            "Final Points"
        ]
    );
    assert_eq!(rows[1][0].trim(), "Points Possible");
    assert_eq!(
        rows[1][5..],
        [
            max01.to_string(),
            max03.to_string(),
            (max01 + max03).to_string()
        ]
    );
    assert_eq!(rows.len(), 2 + 13);
    let ailsa = &rows[2];
    assert_eq!(ailsa[..5], ["Learner 0, ailsa7", "", "S000", "", "B2"]);
    assert_eq!(number(&ailsa[5]), lab_of(&class, A, "01").points.total);
    assert_eq!(number(&ailsa[7]), class.learners[A].points);
    let lachlan = &rows[2 + L];
    assert_eq!(lachlan[..5], [NAMES[L], "", "", "", ""]);
    assert_eq!(
        lachlan[6], "",
        "not graded: blank, which changes nothing in Canvas"
    );
    let morag = rows.last().unwrap();
    assert_eq!(morag[..3], ["Morag Without", "", "S999"]);
    assert_eq!(morag[5..7], ["", ""]);

    let (rows, _) = gradebook(&dir, &path, &["--roster", roster_arg, "--format", "moodle"]);
    assert_eq!(
        rows[0],
        [
            "ID number",
            "Full name",
            "Email address",
            title01.as_str(),
            title03.as_str(),
            "Total"
        ]
    );
    let bryn = &rows[1 + B];
    assert_eq!(bryn[..3], ["S001", "Learner 1, bryn7", "bryn7@uni.example"]);
    assert_eq!(number(&bryn[3]), lab_of(&class, B, "01").points.total);
    assert_eq!(number(&bryn[5]), class.learners[B].points);

    let (rows, _) = gradebook(&dir, &path, &["--roster", roster_arg, "--format", "plain"]);
    assert_eq!(
        rows[1][..4],
        ["ailsa7", "S000", "Learner 0, ailsa7", "ailsa7@uni.example"]
    );
    assert_eq!(rows.last().unwrap()[0], "");
    assert_eq!(
        rows.last().unwrap()[8],
        "01: no submission; 03: no submission"
    );

    // A layout it does not know is refused by name.
    let out = run_cli(
        &repo(),
        &[
            "class",
            "gradebook",
            path.to_str().unwrap(),
            "--out",
            dir.join("x.csv").to_str().unwrap(),
            "--format",
            "blackboard",
        ],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("the formats are canvas, moodle and plain"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_printed_key_lists_every_item_with_its_answer_and_explanation() {
    let lab = lab("03");
    let out = run_cli(&repo(), &["class", "key", "03"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let squash = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = squash(&text);
    assert!(text.starts_with(&format!("Lab 03 · {} — the answer key", lab.meta.title)));
    let right = lab.right_answers();
    for (i, id) in lab.item_ids().iter().enumerate() {
        assert!(text.contains(&format!("\n{id}  {}. ", i + 1)), "{id}");
        let answer = match &right[id] {
            Answer::Claim(yes) => format!("answer: {}", if *yes { "yes" } else { "no" }),
            Answer::Option(letter) => format!("answer: ({letter})"),
        };
        let block = text
            .split(&format!("\n{id}  "))
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap();
        assert!(block.contains(&answer), "{id}: {block}");
    }
    for check in &lab.key.checks {
        assert!(flat.contains(&squash(&check.ask)));
        assert!(flat.contains(&squash(&check.explain)));
        assert!(flat.contains(&squash(&check.claim)));
    }
    for (q, key) in lab.meta.questions.iter().zip(&lab.key.questions) {
        assert!(flat.contains(&squash(&q.prompt)));
        assert!(flat.contains(&squash(&key.explain)));
        for option in q.options.values() {
            assert!(flat.contains(&squash(option)));
        }
        assert!(flat.contains(&format!("→ ({})", key.answer)));
    }
    assert!(text.lines().all(|l| l.chars().count() <= 88), "{text}");
}

/// `class` is in the teacher's section of the help, absent from the student edition's, and
/// what shows a key refuses to run there (a scratch workbook without `solutions/` is a
/// student edition as the CLI sees it).
#[test]
fn the_class_command_is_the_teachers_alone() {
    let teacher_help = stdout(&run_cli(&repo(), &["help"]));
    let teaching = teacher_help
        .split("Teaching (this edition only):")
        .nth(1)
        .unwrap();
    assert!(
        teaching.contains("cargo labs class report"),
        "{teacher_help}"
    );
    assert!(
        !teacher_help
            .split("Teaching")
            .next()
            .unwrap()
            .contains("cargo labs class")
    );
    let student = common::lab01_metadata();
    let help = stdout(&run_cli(&student, &["help"]));
    assert!(!help.contains("cargo labs class"), "{help}");
    assert!(!help.contains("Teaching"), "{help}");
    for args in [
        &["class", "key", "01"][..],
        &["class", "report", "x.json", "--out", "r.html"],
        &["grade-class", "x", "--report", "r.html"],
    ] {
        let out = run_cli(&student, args);
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains("works in the teacher's edition only"),
            "{}",
            stderr(&out)
        );
    }
    // GitHub Classroom grades one submission from a pinned student edition: that one runs.
    let classroom = run_cli(&student, &["grade-class", "no-such-folder", "--classroom"]);
    assert!(
        !stderr(&classroom).contains("teacher's edition only"),
        "{}",
        stderr(&classroom)
    );
    let _ = std::fs::remove_dir_all(&student);
    // The chapter's picture of a report shows answers: the student edition leaves it out.
    assert!(workbook::export::TEACHER_ONLY.contains(&"book/src/figures/class-report.png"));
}

#[test]
fn a_lab_in_participation_mode_scores_so_and_its_grade_keeps_that_mode() {
    let settings = script_settings();
    assert_eq!(
        settings.prediction_mode("03"),
        PredictionMode::Participation
    );
    assert_eq!(settings.prediction_mode("01"), PredictionMode::Correctness);
    let (class, script) = scripted_class();
    // Lab 01, correctness: B changed a right answer after the seal and loses its share;
    // A sealed everything right and earns all.
    let n01 = script.lab01.prediction_count() as f64;
    let max01 = script.lab01.meta.points.predictions as f64;
    let a01 = &lab_of(&class, A, "01").predictions;
    assert_eq!(a01.mode, PredictionMode::Correctness);
    assert_eq!(lab_of(&class, A, "01").points.predictions, max01);
    assert_eq!(lab_of(&class, B, "01").predictions.earned, n01 as usize - 1);
    assert_eq!(
        lab_of(&class, B, "01").points.predictions,
        grade::score::round2(max01 * (n01 - 1.0) / n01)
    );
    // J sealed five wrong answers: correctness takes their shares away.
    assert!(lab_of(&class, J, "01").points.predictions < max01);
    // Lab 03, participation: A sealed a wrong answer, C revised one after the seal; both
    // earn every share, since both answered every item before the seal.
    let max03 = script.lab03.meta.points.predictions as f64;
    for w in [A, C] {
        let graded = lab_of(&class, w, "03");
        assert_eq!(graded.predictions.mode, PredictionMode::Participation);
        assert_eq!(graded.points.predictions, max03, "{}", NAMES[w]);
    }
    assert!(lab_of(&class, A, "03").predictions.correct < script.lab03.prediction_count());
    assert_eq!(lab_of(&class, C, "03").predictions.revised, ["q02"]);

    // Today's settings (this workbook's grading.toml) grade lab 03 for correctness: the
    // same evidence would now earn less. The saved grade says what was recorded, and the
    // report and the gradebook show that, never a re-score.
    let today = Settings::load(&repo()).unwrap();
    assert_eq!(today.prediction_mode("03"), PredictionMode::Correctness);
    let answers = lab03_answers(&script.lab03);
    let rescored = grade::grade_lab(LabEvidence {
        lab: &script.lab03,
        predictions: Ok(Some(predictions_of(&script.lab03, &answers[A]))),
        first_seal: None,
        source: PredictionSource::File,
        mode: today.prediction_mode("03"),
        run: LabRun::Ran(passing(&expected_tests(&script.lab03))),
        expected: expected_tests(&script.lab03),
        integrity: Integrity::default(),
        notes: Vec::new(),
    });
    assert!(rescored.points.predictions < max03);
    let recorded = lab_of(&class, A, "03").points.total;
    assert!(rescored.points.total < recorded);

    let dir = scratch_dir("class-modes");
    let path = dir.join("class.json");
    std::fs::write(&path, serde_json::to_string(&class).unwrap()).unwrap();
    let (rows, _) = gradebook(&dir, &path, &[]);
    assert_eq!(number(&rows[1 + A][5]), recorded);
    let (html, report) = make_report(&dir, &path, &[]);
    let cell = report.glance.rows[A].cells[1].as_ref().unwrap();
    assert_eq!(cell.mode, PredictionMode::Participation);
    assert_eq!(cell.predictions, max03);
    assert!(html.contains("Predictions were scored for participation (as each grade recorded)"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// In the browser.

/// The Chromium binary: `CHROMIUM`, or the first of the usual names that runs. The build
/// script looked for it too: where it found none outside CI, the browser test is
/// ignored, with its reason.
fn chromium() -> String {
    find_chromium().unwrap_or_else(|| {
        panic!(
            "{}chromium is not installed (apt-get install -y chromium; see .ci/run)",
            if in_ci() {
                "CI must have chromium: "
            } else {
                ""
            }
        )
    })
}

/// Measures, once the page has loaded, every element of the page's column against the
/// column, and every chart's text against the chart, and finds each chart's axis labels;
/// writes what it found into the page as JSON, where `--dump-dom` finds it.
const PROBE: &str = r#"<script>
window.addEventListener('load', () => {
  const main = document.querySelector('main');
  const box = main.getBoundingClientRect();
  const style = getComputedStyle(main);
  const left = box.left + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.paddingRight);
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' +
    (el.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' ') + '"';
  const wide = [];
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const b = el.getBoundingClientRect();
    if (b.width === 0 && b.height === 0) continue;
    if (b.left < left - 1 || b.right > right + 1) {
      wide.push(describe(el) + ' spans ' + Math.round(b.left) + '..' + Math.round(b.right) +
        ' px, the column ' + Math.round(left) + '..' + Math.round(right));
    } else if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      wide.push(describe(el) + ' holds ' + el.scrollWidth + ' px of content in ' + el.clientWidth);
    }
  }
  const charts = [];
  for (const svg of main.querySelectorAll('svg')) {
    const s = svg.getBoundingClientRect();
    const x = svg.querySelector('.axis-label.x');
    const y = svg.querySelector('.axis-label.y');
    const problems = [];
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBoundingClientRect();
      if (b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1 || b.bottom > s.bottom + 1) {
        problems.push('text "' + t.textContent.trim().slice(0, 60) + '" runs outside its chart');
      }
    }
    charts.push({ label: svg.getAttribute('aria-label'), x: x ? x.textContent.trim() : '',
      y: y ? y.textContent.trim() : '', width: Math.round(s.width), problems });
  }
  const report = document.createElement('pre');
  report.id = 'layout-report';
  report.textContent = JSON.stringify({ column: Math.round(right - left), wide, charts });
  document.body.appendChild(report);
});
</script>"#;

fn layout_of(chromium: &str, page: &Path, width: u32, dir: &Path) -> serde_json::Value {
    let stem = page.file_stem().unwrap().to_string_lossy();
    let profile = dir.join(format!("profile-{stem}-{width}"));
    let out = Command::new(chromium)
        .args(browser::flags(&profile, width, 1600))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stderr(Stdio::null())
        .output()
        .expect("chromium starts");
    assert!(out.status.success(), "chromium --dump-dom failed");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = dom
        .split_once("<pre id=\"layout-report\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(json, _)| {
            json.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&")
        })
        .expect("the probe reported");
    serde_json::from_str(&json).unwrap()
}

/// The scripted class made large: each learner five times under a long folder name, and
/// lab 01's grade copied into every other lab of the workbook (its answers then fit few
/// of that lab's items, which the report notes and draws all the same).
fn large_class(class: &ClassGrade) -> ClassGrade {
    let labs = workbook::meta::load_labs(&repo()).unwrap().labs;
    let mut big = class.clone();
    big.learners.clear();
    for k in 0..5 {
        for grade in &class.learners {
            let mut copy = grade.clone();
            let learner = copy.learner.as_mut().unwrap();
            learner.name = format!("{}-a-rather-long-submission-folder-{k}", learner.name);
            let first = copy.labs[0].clone();
            for lab in labs
                .iter()
                .filter(|l| l.meta.number != "01" && l.meta.number != "03")
            {
                let mut other = first.clone();
                other.lab = lab.meta.number.clone();
                other.id = lab.meta.id.clone();
                other.title = lab.meta.title.clone();
                copy.labs.push(other);
            }
            copy.labs.sort_by(|a, b| a.lab.cmp(&b.lab));
            big.learners.push(copy);
        }
    }
    big.rows = table::rows(&big.learners);
    big.copied_predictions.clear();
    big
}

/// Renders `html` (the report `report`) in Chromium at each width: nothing wider than
/// the column, every chart with both axes named and its text inside it.
fn check_layout(
    chromium: &str,
    dir: &Path,
    name: &str,
    html: &str,
    report: &Report,
    widths: &[u32],
) {
    let probed = dir.join(format!("probed-{name}.html"));
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let items: usize = report.lab_reports.iter().map(|l| l.items.len()).sum();
    let tested = (report.lab_reports.iter())
        .filter(|l| !l.tests.is_empty())
        .count();
    for &width in widths {
        let layout = layout_of(chromium, &probed, width, dir);
        let wide: Vec<&str> = (layout["wide"].as_array().unwrap().iter())
            .map(|w| w.as_str().unwrap())
            .collect();
        assert!(
            wide.is_empty(),
            "{name}, at {width} px:\n{}",
            wide.join("\n")
        );
        let charts = layout["charts"].as_array().unwrap();
        assert_eq!(charts.len(), 1 + items + tested, "{name}, at {width} px");
        for chart in charts {
            assert!(
                !chart["x"].as_str().unwrap().is_empty(),
                "{chart}: no x-axis label"
            );
            assert!(
                !chart["y"].as_str().unwrap().is_empty(),
                "{chart}: no y-axis label"
            );
            assert!(
                chart["problems"].as_array().unwrap().is_empty(),
                "{name}, at {width} px: {chart}"
            );
        }
        if width == 1280 {
            let column = layout["column"].as_f64().unwrap();
            assert!(
                (700.0..=740.0).contains(&column),
                "the column is the book's: {column} px"
            );
        }
    }
}

#[test]
#[cfg_attr(
    no_chromium,
    ignore = "chromium is not installed (apt-get install -y chromium, or set CHROMIUM); under CI this test fails instead"
)]
fn the_report_fits_its_column_in_chromium_and_every_chart_names_its_axes() {
    let chromium = chromium();
    let dir = scratch_dir("class-report-web");
    let (path, class, _) = saved_class(&dir);
    let (html, report) = make_report(&dir, &path, &[]);
    // At a desktop's width (the column is the book's) and at a narrow one.
    check_layout(&chromium, &dir, "scripted", &html, &report, &[1280, 640]);
    // A large class: sixty learners with long folder names, over every lab.
    let big_dir = dir.join("large");
    std::fs::create_dir_all(&big_dir).unwrap();
    let big_path = big_dir.join("class.json");
    std::fs::write(
        &big_path,
        serde_json::to_string(&large_class(&class)).unwrap(),
    )
    .unwrap();
    let (big_html, big_report) = make_report(&big_dir, &big_path, &[]);
    assert_eq!(big_report.learners.len(), 60);
    assert_eq!(big_report.labs.len(), 10);
    check_layout(&chromium, &dir, "large", &big_html, &big_report, &[1280]);
    // Printable: the page prints to a PDF.
    let pdf = dir.join("report.pdf");
    let out = Command::new(&chromium)
        .args(browser::flags(&dir.join("profile-pdf"), 1280, 1600))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg("--no-pdf-header-footer")
        .arg(format!("file://{}", dir.join("report.html").display()))
        .stderr(Stdio::null())
        .output()
        .expect("chromium starts");
    let printed = std::fs::read(&pdf).unwrap_or_else(|_| panic!("no PDF ({})", out.status));
    assert!(printed.starts_with(b"%PDF") && printed.len() > 50_000);
    // The figure: the class at a glance, then lab 01's most missed items (the contents
    // and the tables under the heat map folded away, so that one picture shows both).
    let shot = dir.join("shot.html");
    std::fs::write(&shot, html.replace("</style>", &format!("{FOLD}</style>"))).unwrap();
    screenshot(&chromium, &dir, &shot);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the teaching chapter's figure leaves out of the page.
const FOLD: &str =
    "nav, #glance h3, #glance table, #glance h3 + p, #glance p.note { display: none; }";

/// The teaching chapter's figure: the top of the report, as wide as the book's column.
/// Kept as a CI artefact every time; written into the book only under `BLESS=1`, and
/// otherwise the committed one must be a picture that fits the column.
fn screenshot(chromium: &str, dir: &Path, page: &Path) {
    const WIDTH: u32 = 720;
    const HEIGHT: u32 = 1720;
    let artefacts = repo().join("target/ci-artifacts");
    std::fs::create_dir_all(&artefacts).unwrap();
    let png = artefacts.join("class-report.png");
    let _ = std::fs::remove_file(&png);
    let out = Command::new(chromium)
        .args(browser::flags(&dir.join("profile-shot"), WIDTH, HEIGHT))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .stderr(Stdio::null())
        .output()
        .expect("chromium starts");
    let bytes = std::fs::read(&png).unwrap_or_else(|_| panic!("no screenshot ({})", out.status));
    let size = |b: &[u8]| {
        (
            u32::from_be_bytes(b[16..20].try_into().unwrap()),
            u32::from_be_bytes(b[20..24].try_into().unwrap()),
        )
    };
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(size(&bytes), (WIDTH, HEIGHT));
    assert!(bytes.len() > 40_000, "a rendered page, not a blank one");
    let figure = repo().join("book/src/figures/class-report.png");
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::copy(&png, &figure).unwrap();
        eprintln!("blessed {}", figure.display());
    }
    let committed = std::fs::read(&figure)
        .expect("book/src/figures/class-report.png exists (BLESS=1 writes it)");
    assert_eq!(&committed[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        size(&committed),
        (WIDTH, HEIGHT),
        "regenerate it with BLESS=1"
    );
}
