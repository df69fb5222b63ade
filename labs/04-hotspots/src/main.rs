use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: hotspots::observe::run,
        scenarios: hotspots::scenarios::SCENARIOS,
        figures: hotspots::figures::figures,
    })
}
