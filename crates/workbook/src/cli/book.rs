//! `cargo labs book [--open | --serve]`.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::workbook::Workbook;
use std::path::PathBuf;
use std::process::Command as Process;

pub const COMMAND: Command = Command {
    name: "book",
    section: Section::Learner,
    usage: "cargo labs book [--open | --serve]",
    about: "build the book with mdBook (and open or serve it)",
    run: |wb, mut args| {
        let open = args.flag("--open");
        let serve = args.flag("--serve");
        let usage = args.usage();
        args.none()?;
        if open && serve {
            return Err(usage);
        }
        let dir = book(wb, open)?;
        if serve {
            crate::serve::run(&dir)
        } else {
            Ok(())
        }
    },
};

/// `cargo labs book [--open | --serve]`: builds the book with the mdBook CLI into
/// book/build (offline, search included); `--open` opens it in the browser. `--serve`
/// only builds here: the CLI is installed without mdBook's server, so the binary then
/// serves book/build itself (src/serve.rs).
pub fn book(wb: &Workbook, open: bool) -> Result<PathBuf> {
    open_sealed_pages(wb)?;
    let mut args = vec!["build"];
    if open {
        args.push("--open");
    }
    let status = Process::new("mdbook")
        .args(&args)
        .current_dir(&wb.root)
        .status();
    match status {
        Ok(s) if s.success() => {
            let index = wb.root.join("book/build/index.html");
            println!("the book is in {}", index.display());
            Ok(wb.root.join("book/build"))
        }
        Ok(s) => Err(Error::lab(format!(
            "mdbook {} failed ({s})",
            args.join(" ")
        ))),
        Err(_) => Err(Error::input(
            "the mdBook CLI is not installed. Install it once (about a minute and a half, offline afterwards):\n  cargo install mdbook --locked --version ^0.5 --no-default-features --features search",
        )),
    }
}

/// In the student edition, each chapter's page after the run is a stand-in until the
/// lab's predictions are sealed: the page of every sealed lab is written in its place, so
/// the book shows it; the others stay stand-ins, and no link, key or search of the book
/// reaches what they would say.
fn open_sealed_pages(wb: &Workbook) -> Result<()> {
    for lab in &wb.labs.labs {
        if super::read::sealed(wb, lab)? {
            crate::pages::open_after_the_run(&wb.root, lab).map_err(Error::lab)?;
        }
    }
    Ok(())
}
