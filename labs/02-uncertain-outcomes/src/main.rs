//! The lab's command line (`cargo labs run 02`, `replay 02`), running your `settlement.rs`.

mod settlement;

fn main() -> std::process::ExitCode {
    uncertain_outcomes::main(uncertain_outcomes::learner!())
}
