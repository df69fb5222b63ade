//! `cargo labs class …`: what a teacher takes away from a saved class grade — the report,
//! the gradebook — and the answer key on paper.

use super::{Command, Section};
use crate::class::gradebook::{self, Gradebook, Layout};
use crate::class::report;
use crate::error::{Error, Result};
use crate::workbook::Workbook;
use std::path::Path;

pub const COMMAND: Command = Command {
    name: "class",
    section: Section::Teacher,
    usage: "cargo labs class report|gradebook|key …",
    about: "a class's report, gradebook or answer key, from the JSON `grade-class --json` saved (nothing\n\
            is regraded or re-scored).\n\
            \n\
            \x20 cargo labs class report GRADE.json --out FILE.html [--anonymous] [--json FILE] [--book URL]\n\
            \x20 cargo labs class gradebook GRADE.json --out FILE.csv [--roster ROSTER.csv]\n\
            \x20                            [--format canvas|moodle|plain]\n\
            \x20 cargo labs class key N\n\
            \n\
            `report` writes one self-contained page: the class at a glance, per lab and item how the class\n\
            answered before the run (the items to discuss marked), the catalogue's misconceptions the\n\
            graded runs matched, the tests' pass rates, every integrity note. --anonymous shows learners by\n\
            stable pseudonyms, --json also writes the report's numbers, --book sets where its links into\n\
            the book point (default: this copy's book/build). `gradebook` writes a row per learner, a\n\
            column per lab and the total, for Canvas, Moodle or a spreadsheet (plain, the default), joined\n\
            to a roster (CSV: folder,id,name[,email][,section]). `key` prints a lab's items with their\n\
            answers and explanations, for your own preparation. Report and key need the teacher's edition.",
    run: |wb, mut args| {
        let anonymous = args.flag("--anonymous");
        let out = args.value("--out")?;
        let json = args.value("--json")?;
        let book = args.value("--book")?;
        let roster = args.value("--roster")?;
        let format = args.value("--format")?;
        let usage = args.usage();
        let positional = args.positional()?;
        let refuse = |flag: &str, given: bool, sub: &str| {
            if given {
                Err(Error::input(format!(
                    "`cargo labs class {sub}` does not take `{flag}`"
                )))
            } else {
                Ok(())
            }
        };
        match positional.as_slice() {
            [sub, grade] if sub == "report" => {
                refuse("--roster", roster.is_some(), sub)?;
                refuse("--format", format.is_some(), sub)?;
                let Some(out) = out else {
                    return Err(Error::input("`class report` needs `--out FILE.html`"));
                };
                let options = report::Options {
                    anonymous,
                    book_base: book.unwrap_or_else(|| report::default_book_base(&wb.root)),
                };
                write_report(
                    wb,
                    Path::new(grade),
                    &options,
                    Path::new(&out),
                    json.as_deref().map(Path::new),
                )
            }
            [sub, grade] if sub == "gradebook" => {
                refuse("--anonymous", anonymous, sub)?;
                refuse("--json", json.is_some(), sub)?;
                refuse("--book", book.is_some(), sub)?;
                let Some(out) = out else {
                    return Err(Error::input("`class gradebook` needs `--out FILE.csv`"));
                };
                let layout: Layout = format.as_deref().unwrap_or("plain").parse()?;
                write_gradebook(
                    Path::new(grade),
                    roster.as_deref().map(Path::new),
                    layout,
                    Path::new(&out),
                )
            }
            [sub, lab] if sub == "key" => {
                for (flag, given) in [
                    ("--anonymous", anonymous),
                    ("--out", out.is_some()),
                    ("--json", json.is_some()),
                    ("--book", book.is_some()),
                    ("--roster", roster.is_some()),
                    ("--format", format.is_some()),
                ] {
                    refuse(flag, given, sub)?;
                }
                report::teachers_only(wb, "`cargo labs class key`")?;
                let lab = wb.lab(lab)?;
                print!("{}", crate::class::key::render(lab, &wb.settings));
                Ok(())
            }
            _ => Err(usage),
        }
    },
};

/// `class report`: the page (and its numbers) from a saved class grade.
pub fn write_report(
    wb: &Workbook,
    grade: &Path,
    options: &report::Options,
    out: &Path,
    json: Option<&Path>,
) -> Result<()> {
    report::teachers_only(wb, "`cargo labs class report`")?;
    let class = report::read_class(grade)?;
    let made = report::write(wb, &class, options, out, json)?;
    let discuss: usize = (made.lab_reports.iter())
        .map(|l| l.items.iter().filter(|i| i.discuss).count())
        .sum();
    println!(
        "wrote {}: {} learners, {} lab(s), {discuss} item(s) to discuss, {} integrity note(s)",
        out.display(),
        made.learners.len(),
        made.lab_reports.len(),
        made.integrity.notes.len()
    );
    for warning in &made.warnings {
        println!("note: {warning}");
    }
    Ok(())
}

/// `class gradebook`: the CSV from a saved class grade.
fn write_gradebook(grade: &Path, roster: Option<&Path>, layout: Layout, out: &Path) -> Result<()> {
    let class = report::read_class(grade)?;
    let roster = roster.map(gradebook::read_roster).transpose()?;
    let book = Gradebook::new(&class, roster.as_ref());
    std::fs::write(out, book.csv(layout)).map_err(|e| Error::writing(out, e))?;
    println!(
        "wrote {}: {} row(s), {} lab(s), out of {} points",
        out.display(),
        book.rows.len(),
        book.columns.len(),
        book.max_total()
    );
    if !book.not_in_roster.is_empty() {
        println!(
            "note: the roster does not name {} (their rows have no student id): {}",
            book.not_in_roster.len(),
            book.not_in_roster.join(", ")
        );
    }
    if !book.without_submission.is_empty() {
        println!(
            "note: {} of the roster have no submission (their rows are blank): {}",
            book.without_submission.len(),
            book.without_submission.join(", ")
        );
    }
    Ok(())
}
