//! The lab's command line (`cargo labs run 06`, `replay 06`), running your `replay.rs`
//! and `reminders.rs`.

mod reminders;
mod replay;

fn main() -> std::process::ExitCode {
    dead_letters::main(dead_letters::learner!())
}
