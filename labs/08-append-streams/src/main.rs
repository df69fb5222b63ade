//! The lab's command line (`cargo labs run 08`, `replay 08`), running your `ledger.rs`.

mod ledger;

fn main() -> std::process::ExitCode {
    append_streams::main(append_streams::learner!())
}
