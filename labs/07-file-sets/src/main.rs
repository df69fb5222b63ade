//! The lab's command line (`cargo labs run 07`, `replay 07`), running your `publication.rs`.

mod publication;

fn main() -> std::process::ExitCode {
    file_sets::main(file_sets::learner!())
}
