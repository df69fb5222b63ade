use labkit::{LabBinary, lab_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    lab_main(LabBinary {
        observe: topic_to_table::observe::run,
        scenarios: topic_to_table::scenarios::SCENARIOS,
        figures: topic_to_table::figures::figures,
    })
}
