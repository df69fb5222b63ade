//! Schedules per second of exhaustive exploration on lab 02's build scope.
//!
//! ```text
//! cargo run --example explore_bench -p solution02-uncertain-outcomes            # debug
//! cargo run --example explore_bench -p solution02-uncertain-outcomes --release  # release
//! ```
//!
//! Runs the graded explorations (settlement and reconciliation, up to two faults) and a
//! larger one (settlement with up to three faults) repeatedly on one thread for about two
//! seconds each, and prints the schedules explored and two rates: per second of wall
//! clock, and per second of CPU time of this thread (from Linux's
//! `/proc/thread-self/schedstat`), which is the per-core figure and does not depend on
//! what else the machine is running. The clocks are read here, around the explorations,
//! never inside simulated code.

#[path = "../src/settlement.rs"]
mod settlement;

use std::time::{Duration, Instant};
use uncertain_outcomes::invariants::{ALL_EVIDENCE, ALL_INVARIANTS};
use uncertain_outcomes::scenarios::{Protocol, Rerun, explore_reconciliation, explore_settlement};

/// The reference solution's `settle` and `reconcile`.
const YOURS: Protocol = uncertain_outcomes::learner!();

/// Nanoseconds this thread has spent on a CPU, when the kernel says.
fn cpu_nanos() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str, explore: impl Fn() -> u64) {
    // `explore_bench WORD` measures only the explorations whose name contains WORD.
    if let Some(filter) = std::env::args().nth(1)
        && !name.contains(filter.as_str())
    {
        return;
    }
    // One timed run first: the graded exploration must stay under a second in debug.
    let cpu_start = cpu_nanos();
    let start = Instant::now();
    let once = explore();
    let single = start.elapsed();
    let mut schedules = once;
    let mut runs = 1;
    while start.elapsed() < Duration::from_secs(2) {
        schedules += explore();
        runs += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, cpu_nanos()) {
        (Some(a), Some(b)) if b > a => {
            format!(
                "{:>9.0}/s per core (CPU time)",
                schedules as f64 / ((b - a) as f64 / 1e9)
            )
        }
        _ => "CPU time not available".to_string(),
    };
    println!(
        "{name:<38} {once:>5} schedules  first run {:>6.1} ms  {:>9.0}/s wall  {cpu}  ({runs} runs)",
        single.as_secs_f64() * 1e3,
        schedules as f64 / elapsed
    );
}

fn main() {
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("lab 02 exhaustive exploration, one thread, {profile} build");
    measure("settlement, max_faults 2 (graded)", || {
        let e = explore_settlement(YOURS, Rerun::EitherWay, 2, &ALL_INVARIANTS);
        e.assert_ok();
        e.schedules
    });
    measure("reconciliation, max_faults 2 (graded)", || {
        let e = explore_reconciliation(YOURS, 2, &ALL_EVIDENCE);
        e.assert_ok();
        e.schedules
    });
    measure("settlement, max_faults 3", || {
        let e = explore_settlement(YOURS, Rerun::EitherWay, 3, &ALL_INVARIANTS);
        e.assert_ok();
        e.schedules
    });
}
