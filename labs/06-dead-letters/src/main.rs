use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: dead_letters::observe::run,
        scenarios: dead_letters::scenarios::SCENARIOS,
        figures: dead_letters::figures::figures,
    })
}
