use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: template::observe::run,
        scenarios: template::scenarios::SCENARIOS,
        figures: template::figures::figures,
    })
}
