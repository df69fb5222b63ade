//! `cargo labs predict N [--set qNN=ANSWER]…`: records predictions, at a prompt or from
//! arguments. Never loses what the file held: a changed file is backed up first, and each
//! answer is saved as soon as it is given.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::meta::{Lab, item_id};
use crate::predictions::{self, Answer};
use crate::workbook::{Workbook, read_predictions};
use crate::{backup, write_atomically};
use colored::Colorize;
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};

pub const COMMAND: Command = Command {
    name: "predict",
    section: Section::Learner,
    usage: "cargo labs predict N [--set ID=ANSWER …] [--seal] [--send URL --code CODE [--name NAME] [--round 1|2]]",
    about: "record your predictions: at a prompt, or with --set from a script (`yes`, `no`, a letter, or `?`).\n--seal seals them as they are and shows nothing of the run (for a class that predicts,\nseals, discusses, then runs). --send sends your current answers to the teacher's live poll\n(round 1 alone, round 2 after the discussion); your files stay as they are",
    run: |wb, mut args| {
        let sets = args.values("--set")?;
        let seal = args.flag("--seal");
        let send = sent_to(&mut args)?;
        let usage = args.usage();
        let lab = wb.lab(&args.one()?)?;
        if let Some((url, code, name, round)) = &send {
            let options = crate::poll::SendOptions {
                url,
                code,
                name: name.as_deref(),
                round: round.parse().map_err(Error::input)?,
            };
            return match (seal, sets.is_empty()) {
                (false, true) => crate::poll::send(wb, lab, &options),
                _ => Err(usage),
            };
        }
        match (seal, sets.is_empty()) {
            (true, true) => seal_only(wb, lab),
            (false, _) => predict(wb, lab, &sets),
            (true, false) => Err(usage),
        }
    },
};

/// `--send URL --code CODE [--name NAME] [--round 1|2]`, when given: (url, code, name,
/// round).
type Sent = (String, String, Option<String>, String);

fn sent_to(args: &mut super::Args) -> Result<Option<Sent>> {
    let Some(url) = args.value("--send")? else {
        return Ok(None);
    };
    let code = args.value("--code")?.ok_or_else(|| {
        Error::input("`--send` needs `--code CODE`: the class code your teacher shows")
    })?;
    let name = args.value("--name")?;
    let round = args.value("--round")?.unwrap_or_else(|| "1".into());
    Ok(Some((url, code, name, round)))
}

pub fn predict(wb: &Workbook, lab: &Lab, sets: &[String]) -> Result<()> {
    let path = lab.predictions_path();
    let existing = read_predictions(lab)?;
    let mut answers: BTreeMap<String, Answer> = existing
        .as_ref()
        .map(|p| p.answers.clone())
        .unwrap_or_default();
    let seal = existing.as_ref().and_then(|p| p.seal.clone());
    if seal.is_some() {
        eprintln!(
            "{} these predictions are sealed: an answer you change now counts as revised.",
            "note:".yellow().bold()
        );
    }
    // Writes the file; the first write keeps a backup of what the learner had written.
    let mut first_write = true;
    let mut save = |answers: &BTreeMap<String, Answer>| -> Result<()> {
        let text = predictions::render(lab, answers, seal.as_ref());
        if std::mem::take(&mut first_write) && path.exists() {
            let old = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
            // An untouched template (written by `run`) holds nothing of the learner's.
            let untouched = old == predictions::render(lab, &BTreeMap::new(), None);
            // A file that rendering its own answers gives back holds nothing a rewrite
            // loses (no comment of the learner's): no backup is needed.
            let regenerated = predictions::parse(lab, &old)
                .is_ok_and(|p| predictions::render(lab, &p.answers, p.seal.as_ref()) == old);
            if old != text && !untouched && !regenerated {
                let saved = backup(&path).map_err(|e| Error::writing(&path, e))?;
                println!("your previous file is kept as {}", saved.display());
            }
        }
        write_atomically(&path, &text).map_err(|e| Error::writing(&path, e))
    };
    if sets.is_empty() {
        ask(lab, &mut answers, &mut save)?;
    } else {
        for set in sets {
            let (id, value) = set.split_once('=').ok_or_else(|| {
                Error::input(format!(
                    "`--set {set}`: write `--set id=answer` (`--set q01=yes`)"
                ))
            })?;
            // `--set 38=a` means item 38, as the chapter's list numbers it.
            let id = id.trim();
            let id = if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
                format!("q{id}")
            } else {
                id.to_string()
            };
            let line = format!("{id} = {}", value.trim());
            let parsed = predictions::parse_from(lab, &line, &format!("`--set {set}`"))?;
            if parsed.answers.is_empty()
                && let Some(index) = lab.item_index(&id)
            {
                answers.remove(&item_id(index));
            }
            answers.extend(parsed.answers);
        }
    }
    save(&answers)?;
    let total = lab.prediction_count();
    println!(
        "{} {}/{total} predictions in {}",
        "saved".green().bold(),
        answers.len(),
        path.display()
    );
    let open = predictions::unanswered(lab, &answers);
    let n = &lab.meta.number;
    let ran = wb.progress()?.last(&lab.meta.id, "run").is_some();
    if seal.is_some() && ran {
        println!("Next: the build phase: `cargo labs check {n}` (stuck? `cargo labs hint {n}`)");
    } else if seal.is_some() {
        println!("Next: run lab {n} and compare: `cargo labs run {n}`");
    } else if open.is_empty() {
        println!("Next: `cargo labs run {n}`");
    } else {
        println!(
            "{} {} unanswered ({}): the first run seals the file as it is, and an answer given after the seal earns nothing.",
            "note:".yellow().bold(),
            open.len(),
            shown_ids(&open)
        );
        println!(
            "Next: answer them (`cargo labs predict {n}`), or seal them as they are: `cargo labs run {n} --anyway` (or `cargo labs predict {n} --seal`, to discuss them before the run)"
        );
    }
    Ok(())
}

/// Up to eight ids, then how many more.
pub fn shown_ids(ids: &[String]) -> String {
    let mut shown = ids.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > 8 {
        shown.push_str(&format!(" and {} more", ids.len() - 8));
    }
    shown
}

/// Asks every item in turn. The prompts are printed whether or not stdin is a terminal,
/// so piped answers can be followed; the end of input stops asking and keeps what was
/// given.
fn ask(
    lab: &Lab,
    answers: &mut BTreeMap<String, Answer>,
    save: &mut dyn FnMut(&BTreeMap<String, Answer>) -> Result<()>,
) -> Result<()> {
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let mut lines = stdin.lock().lines();
    let mut read = |prompt: &str| -> Option<String> {
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        let line = lines.next().and_then(|l| l.ok());
        if echo {
            // Piped input is not echoed by a terminal: show what was read.
            println!("{}", line.as_deref().unwrap_or("(end of input)"));
        }
        line
    };
    println!(
        "{} Enter keeps the current answer; `?` clears it.\n",
        format!("Lab {}: predict before you run.", lab.label()).bold()
    );
    let total = lab.prediction_count();
    let width = crate::text::terminal_width();
    for (i, check) in lab.meta.checks.iter().enumerate() {
        let id = item_id(i);
        let current = answers.get(&id).map(Answer::show).unwrap_or("?".into());
        loop {
            let prompt = format!(
                "{}  yes or no? [{current}] ",
                item_text(&id, total, &check.ask, &[], width)
            );
            let Some(input) = read(&prompt) else {
                return Ok(());
            };
            let input = input.trim().to_ascii_lowercase();
            match input.as_str() {
                "" => break,
                "?" => {
                    answers.remove(&id);
                    break;
                }
                "y" | "yes" | "h" | "holds" => {
                    answers.insert(id.clone(), Answer::Claim(true));
                    break;
                }
                "n" | "no" | "f" | "fails" => {
                    answers.insert(id.clone(), Answer::Claim(false));
                    break;
                }
                _ => println!("  answer `yes` (y) or `no` (n)"),
            }
        }
        save(answers)?;
    }
    let asked = lab.meta.checks.len();
    for (i, q) in lab.meta.questions.iter().enumerate() {
        let id = item_id(asked + i);
        let current = answers.get(&id).map(Answer::show).unwrap_or("?".into());
        let options: Vec<(&String, &String)> = q.options.iter().collect();
        let mut prompt = format!("\n{}", item_text(&id, total, &q.prompt, &options, width));
        prompt.push_str(&format!("  your answer [{current}] "));
        loop {
            let Some(input) = read(&prompt) else {
                return Ok(());
            };
            let input = input.trim().to_ascii_lowercase();
            if input.is_empty() {
                break;
            }
            if input == "?" {
                answers.remove(&id);
                break;
            }
            if q.options.contains_key(&input) {
                answers.insert(id.clone(), Answer::Option(input));
                break;
            }
            let letters: Vec<&str> = q.options.keys().map(String::as_str).collect();
            println!("  answer one of {}", letters.join(", "));
        }
        save(answers)?;
    }
    Ok(())
}

/// One item as the prompt shows it, whole: `[q04/20] ` and its text wrapped to `width`
/// under it, then each option (`a) …`) wrapped the same way.
pub fn item_text(
    id: &str,
    total: usize,
    text: &str,
    options: &[(&String, &String)],
    width: usize,
) -> String {
    let head = format!("[{id}/{total}] ");
    let body = crate::text::indented(text, head.len(), width);
    let mut out = format!("{head}{}", body.trim_start());
    for (letter, option) in options {
        let line = crate::text::indented(&format!("{letter}) {option}"), 5, width);
        out.push_str(&format!("  {}", line.trim_start()));
    }
    out
}

/// `cargo labs predict N --seal`: seals the predictions as they are and shows nothing
/// of the run, so a class can predict, seal, discuss and only then run.
pub fn seal_only(wb: &Workbook, lab: &Lab) -> Result<()> {
    let path = lab.predictions_path();
    if !path.exists() {
        return Err(Error::input(format!(
            "there is nothing to seal for lab {n} yet: `cargo labs predict {n}` first",
            n = lab.meta.number
        )));
    }
    let progress = wb.progress()?;
    // `seal` says when it seals; a seal made earlier is named here instead.
    let sealed_before = super::read::sealed(wb, lab)?;
    let sealed = super::run::seal(lab, &progress)?;
    match &sealed.seal {
        Some(seal) if sealed_before => println!(
            "{} were already sealed, at {}: {}/{} answered. An answer changed since then counts as revised.",
            "predictions".cyan().bold(),
            seal.at,
            sealed.answered(),
            lab.prediction_count()
        ),
        _ => println!(
            "Nothing of the run was shown; an answer changed from now on counts as revised."
        ),
    }
    println!("Next: `cargo labs run {}`", lab.meta.number);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::item_text;

    /// Every item of every lab shows whole at the prompt, in lines that fit the width.
    #[test]
    fn the_prompt_shows_every_item_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for lab in crate::meta::load_labs(&root).unwrap().labs {
            let total = lab.prediction_count();
            let items = (lab.meta.checks.iter().map(|c| (&c.ask, Vec::new()))).chain(
                lab.meta
                    .questions
                    .iter()
                    .map(|q| (&q.prompt, q.options.iter().collect())),
            );
            for (text, options) in items {
                let shown = item_text("q01", total, text, &options, 60);
                let flat: Vec<&str> = shown.split_whitespace().collect();
                let wanted: Vec<&str> = text.split_whitespace().collect();
                assert_eq!(&flat[1..=wanted.len()], &wanted[..], "{shown}");
                for (_, option) in &options {
                    let words = option.split_whitespace().collect::<Vec<_>>().join(" ");
                    assert!(flat.join(" ").contains(&words), "{shown}");
                }
                for line in shown.lines() {
                    let long_word = line.split_whitespace().any(|w| w.chars().count() > 40);
                    assert!(line.chars().count() <= 60 || long_word, "{line}");
                }
            }
        }
        assert_eq!(
            item_text(
                "q02",
                9,
                "one two three",
                &[(&"a".to_string(), &"yes".to_string())],
                60
            ),
            "[q02/9] one two three\n  a) yes\n"
        );
    }
}
