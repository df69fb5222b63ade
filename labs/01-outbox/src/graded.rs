//! The graded suite with your files compiled into it: one crate, so that an edit
//! compiles once before the verdict. The suite (`tests/01_outbox.rs`) is a module
//! beside yours, so nothing your code defines (a macro, say) reaches it. Complete code:
//! read it, do not change it.

mod relay;
#[path = "../../../tests/01_outbox.rs"]
mod suite;

fn main() -> std::process::ExitCode {
    suite::main()
}
