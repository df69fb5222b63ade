//! The lab's command line (`cargo labs run 01`, `replay 01`), running your `relay.rs`.

mod relay;

fn main() -> std::process::ExitCode {
    outbox::main(outbox::learner!())
}
