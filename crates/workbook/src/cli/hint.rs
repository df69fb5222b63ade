//! `cargo labs hint N`: one hint at a time.

use super::{Command, Section};
use crate::error::Result;
use crate::meta::Lab;
use crate::workbook::Workbook;
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "hint",
    section: Section::Learner,
    usage: "cargo labs hint N",
    about: "one more hint",
    run: |wb, args| hint(wb, wb.lab(&args.one()?)?),
};

/// `cargo labs hint N`: the next hint, one at a time, below the earlier ones; the new
/// one is marked as new.
pub fn hint(wb: &Workbook, lab: &Lab) -> Result<()> {
    let progress = wb.progress()?;
    let shown = progress.hints_shown(&lab.meta.id);
    print!("{}", hints_text(&lab.key.hints, shown, &lab.meta.number));
    if shown < lab.key.hints.len() {
        progress.set_hints_shown(&lab.meta.id, shown + 1)?;
    }
    Ok(())
}

/// What `hint` shows when `shown` hints were shown before: those again, dimmed, then the
/// next one marked new; or, once every hint was shown, all of them and no new one.
pub fn hints_text(hints: &[String], shown: usize, n: &str) -> String {
    let total = hints.len();
    if total == 0 {
        return format!("lab {n} has no hints\n");
    }
    let new = (shown < total).then_some(shown);
    let mut out = String::new();
    for (i, text) in hints.iter().enumerate().take(shown.min(total - 1) + 1) {
        let label = format!("hint {}/{total}", i + 1);
        if Some(i) == new {
            out.push_str(&format!("{} {text}\n", format!("{label} (new):").bold()));
        } else {
            out.push_str(&format!(
                "{} {}\n",
                format!("{label}:").dimmed(),
                text.dimmed()
            ));
        }
    }
    match new {
        Some(i) if i + 1 == total => out.push_str(
            "(that was the last hint; the chapter and the failing timeline say the rest)\n",
        ),
        Some(_) => {}
        None => out.push_str(&format!(
            "(no new hint: all {total} are above; the chapter and the failing timeline say the rest)\n"
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::hints_text;

    #[test]
    fn the_new_hint_is_marked_and_the_earlier_ones_are_not() {
        let hints = ["first".to_string(), "second".into(), "third".into()];
        assert_eq!(hints_text(&hints, 0, "01"), "hint 1/3 (new): first\n");
        assert_eq!(
            hints_text(&hints, 1, "01"),
            "hint 1/3: first\nhint 2/3 (new): second\n"
        );
        assert!(hints_text(&hints, 2, "01").ends_with(
            "hint 3/3 (new): third\n(that was the last hint; the chapter and the failing timeline say the rest)\n"
        ));
        let after = hints_text(&hints, 3, "01");
        assert!(!after.contains("(new)"), "{after}");
        assert!(
            after.contains("hint 3/3: third\n(no new hint: all 3 are above"),
            "{after}"
        );
        assert_eq!(hints_text(&[], 0, "01"), "lab 01 has no hints\n");
    }
}
