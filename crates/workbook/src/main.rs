//! `cargo labs` — see the README, or run `cargo labs help`.

use colored::Colorize;
use std::process::ExitCode;
use workbook::commands::{self, Workbook};
use workbook::error::{Error, Result};
use workbook::{class, export, find_root, process, scaffold, serve, watch};

/// Every command: its usage line and what `cargo labs COMMAND --help` says of it.
const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "status",
        "cargo labs",
        "where you are: progress per lab and the next step",
    ),
    (
        "list",
        "cargo labs list",
        "the labs, their ids and chapters",
    ),
    (
        "predict",
        "cargo labs predict N [--set ID=ANSWER …] [--seal]",
        "record your predictions: at a prompt, or with --set from a script (`yes`, `no`, a letter, or `?`).\n--seal seals them as they are and shows nothing of the run (for a class that predicts,\nseals, discusses, then runs).\n`cargo labs predict N --send URL --code CODE [--name NAME] [--round 1|2]` sends your current\nanswers to the teacher's live poll (round 1 alone, round 2 after the discussion); your files stay as they are",
    ),
    (
        "run",
        "cargo labs run N [--anyway] [--explain]",
        "seal your predictions, then run the lab and compare: predicted against observed.\n--anyway seals them as they are, even unanswered; --explain explains every answer",
    ),
    (
        "check",
        "cargo labs check N",
        "the lab's graded tests (your build phase)",
    ),
    ("hint", "cargo labs hint N", "one more hint"),
    (
        "watch",
        "cargo labs watch [N]",
        "re-check the lab on every save (keys: h hint, r run, c check, n next, q quit)",
    ),
    (
        "reset",
        "cargo labs reset N",
        "restore the starter files (yours are kept as .backup-N files)",
    ),
    (
        "replay",
        "cargo labs replay N SCENARIO TOKEN",
        "replay one schedule against your code and print its timeline",
    ),
    (
        "grade",
        "cargo labs grade [--json | --classroom [--base64]] [N …]",
        "your own grade of every lab (or some): tests, predictions, points",
    ),
    (
        "grade-class",
        "cargo labs grade-class DIR… [--json FILE] [--csv FILE] [--labs N,N] [--work DIR] [--classroom [--base64]] [--no-sandbox]",
        "grade a folder of submissions with this copy's settings, suites and keys: only each lab's\nlearner files and predictions.txt are taken from a submission (see the teacher's chapter).\n--work sets where the scratch copy and its build live (default: target/grade-class\nin this copy). --classroom prints one submission's GitHub Classroom result (--base64\nencodes it). --no-sandbox runs builds and tests outside bubblewrap even where it works; the\nresult then says it was not sandboxed.",
    ),
    (
        "export",
        "cargo labs export DIR [--grader OWNER/REPO@COMMIT]",
        "write the student edition into DIR: the starters, the book, the kit and the graded suites,\nand nothing that answers a prediction. --grader pins the copy that grades its Classroom workflow",
    ),
    (
        "figures",
        "cargo labs figures [--check]",
        "regenerate (or check) the book's figures",
    ),
    (
        "book",
        "cargo labs book [--open | --serve]",
        "build the book with mdBook (and open or serve it)",
    ),
    (
        "poll",
        "cargo labs poll serve [--labs N,…] [--listen ADDR:PORT] [--db FILE] [--roster FILE.csv]",
        "the live poll for peer instruction (teacher's edition): prints the class code, the learners' URL\nand the teacher's page. Listens on 127.0.0.1:8470 unless --listen names another address; votes\nare kept in --db (default target/poll/poll.db), so a restart keeps the code, the tokens and\nevery vote. --roster binds names to a class list (CSV: id,name). --rate N: requests per second\none address may send (default 20). --remote-teacher lets the teacher's page answer other machines",
    ),
    (
        "new",
        "cargo labs new NN-slug \"Title\"",
        "scaffold a lab the consistency gate accepts",
    ),
];

fn help() -> String {
    let mut out = String::new();
    for (_, usage, about) in COMMANDS {
        // The overview gives each command its first sentence; `COMMAND --help` the rest.
        let about = about.replace('\n', " ");
        let first = match about.find(". ").or_else(|| about.find(": only")) {
            Some(end) => &about[..end],
            None => about.trim_end_matches('.'),
        };
        if usage.chars().count() <= 44 {
            out.push_str(&format!("{usage:<44} {first}\n"));
        } else {
            out.push_str(&format!("{usage}\n{:<44} {first}\n", ""));
        }
    }
    out.push_str(
        "\nN is a lab number (01 or 1), its id (outbox) or its folder (01-outbox).\n\
         `cargo labs COMMAND --help` says more about one command.",
    );
    out
}

fn command_help(name: &str) -> Option<String> {
    COMMANDS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, usage, about)| format!("usage: {usage}\n\n{about}"))
}

fn main() -> ExitCode {
    // A reader that stops early (`cargo labs grade --json | head`) ends the command
    // quietly, instead of a panic about a broken pipe.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("Broken pipe") || message.contains("os error 32") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(process::GUARD_FLAG) {
        let rest = args.get(1..).unwrap_or_default();
        let rest = rest.strip_prefix(&["--".to_string()]).unwrap_or(rest);
        return process::guard_main(rest);
    }
    // `workbook __graded-proof NAME KEY`: the pass proof a graded child would print, for
    // the test doubles that stand in for a graded suite. It proves nothing without the key,
    // which only the grader that made it holds.
    if args.first().map(String::as_str) == Some("__graded-proof") {
        return match (
            args.get(1),
            args.get(2).and_then(|k| labkit::graded::nonce_key(k)),
        ) {
            (Some(name), Some(key)) => {
                println!("{}", labkit::graded::proof(key, name));
                ExitCode::SUCCESS
            }
            _ => ExitCode::from(2),
        };
    }
    if let Ok(exe) = std::env::current_exe() {
        process::tie_children_to_this_process(exe);
    }
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{} {error}", "error:".red().bold());
            ExitCode::from(error.exit_code())
        }
    }
}

/// Splits `--flag VALUE` pairs and bare flags from positional arguments.
struct Args<'a> {
    rest: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn flag(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest.retain(|a| *a != name);
        self.rest.len() != before
    }

    fn value(&mut self, name: &str) -> Result<Option<&'a str>> {
        let Some(i) = self.rest.iter().position(|a| *a == name) else {
            return Ok(None);
        };
        if i + 1 >= self.rest.len() {
            return Err(Error::input(format!("`{name}` needs a value")));
        }
        let value = self.rest.remove(i + 1);
        self.rest.remove(i);
        Ok(Some(value))
    }

    /// The positional arguments; an unknown `--flag` is refused by name.
    fn positional(self, command: &str) -> Result<Vec<&'a str>> {
        if let Some(flag) = self.rest.iter().find(|a| a.starts_with("--")) {
            return Err(Error::input(format!(
                "`cargo labs {command}` does not know `{flag}`; see `cargo labs {command} --help`"
            )));
        }
        Ok(self.rest)
    }
}

fn dispatch(args: &[String]) -> Result<()> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (command, rest) = match args.split_first() {
        None => ("status", &[][..]),
        Some((command, rest)) => (*command, rest),
    };
    if matches!(command, "help" | "--help" | "-h") {
        match rest.first().and_then(|c| command_help(c)) {
            Some(text) => println!("{text}"),
            None => println!("{}", help()),
        }
        return Ok(());
    }
    if rest.iter().any(|a| *a == "--help" || *a == "-h") {
        return match command_help(command) {
            Some(text) => {
                println!("{text}");
                Ok(())
            }
            None => Err(Error::input(format!(
                "`cargo labs {command}` is not a command.\n\n{}",
                help()
            ))),
        };
    }
    if command == "mdbook-preprocessor" {
        // Run by mdBook itself (book.toml), from the book's root: no workbook needed.
        return workbook::bookpp::run(rest);
    }
    let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read the folder", e))?;
    let wb = Workbook::load(find_root(&cwd)?)?;
    let mut opts = Args {
        rest: rest.to_vec(),
    };
    let usage = |command: &str| {
        Error::input(format!(
            "{}\n(`cargo labs {command} --help`)",
            command_help(command).unwrap_or_default()
        ))
    };
    match command {
        "status" => commands::status(&wb),
        "list" => commands::list(&wb),
        "predict" => {
            let mut sets = Vec::new();
            while let Some(value) = opts.value("--set")? {
                sets.push(value.to_string());
            }
            let seal = opts.flag("--seal");
            if let Some(url) = opts.value("--send")? {
                let send = workbook::poll::SendOptions {
                    url,
                    code: opts.value("--code")?.ok_or_else(|| {
                        Error::input(
                            "`--send` needs `--code CODE`: the class code your teacher shows",
                        )
                    })?,
                    name: opts.value("--name")?,
                    round: (opts.value("--round")?.unwrap_or("1").parse()).map_err(Error::input)?,
                };
                return match opts.positional(command)?.as_slice() {
                    [lab] if !seal && sets.is_empty() => {
                        workbook::poll::send(&wb, wb.lab(lab)?, &send)
                    }
                    _ => Err(usage(command)),
                };
            }
            match opts.positional(command)?.as_slice() {
                [lab] if seal && sets.is_empty() => commands::seal_only(&wb, wb.lab(lab)?),
                [lab] if !seal => commands::predict(&wb, wb.lab(lab)?, &sets),
                _ => Err(usage(command)),
            }
        }
        "run" => {
            let anyway = opts.flag("--anyway");
            let explain = opts.flag("--explain");
            match opts.positional(command)?.as_slice() {
                [lab] => commands::run(&wb, wb.lab(lab)?, anyway, explain),
                _ => Err(usage(command)),
            }
        }
        "check" | "hint" | "reset" => match opts.positional(command)?.as_slice() {
            [lab] => {
                let lab = wb.lab(lab)?;
                match command {
                    "check" => commands::check(&wb, lab),
                    "hint" => commands::hint(&wb, lab),
                    _ => commands::reset(&wb, lab),
                }
            }
            _ => Err(usage(command)),
        },
        "watch" => match opts.positional(command)?.as_slice() {
            [] => watch::watch(&wb, None),
            [lab] => watch::watch(&wb, Some(wb.lab(lab)?)),
            _ => Err(usage(command)),
        },
        "replay" => match opts.positional(command)?.as_slice() {
            [lab, scenario, token] => commands::replay(&wb, wb.lab(lab)?, scenario, token),
            _ => Err(usage(command)),
        },
        "grade" => {
            let json = opts.flag("--json");
            let classroom = opts.flag("--classroom");
            let base64 = opts.flag("--base64");
            let format = match (json, classroom, base64) {
                (true, false, false) => "json",
                (false, true, false) => "classroom",
                (false, true, true) => "classroom-base64",
                (false, false, false) => "text",
                _ => return Err(usage(command)),
            };
            let only: Vec<String> = opts
                .positional(command)?
                .iter()
                .map(|s| s.to_string())
                .collect();
            commands::grade(&wb, format, &only)
        }
        "grade-class" => {
            let options = class::Options {
                json: opts.value("--json")?.map(Into::into),
                csv: opts.value("--csv")?.map(Into::into),
                labs: opts
                    .value("--labs")?
                    .map(|l| l.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
                work: opts.value("--work")?.map(Into::into),
                classroom: opts.flag("--classroom"),
                base64: opts.flag("--base64"),
                no_sandbox: opts.flag("--no-sandbox"),
            };
            let dirs: Vec<std::path::PathBuf> =
                opts.positional(command)?.iter().map(Into::into).collect();
            if dirs.is_empty() {
                return Err(usage(command));
            }
            class::grade_class(&wb, &dirs, &options)
        }
        "export" => {
            let grader = opts.value("--grader")?;
            match opts.positional(command)?.as_slice() {
                [dir] => export::export(&wb, std::path::Path::new(dir), grader).map(|report| {
                    println!(
                        "wrote the student edition into {dir}: {} files ({} labs)",
                        report.files, report.labs
                    );
                }),
                _ => Err(usage(command)),
            }
        }
        "figures" => {
            let check = opts.flag("--check");
            match opts.positional(command)?.as_slice() {
                [] => commands::figures(&wb, check),
                _ => Err(usage(command)),
            }
        }
        "book" => {
            let open = opts.flag("--open");
            let serve = opts.flag("--serve");
            match opts.positional(command)?.as_slice() {
                [] if !(open && serve) => {
                    let dir = commands::book(&wb, open)?;
                    if serve { serve::run(&dir) } else { Ok(()) }
                }
                _ => Err(usage(command)),
            }
        }
        "poll" => workbook::poll::launch(&wb, rest),
        "new" => match opts.positional(command)?.as_slice() {
            [slug, title] => {
                for path in scaffold::scaffold(&wb.root, slug, title)? {
                    println!("  wrote {}", path.display());
                }
                let number = slug.get(..2).unwrap_or(slug);
                println!(
                    "\nNext: `cargo test -p solution{slug} --test graded` passes, `cargo labs check {slug}` fails one test.\nThen replace the placeholder scenario with the lab's own (see CONTRIBUTING.md), re-publish the hashes\nthe gate names, and grow the catalogue to eight wrong solutions\n(`LABS_ONLY={number} cargo test -p workbook --test mutants`)."
                );
                Ok(())
            }
            _ => Err(usage(command)),
        },
        _ => Err(Error::input(format!(
            "`cargo labs {}` is not a command.\n\n{}",
            args.join(" "),
            help()
        ))),
    }
}
