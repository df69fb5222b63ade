//! `boundary-poll serve --root DIR [OPTIONS]`, as `cargo labs poll serve` runs it.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match boundary_poll::config::Config::from_args(&args) {
        Ok(config) => config,
        Err(message) => return fail(&message),
    };
    let server = match boundary_poll::start(&config) {
        Ok(server) => server,
        Err(message) => return fail(&message),
    };
    println!("{}", server.banner(&config));
    // A reader of a pipe (a script, a test) sees the URLs before the first request.
    let _ = std::io::stdout().flush();
    match server.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
