//! The lab's command line (`cargo labs run 04`, `replay 04`), running your `keys.rs`.

mod keys;

fn main() -> std::process::ExitCode {
    hotspots::main(hotspots::learner!())
}
