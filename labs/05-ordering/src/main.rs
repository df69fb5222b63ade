use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: ordering::observe::run,
        scenarios: ordering::harness::SCENARIOS,
        figures: ordering::harness::figures,
    })
}
