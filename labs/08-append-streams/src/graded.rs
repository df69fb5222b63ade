//! The graded suite with your files compiled into it: one crate, so that an edit
//! compiles once before the verdict. The suite (`tests/08_append_streams.rs`) is a
//! module beside yours, so nothing your code defines (a macro, say) reaches it.
//! Complete code: read it, do not change it.

mod ledger;
#[path = "../../../tests/08_append_streams.rs"]
mod suite;

fn main() -> std::process::ExitCode {
    suite::main()
}
