use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: snapshots::observe::run,
        scenarios: snapshots::scenarios::SCENARIOS,
        figures: snapshots::figures::figures,
    })
}
