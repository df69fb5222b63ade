use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: append_streams::observe::run,
        scenarios: append_streams::scenarios::SCENARIOS,
        figures: append_streams::figures::figures,
    })
}
