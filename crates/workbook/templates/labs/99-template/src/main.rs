//! The lab's command line (`cargo labs run 99`, `replay 99`), running your `receiver.rs`.

mod receiver;

fn main() -> std::process::ExitCode {
    template::main(template::learner!())
}
