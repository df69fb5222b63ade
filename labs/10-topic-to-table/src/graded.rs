//! The graded suite with your files compiled into it: one crate, so that an edit
//! compiles once before the verdict. The suite (`tests/10_topic_to_table.rs`) is a
//! module beside yours, so nothing your code defines (a macro, say) reaches it.
//! Complete code: read it, do not change it.

mod pipeline;
#[path = "../../../tests/10_topic_to_table.rs"]
mod suite;

fn main() -> std::process::ExitCode {
    suite::main()
}
