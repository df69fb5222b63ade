//! `cargo labs` — see the README, or run `cargo labs help`.

use colored::Colorize;
use std::process::ExitCode;
use workbook::process;

/// Handles the internal commands no person types (the process guard, the proof a test
/// double prints), then runs the command line.
fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(process::GUARD_FLAG) => return process::guard_main(&args[1..]),
        // `workbook __graded-proof NAME KEY`: the pass proof a graded child would print,
        // for the test doubles that stand in for a graded suite. It proves nothing
        // without the key, which only the grader that made it holds.
        Some("__graded-proof") => {
            return match (args.get(1), args.get(2).and_then(|k| graded::Key::parse(k))) {
                (Some(name), Some(key)) => {
                    println!("{}", graded::proof(&key, name));
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
        _ => {}
    }
    if let Ok(exe) = std::env::current_exe() {
        process::tie_children_to_this_process(exe);
    }
    match workbook::cli::dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{} {error}", "error:".red().bold());
            ExitCode::from(error.exit_code())
        }
    }
}

/// A reader that stops early (`cargo labs grade --json | head`) ends the command
/// quietly, instead of a panic about a broken pipe.
fn quiet_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = (info.payload().downcast_ref::<String>().map(String::as_str))
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("Broken pipe") || message.contains("os error 32") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
}
