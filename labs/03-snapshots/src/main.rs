//! The lab's command line (`cargo labs run 03`, `replay 03`), running your `reserve.rs`.

mod reserve;

fn main() -> std::process::ExitCode {
    snapshots::main(snapshots::learner!())
}
