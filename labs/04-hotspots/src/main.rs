use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: hotspots::observe::run,
        scenarios: hotspots::harness::SCENARIOS,
        figures: hotspots::harness::figures,
    })
}
