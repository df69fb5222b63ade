//! The command line: one table of commands, a learner's section and a teacher's, each
//! command an entry (name, section, usage, what it does, its handler) in a file of its
//! own. The student edition's help shows the learner's section only.

mod args;
mod bless;
mod book;
mod check;
mod class;
mod export;
mod grade;
mod grade_class;
mod hint;
mod list;
mod new;
mod poll;
mod predict;
mod read;
mod replay;
mod reset;
mod run;
mod status;
mod watch;

pub use args::Args;
pub use hint::hint;
pub use run::{compare, observe, run};

use crate::error::{Error, Result};
use crate::workbook::Workbook;

/// Who a command is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Learner,
    Teacher,
}

/// One command of `cargo labs`.
pub struct Command {
    pub name: &'static str,
    pub section: Section,
    pub usage: &'static str,
    /// What `cargo labs COMMAND --help` says; the overview shows its first sentence.
    pub about: &'static str,
    pub run: fn(&Workbook, Args) -> Result<()>,
}

/// Every command, in the order the help lists them.
pub const COMMANDS: &[Command] = &[
    status::COMMAND,
    list::COMMAND,
    read::COMMAND,
    predict::COMMAND,
    run::COMMAND,
    check::COMMAND,
    hint::COMMAND,
    watch::COMMAND,
    reset::COMMAND,
    replay::COMMAND,
    grade::COMMAND,
    book::COMMAND,
    grade_class::COMMAND,
    class::COMMAND,
    export::COMMAND,
    poll::COMMAND,
    bless::COMMAND,
    new::COMMAND,
];

fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The names of the learner's commands (`status` is `cargo labs` alone).
pub fn learner_commands() -> Vec<&'static str> {
    (COMMANDS.iter())
        .filter(|c| c.section == Section::Learner)
        .map(|c| c.name)
        .collect()
}

/// True in the teacher's edition (it has the reference solutions).
pub fn teachers_edition(root: &std::path::Path) -> bool {
    root.join("solutions").is_dir()
}

/// The overview: each command's usage and first sentence, the learner's section first.
pub fn help(teacher: bool) -> String {
    let mut out = String::new();
    for (section, title) in [
        (Section::Learner, "Studying:"),
        (Section::Teacher, "Teaching (this edition only):"),
    ] {
        if section == Section::Teacher && !teacher {
            continue;
        }
        out.push_str(&format!("{title}\n"));
        for command in COMMANDS.iter().filter(|c| c.section == section) {
            let about = command.about.replace('\n', " ");
            let first = about
                .split(". ")
                .next()
                .unwrap_or(&about)
                .trim_end_matches('.');
            if command.usage.chars().count() <= 44 {
                out.push_str(&format!("  {:<44} {first}\n", command.usage));
            } else {
                out.push_str(&format!("  {}\n  {:<44} {first}\n", command.usage, ""));
            }
        }
        out.push('\n');
    }
    out.push_str(
        "N is a lab number (01 or 1), its id (outbox) or its folder (01-outbox).\n\
         `cargo labs COMMAND --help` says more about one command.",
    );
    out
}

fn command_help(name: &str) -> Option<String> {
    find(name).map(|c| format!("usage: {}\n\n{}", c.usage, c.about))
}

/// What `--help` says of `name` in this edition: a teacher's command is only named as
/// one in the student edition (its help speaks of what that edition does not have).
fn help_in_edition(name: &str, teacher: bool) -> Option<String> {
    match find(name)? {
        c if c.section == Section::Teacher && !teacher => Some(teachers_only(name)),
        _ => command_help(name),
    }
}

/// The teacher's commands that run in the student edition too. The others could rewrite
/// what the edition depends on (`bless` would publish the learner's file as the starter)
/// or show answers (`class key`). `poll` says itself what the edition lacks; GitHub
/// Classroom's workflow grades a submission from a pinned student edition with
/// `grade-class --classroom` (one result, no report).
fn runs_in_student_edition(name: &str, args: &[String]) -> bool {
    match name {
        "poll" => true,
        "grade-class" => args.iter().any(|a| a == "--classroom"),
        _ => false,
    }
}

fn teachers_only(name: &str) -> String {
    format!(
        "`cargo labs {name}` is a teacher's command: it works in the teacher's edition only, not in this student edition. `cargo labs --help` lists yours."
    )
}

/// The usage error of a command.
pub fn usage_error(name: &str) -> Error {
    Error::input(format!(
        "{}\n(`cargo labs {name} --help`)",
        command_help(name).unwrap_or_default()
    ))
}

/// Runs `cargo labs ARGS…`.
pub fn dispatch(args: &[String]) -> Result<()> {
    let (name, rest) = match args.split_first() {
        None => ("status", &[][..]),
        Some((name, rest)) => (name.as_str(), rest),
    };
    if name == "mdbook-preprocessor" {
        // Run by mdBook itself (book.toml), from the book's root: no workbook needed.
        let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
        return crate::bookpp::run(&rest);
    }
    let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read the folder", e))?;
    let root = crate::find_root(&cwd);
    let teacher = root.as_deref().is_ok_and(teachers_edition);
    let asks_help = |a: &String| a == "--help" || a == "-h";
    if matches!(name, "help" | "--help" | "-h") {
        match rest.first().and_then(|c| help_in_edition(c, teacher)) {
            Some(text) => println!("{text}"),
            None => println!("{}", help(teacher)),
        }
        return Ok(());
    }
    let Some(command) = find(name) else {
        return Err(Error::input(format!(
            "`cargo labs {}` is not a command.\n\n{}",
            args.join(" "),
            help(teacher)
        )));
    };
    if rest.iter().any(asks_help) {
        println!("{}", help_in_edition(name, teacher).unwrap_or_default());
        return Ok(());
    }
    if command.section == Section::Teacher && !teacher && !runs_in_student_edition(name, rest) {
        return Err(Error::input(teachers_only(name)));
    }
    let wb = Workbook::load(root?)?;
    (command.run)(&wb, Args::new(command.name, rest))
}
