use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: outbox::observe::run,
        scenarios: outbox::scenarios::SCENARIOS,
        figures: outbox::figures::figures,
    })
}
