//! The lab's command line (`cargo labs run 05`, `replay 05`), running your `consumer.rs`.

mod consumer;

fn main() -> std::process::ExitCode {
    ordering::main(ordering::learner!())
}
