//! The report as one self-contained HTML page: inline CSS and SVG, no script, no font or
//! anything else from the network, readable from disk and printable. Its column is the
//! book's (about 90 characters of body text); tables wrap their cells rather than widen.

use super::model::*;
use super::svg::{self, esc};
use crate::grade::{LabStatus, Severity};
use crate::settings::PredictionMode;

const STYLE: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1f2937;
  font: 16px/1.5 "DejaVu Sans", "Open Sans", Arial, Helvetica, sans-serif; }
main { max-width: 46rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.7rem; margin: 0.5rem 0; }
h2 { font-size: 1.35rem; margin-top: 2.5rem; border-bottom: 2px solid #1e40af; }
h3 { font-size: 1.1rem; margin-top: 1.8rem; }
h4 { font-size: 1rem; margin: 0 0 0.3rem; }
p, li { overflow-wrap: anywhere; }
a { color: #1e40af; }
code { font-family: "DejaVu Sans Mono", Consolas, monospace; font-size: 0.88em;
  background: #f1f5f9; padding: 0 0.2em; border-radius: 3px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1rem 0; }
figcaption { font-size: 0.9rem; color: #4b5563; }
svg.chart { display: block; max-width: 100%; height: auto; }
table { width: 100%; table-layout: fixed; border-collapse: collapse; margin: 0.5rem 0;
  font-size: 0.9rem; }
th, td { text-align: left; vertical-align: top; padding: 0.25rem 0.4rem;
  border-bottom: 1px solid #e5e7eb; overflow-wrap: anywhere; }
th { background: #f8fafc; }
.meta, .note { color: #4b5563; font-size: 0.92rem; }
.warning { background: #fef3c7; border-left: 5px solid #d97706; padding: 0.5rem 0.75rem; }
.item { border: 1px solid #d1d5db; border-radius: 4px; padding: 0.6rem 0.8rem;
  margin: 1rem 0; break-inside: avoid; }
.item.discuss { border-left: 6px solid #d97706; }
.tag { display: inline-block; font-size: 0.8rem; font-weight: bold; padding: 0 0.4em;
  border-radius: 3px; background: #d97706; color: #fff; }
.options { margin: 0.3rem 0; padding-left: 0; list-style: none; }
.options li.right { font-weight: bold; color: #166534; }
.explanation { background: #f0fdf4; border-left: 4px solid #15803d; padding: 0.3rem 0.6rem; }
.severity-serious { color: #991b1b; font-weight: bold; }
.severity-review { color: #92400e; font-weight: bold; }
.severity-info { color: #4b5563; }
nav ol { padding-left: 1.4rem; }
@media print {
  body { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  main { max-width: none; padding: 0; }
  section > h2 { break-before: page; }
  .item, figure, tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"#;

/// Text that may hold `code` spans, as HTML.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{}</code>", esc(part)));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

fn percent(share: Option<f64>) -> String {
    share.map_or("—".into(), |s| format!("{:.0} %", s * 100.0))
}

fn mode_words(mode: PredictionMode) -> &'static str {
    match mode {
        PredictionMode::Correctness => "correctness",
        PredictionMode::Participation => "participation",
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Serious => "serious",
        Severity::Review => "review",
        Severity::Info => "info",
    }
}

fn whose(fault: Fault) -> &'static str {
    match fault {
        Fault::Learner => "the learner's code",
        Fault::Grader => "the grader's environment",
    }
}

fn status_words(status: LabStatus) -> &'static str {
    status.words()
}

fn list(names: &[String]) -> String {
    esc(&names.join(", "))
}

/// The page.
pub fn render(report: &Report) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Class report · Boundary Labs</title><style>",
    );
    out += STYLE;
    out += "</style></head><body><main>\n";
    out += "<h1>Class report</h1>\n";
    let labs: Vec<String> = report.labs.iter().map(|l| l.number.clone()).collect();
    out += &format!(
        "<p class=\"meta\">{} learners · lab{} {} · made from a saved grade: every point is the one recorded, nothing is re-scored{}.</p>\n",
        report.learners.len(),
        if labs.len() == 1 { "" } else { "s" },
        esc(&labs.join(", ")),
        if report.anonymous {
            " · learners are shown by pseudonyms"
        } else {
            ""
        }
    );
    for warning in &report.warnings {
        out += &format!("<p class=\"warning\">{}</p>\n", inline(warning));
    }
    out += "<nav><h2 id=\"contents\">Contents</h2><ol><li><a href=\"#glance\">The class at a glance</a></li>";
    for lab in &report.lab_reports {
        out += &format!(
            "<li><a href=\"#lab-{n}\">Lab {n} · {}</a>: <a href=\"#lab-{n}-items\">predictions</a>, <a href=\"#lab-{n}-misconceptions\">misconceptions</a>, <a href=\"#lab-{n}-tests\">graded tests</a></li>",
            esc(&lab.title),
            n = esc(&lab.lab)
        );
    }
    out += "<li><a href=\"#integrity\">Integrity</a></li></ol></nav>\n";
    glance(&mut out, report);
    for lab in &report.lab_reports {
        lab_section(&mut out, lab);
    }
    integrity(&mut out, &report.integrity);
    out += "</main></body></html>\n";
    out
}

fn glance(out: &mut String, report: &Report) {
    let g = &report.glance;
    *out += "<section id=\"glance\"><h2>The class at a glance</h2>\n";
    *out += &format!(
        "<figure>{}<figcaption>Each learner's graded points (G) and prediction points (P) per lab, as recorded, shaded by the share of the lab's points; a letter where the lab has no graded run; the learner's integrity notes (S serious, R review, I info). Hover a cell for its numbers.</figcaption></figure>\n",
        svg::heat_map(&report.labs, &g.rows)
    );
    *out += "<h3 id=\"did-not-build\">Did not build</h3>\n";
    if g.did_not_build.is_empty() {
        *out += "<p>Every lab built.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:22%\"><col style=\"width:8%\"><col style=\"width:22%\"><col></colgroup><tr><th>learner</th><th>lab</th><th>whose doing</th><th>why</th></tr>\n";
        for u in &g.did_not_build {
            *out += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&u.learner),
                esc(&u.lab),
                whose(u.fault),
                inline(&u.reason)
            );
        }
        *out += "</table>\n";
    }
    *out += "<h3 id=\"refused\">Refused</h3>\n";
    if g.refused.is_empty() {
        *out += "<p>No lab was refused.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:22%\"><col style=\"width:8%\"><col></colgroup><tr><th>learner</th><th>lab</th><th>why</th></tr>\n";
        for u in &g.refused {
            *out += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}: {}</td></tr>\n",
                esc(&u.learner),
                esc(&u.lab),
                esc(status_words(u.status)),
                inline(&u.reason)
            );
        }
        *out += "</table>\n";
    }
    *out += "<h3 id=\"with-notes\">Integrity notes, by learner</h3>\n";
    if g.with_notes.is_empty() {
        *out += "<p>No learner has an integrity note.</p>\n";
    } else {
        *out += "<table><tr><th>learner</th><th>serious</th><th>review</th><th>info</th></tr>\n";
        for n in &g.with_notes {
            *out += &format!(
                "<tr><td>{}</td><td class=\"severity-serious\">{}</td><td class=\"severity-review\">{}</td><td class=\"severity-info\">{}</td></tr>\n",
                esc(&n.learner),
                n.counts.serious,
                n.counts.review,
                n.counts.info
            );
        }
        *out += "</table><p class=\"note\">Every note, with its file and excerpt, is under <a href=\"#integrity\">Integrity</a>.</p>\n";
    }
    *out += "</section>\n";
}

fn lab_section(out: &mut String, lab: &LabReport) {
    let n = esc(&lab.lab);
    *out += &format!(
        "<section id=\"lab-{n}\"><h2>Lab {n} · {}</h2>\n",
        esc(&lab.title)
    );
    let modes: Vec<&str> = lab.modes.iter().map(|m| mode_words(*m)).collect();
    *out += &format!(
        "<p>{} learners have a grade of this lab; {} sealed their predictions before the run, and {} of them changed an answer afterwards. Predictions were scored for {} (as each grade recorded).</p>\n",
        lab.learners,
        lab.sealed,
        lab.revised,
        esc(&modes.join(" and "))
    );

    if lab.from_poll > 0 {
        *out += &format!(
            "<p>The predictions of {} of them are their round-1 votes in the live poll, sealed at the server's time (<code>grade-class --predictions-from</code>).</p>\n",
            lab.from_poll
        );
    }
    *out += &format!("<h3 id=\"lab-{n}-items\">What the class predicted</h3>\n");
    let discuss: Vec<&ItemReport> = lab.items.iter().filter(|i| i.discuss).collect();
    if lab.items.is_empty() {
        *out += "<p>This workbook has no items for this lab.</p>\n";
    } else {
        let links: Vec<String> = (discuss.iter())
            .map(|i| format!("<a href=\"#lab-{n}-{}\">item {}</a>", esc(&i.id), i.number))
            .collect();
        *out += &format!(
            "<p>The items below are ordered from the most missed. Answers are counted as they were sealed, before the run; an item is marked <span class=\"tag\">discuss</span> when 30 to 70 % of those who answered it were right (the class is split: peer instruction's rule of thumb). {}</p>\n",
            if links.is_empty() {
                "No item split the class.".to_string()
            } else {
                format!("To discuss: {}.", links.join(", "))
            }
        );
    }
    for item in &lab.items {
        item_block(out, &n, item);
    }

    *out +=
        &format!("<h3 id=\"lab-{n}-misconceptions\">Misconceptions the graded runs matched</h3>\n");
    *out += &format!(
        "<p>{} graded runs; {} failed a test. A failure is matched to the catalogue of wrong solutions by the tests it fails and the invariant the first of them reports.</p>\n",
        lab.graded_runs, lab.failed_runs
    );
    if lab.misconceptions.is_empty() {
        *out += "<p>No graded run matched a misconception of the catalogue.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:42%\"><col style=\"width:28%\"><col></colgroup><tr><th>misconception (the catalogue's words)</th><th>learners</th><th>revisit</th></tr>\n";
        for m in &lab.misconceptions {
            let place = match &m.section.heading {
                Some(h) => format!("{} — {}", m.section.chapter, h),
                None => format!("{} ({})", m.section.chapter, m.section.target),
            };
            *out += &format!(
                "<tr><td>{}</td><td><strong>{}</strong>: {}</td><td><a href=\"{}\">{}</a></td></tr>\n",
                inline(&m.misconception),
                m.learners.len(),
                list(&m.learners),
                esc(&m.section.href),
                esc(&place)
            );
        }
        *out += "</table>\n";
    }
    if !lab.unmatched.is_empty() {
        *out += "<p><strong>Failures no catalogue entry explains</strong> — a new misconception, perhaps: the catalogue's next entry. Read these learners' code for the mistake they share.</p>\n";
        *out += "<table><colgroup><col style=\"width:62%\"><col></colgroup><tr><th>how the graded run failed</th><th>learners</th></tr>\n";
        for u in &lab.unmatched {
            let fails: Vec<String> = u
                .fails
                .iter()
                .map(|f| format!("<code>{}</code>", esc(f)))
                .collect();
            let invariant = match &u.invariant {
                Some(i) => format!("; the first reports “{}”", esc(i)),
                None => "; the first fails on a plain assertion".into(),
            };
            *out += &format!(
                "<tr><td>fails {}{}</td><td><strong>{}</strong>: {}</td></tr>\n",
                fails.join(", "),
                invariant,
                u.learners.len(),
                list(&u.learners)
            );
        }
        *out += "</table>\n";
    }

    if !lab.as_starter.is_empty() {
        *out += &format!(
            "<p>{} graded run(s) failed every test the untouched starter fails, and no other: no work of the build phase shows ({}).</p>\n",
            lab.as_starter.len(),
            list(&lab.as_starter)
        );
    }
    *out += &format!("<h3 id=\"lab-{n}-tests\">Graded tests</h3>\n");
    if lab.tests.is_empty() {
        *out += "<p>No graded run.</p>\n";
    } else {
        *out += &format!(
            "<figure>{}<figcaption>The share of the graded runs that passed each test, in the suite's order. The points are shared by the tests the starter fails; the others guard against regressions.</figcaption></figure>\n",
            svg::test_chart(lab)
        );
    }
    *out += "</section>\n";
}

fn item_block(out: &mut String, n: &str, item: &ItemReport) {
    let class = if item.discuss { "item discuss" } else { "item" };
    let tag = if item.discuss {
        " <span class=\"tag\">discuss</span>"
    } else {
        ""
    };
    *out += &format!(
        "<article class=\"{class}\" id=\"lab-{n}-{id}\"><h4>Item {} (<code>{id}</code>) · {} right{tag}</h4>\n",
        item.number,
        percent(item.share_right),
        id = esc(&item.id)
    );
    *out += &format!("<p class=\"question\">{}</p>\n", inline(&item.question));
    if let Some(claim) = &item.claim {
        *out += &format!(
            "<p class=\"note\">What the check shows: {} — the right answer is <strong>{}</strong>.</p>\n",
            inline(claim),
            esc(&item.right)
        );
    }
    if item.kind == ItemKind::Question {
        *out += "<ul class=\"options\">";
        for option in &item.options {
            let right = if option.right { " class=\"right\"" } else { "" };
            let mark = if option.right {
                " — the right answer"
            } else {
                ""
            };
            *out += &format!(
                "<li{right}>({}) {}{mark}</li>",
                esc(&option.answer),
                inline(option.text.as_deref().unwrap_or_default())
            );
        }
        *out += "</ul>\n";
    }
    *out += &format!("<figure>{}</figure>\n", svg::item_chart(item));
    let mut counts = format!(
        "{} of {} who answered before the run were right",
        item.right_count, item.answered
    );
    if item.unanswered > 0 {
        counts.push_str(&format!(
            "; {} had not answered it when they sealed",
            item.unanswered
        ));
    }
    *out += &format!("<p class=\"note\">{counts}.</p>\n");
    if let Some(shift) = &item.shift {
        *out += &format!(
            "<p class=\"shift\">After the seal, {} changed this answer ({}): {} from wrong to right, {} from right to wrong, {} from one wrong answer to another; {} right now.</p>\n",
            shift.learners.len(),
            list(&shift.learners),
            shift.wrong_to_right,
            shift.right_to_wrong,
            shift.wrong_to_wrong,
            percent(shift.share_right_now)
        );
    }
    *out += &format!(
        "<p class=\"explanation\"><strong>Why:</strong> {}</p></article>\n",
        inline(&item.explanation)
    );
}

fn integrity(out: &mut String, report: &IntegrityReport) {
    *out += "<section id=\"integrity\"><h2>Integrity</h2>\n";
    *out += "<p>What only review can judge, the most serious first. A note is a reason to read a file, not a verdict.</p>\n";
    if report.notes.is_empty() {
        *out += "<p>No integrity note.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:14%\"><col style=\"width:16%\"><col style=\"width:7%\"><col style=\"width:22%\"><col></colgroup><tr><th>severity</th><th>learner</th><th>lab</th><th>file</th><th>what, and the first line where it was seen</th></tr>\n";
        for note in &report.notes {
            let word = severity_word(note.severity);
            let lines: Vec<String> = note.lines.iter().take(5).map(|l| l.to_string()).collect();
            let file = match (&note.file, lines.is_empty()) {
                (Some(f), false) => format!("<code>{}</code> line {}", esc(f), lines.join(", ")),
                (Some(f), true) => format!("<code>{}</code>", esc(f)),
                (None, _) => "—".into(),
            };
            let excerpt = note
                .excerpt
                .as_deref()
                .map(|e| format!("<br><code>{}</code>", esc(e.trim())))
                .unwrap_or_default();
            *out += &format!(
                "<tr><td class=\"severity-{word}\">{word}</td><td>{}</td><td>{}</td><td>{file}</td><td>{}{excerpt}</td></tr>\n",
                esc(&note.learner),
                esc(&note.lab),
                inline(&note.text)
            );
        }
        *out += "</table>\n";
    }
    *out += "<h3 id=\"similar-code\">Similar code</h3>\n";
    if report.code_pairs.is_empty() {
        *out += "<p>No pair of learner files was named as similar.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:7%\"><col style=\"width:22%\"><col style=\"width:27%\"><col style=\"width:22%\"><col></colgroup><tr><th>lab</th><th>learner</th><th>shares with</th><th>file</th><th>share (tokens)</th></tr>\n";
        for p in &report.code_pairs {
            *out += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{:.0} % ({})</td></tr>\n",
                esc(&p.lab),
                esc(&p.left),
                inline(&p.right),
                esc(&p.file),
                p.share * 100.0,
                p.matched_tokens
            );
        }
        *out += "</table>\n";
    }
    *out += "<h3 id=\"copied-predictions\">Copied predictions</h3>\n";
    if report.prediction_pairs.is_empty() {
        *out += "<p>No pair of learners sealed the same rare wrong answers.</p>\n";
    } else {
        *out += "<table><colgroup><col style=\"width:7%\"><col style=\"width:33%\"><col style=\"width:12%\"><col></colgroup><tr><th>lab</th><th>learners</th><th>score</th><th>the same wrong answers sealed</th></tr>\n";
        for p in &report.prediction_pairs {
            let shared: Vec<String> = (p.shared_wrong.iter())
                .map(|(item, answer)| format!("{item}: {answer}"))
                .collect();
            *out += &format!(
                "<tr><td>{}</td><td>{} and {}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&p.lab),
                esc(&p.learners[0]),
                esc(&p.learners[1]),
                p.score,
                esc(&shared.join(", "))
            );
        }
        *out += "</table>\n";
    }
    *out += "</section>\n";
}
