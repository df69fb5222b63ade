use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: file_sets::observe::run,
        scenarios: file_sets::scenarios::SCENARIOS,
        figures: file_sets::figures::figures,
    })
}
