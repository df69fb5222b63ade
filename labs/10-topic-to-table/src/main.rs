//! The lab's command line (`cargo labs run 10`, `replay 10`), running your `pipeline.rs`.

mod pipeline;

fn main() -> std::process::ExitCode {
    topic_to_table::main(topic_to_table::learner!())
}
