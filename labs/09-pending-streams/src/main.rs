//! The lab's command line (`cargo labs run 09`, `replay 09`), running your `coordinator.rs`.

mod coordinator;

fn main() -> std::process::ExitCode {
    pending_streams::main(pending_streams::learner!())
}
