use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: uncertain_outcomes::observe::run,
        scenarios: uncertain_outcomes::scenarios::SCENARIOS,
        figures: uncertain_outcomes::figures::figures,
    })
}
