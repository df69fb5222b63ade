//! `cargo labs` — see the README, or run `cargo labs help`.

mod serve;

use colored::Colorize;
use std::process::ExitCode;
use workbook::commands::{self, Workbook};
use workbook::{Failure, find_root, grade};

const HELP: &str = "\
cargo labs                        where you are: progress per lab and the next step
cargo labs list                   the labs
cargo labs predict N              record your predictions (interactive)
cargo labs predict N --set ID=ANSWER …   record predictions from a script
cargo labs run N [--anyway]       run the lab: predicted against observed
cargo labs check N                the lab's graded tests (your build phase)
cargo labs hint N                 one more hint
cargo labs watch [N]              re-check the lab on every save (keys: h r c n q)
cargo labs reset N                restore the starter files (yours are backed up)
cargo labs replay N SCENARIO TOKEN   replay one schedule and print its timeline
cargo labs grade [--json | --classroom [--base64]] [N …]   grade every lab (or some)
cargo labs figures [--check]      regenerate (or check) the book's figures
cargo labs book [--open | --serve]   build the book with mdBook (and open or serve it)
cargo labs new NN-slug \"Title\"    scaffold a lab the consistency gate accepts

N is a lab number (01 or 1), its id (outbox) or its folder (01-outbox).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{} {}", "error:".red().bold(), failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn dispatch(args: &[String]) -> Result<(), Failure> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if matches!(args.as_slice(), ["help" | "--help" | "-h", ..]) {
        println!("{HELP}");
        return Ok(());
    }
    let cwd = std::env::current_dir().map_err(|e| Failure::input(e.to_string()))?;
    let wb = Workbook::load(find_root(&cwd)?)?;
    match args.as_slice() {
        [] | ["status"] => commands::status(&wb),
        ["list"] => commands::list(&wb),
        ["predict", lab, rest @ ..] => {
            let lab = wb.lab(lab)?;
            let mut sets = Vec::new();
            let mut rest = rest.iter();
            while let Some(flag) = rest.next() {
                match (*flag, rest.next()) {
                    ("--set", Some(value)) => sets.push(value.to_string()),
                    _ => {
                        return Err(Failure::input(format!(
                            "`predict` takes `--set ID=ANSWER`, not `{flag}`"
                        )));
                    }
                }
            }
            commands::predict(&wb, lab, &sets)
        }
        ["run", lab] => commands::run(&wb, wb.lab(lab)?, false),
        ["run", lab, "--anyway"] => commands::run(&wb, wb.lab(lab)?, true),
        ["check", lab] => commands::check(&wb, wb.lab(lab)?),
        ["hint", lab] => commands::hint(&wb, wb.lab(lab)?),
        ["watch"] => workbook::watch::watch(&wb, None),
        ["watch", lab] => workbook::watch::watch(&wb, Some(wb.lab(lab)?)),
        // Test support, not in the help: tests/progress_kill.rs kills this mid-write.
        ["__record-attempts", n] => {
            let n = n.parse().map_err(|_| Failure::input("N is a count"))?;
            let mut out = std::io::stdout().lock();
            Ok(wb.progress()?.record_attempts_for_kill_test(n, &mut out)?)
        }
        ["reset", lab] => commands::reset(&wb, wb.lab(lab)?),
        ["replay", lab, scenario, token] => commands::replay(&wb, wb.lab(lab)?, scenario, token),
        ["grade", rest @ ..] => {
            let mut format = "text";
            let mut only = Vec::new();
            for arg in rest {
                match *arg {
                    "--json" => format = "json",
                    "--classroom" => format = "classroom",
                    "--base64" if format == "classroom" => format = "classroom-base64",
                    flag if flag.starts_with("--") => {
                        return Err(Failure::input(format!("`grade` does not know `{flag}`")));
                    }
                    lab => only.push(lab.to_string()),
                }
            }
            grade::run(&wb, format, &only)
        }
        ["figures"] => commands::figures(&wb, false),
        ["figures", "--check"] => commands::figures(&wb, true),
        ["book"] => commands::book(&wb, None),
        ["book", "--serve"] => {
            commands::book(&wb, None)?;
            serve::run(&wb.root.join("book/build"))
        }
        ["book", mode] => commands::book(&wb, Some(mode)),
        ["new", slug, title] => {
            for path in workbook::scaffold::scaffold(&wb.root, slug, title)? {
                println!("  wrote {}", path.display());
            }
            println!(
                "\nNext: `cargo test -p solution{slug} --test graded` passes, `cargo labs check {slug}` fails one test;\nthen replace the placeholder scenario (see CONTRIBUTING.md) and re-publish the hashes the gate names."
            );
            Ok(())
        }
        _ => Err(Failure::input(format!(
            "`cargo labs {}` is not a command.\n\n{HELP}",
            args.join(" ")
        ))),
    }
}
