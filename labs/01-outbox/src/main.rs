use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: outbox::observe::run,
        scenarios: outbox::harness::SCENARIOS,
        figures: outbox::harness::figures,
    })
}
