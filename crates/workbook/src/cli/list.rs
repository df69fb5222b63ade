//! `cargo labs list`.

use super::{Command, Section};
use crate::error::Result;
use crate::workbook::Workbook;
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "list",
    section: Section::Learner,
    usage: "cargo labs list",
    about: "the labs, their ids and chapters",
    run: |wb, args| {
        args.none()?;
        list(wb)
    },
};

/// `cargo labs list`.
pub fn list(wb: &Workbook) -> Result<()> {
    print!("{}", listing(wb));
    Ok(())
}

/// The labs in aligned columns: number, id, title and chapter, each as wide as its
/// longest entry; then the labs that cannot be used.
pub fn listing(wb: &Workbook) -> String {
    let labs = &wb.labs.labs;
    let widest = |f: fn(&crate::meta::Lab) -> &str| {
        labs.iter().map(|l| f(l).chars().count()).max().unwrap_or(0)
    };
    let id = widest(|l| &l.meta.id);
    let title = widest(|l| &l.meta.title);
    let mut out = String::new();
    for lab in labs {
        out.push_str(&format!(
            "{}  {:<id$}  {:<title$}  {}\n",
            lab.meta.number.bold(),
            lab.meta.id,
            lab.meta.title,
            lab.meta.chapter
        ));
    }
    for broken in &wb.labs.broken {
        out.push_str(&format!(
            "{}  cannot be used: {}\n",
            broken.number().bold(),
            broken.problem
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_columns_line_up() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let wb = crate::workbook::Workbook::load(root).unwrap();
        let shown = super::listing(&wb);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), wb.labs.labs.len(), "{shown}");
        let column = |field: fn(&crate::meta::Lab) -> &str| -> Vec<usize> {
            (lines.iter().zip(&wb.labs.labs))
                .map(|(line, lab)| line.find(field(lab)).unwrap())
                .collect()
        };
        for starts in [
            column(|l| &l.meta.id),
            column(|l| &l.meta.title),
            column(|l| &l.meta.chapter),
        ] {
            assert!(
                starts.windows(2).all(|w| w[0] == w[1]),
                "{starts:?}\n{shown}"
            );
        }
    }
}
