use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: pending_streams::observe::run,
        scenarios: pending_streams::scenarios::SCENARIOS,
        figures: pending_streams::figures::figures,
    })
}
