use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: ordering::observe::run,
        scenarios: ordering::scenarios::SCENARIOS,
        figures: ordering::figures::figures,
    })
}
