//! Schedules per second of exhaustive exploration on lab 02's build scope.
//!
//! ```text
//! cargo run --example explore_bench -p solution02-uncertain-outcomes            # debug
//! cargo run --example explore_bench -p solution02-uncertain-outcomes --release  # release
//! ```
//!
//! Runs the graded explorations (settlement and reconciliation, up to two faults) and a
//! larger one (settlement with up to three faults) repeatedly on one thread for about two
//! seconds each, and prints the schedules explored and the rate. The wall clock is read
//! here, around the explorations, never inside simulated code.

use std::time::{Duration, Instant};
use uncertain_outcomes::harness::{
    ALL_EVIDENCE, ALL_INVARIANTS, explore_reconciliation, explore_settlement,
};

fn measure(name: &str, explore: impl Fn() -> u64) {
    // `explore_bench WORD` measures only the explorations whose name contains WORD.
    if let Some(filter) = std::env::args().nth(1)
        && !name.contains(filter.as_str())
    {
        return;
    }
    // One timed run first: the graded exploration must stay under a second in debug.
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
    println!(
        "{name:<34} {once:>7} schedules/exploration  {:>8.1} ms/exploration (first)  {:>10.0} schedules/s  ({runs} runs)",
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
        let e = explore_settlement(2, &ALL_INVARIANTS);
        e.assert_ok();
        e.schedules
    });
    measure("reconciliation, max_faults 2 (graded)", || {
        let e = explore_reconciliation(2, &ALL_EVIDENCE);
        e.assert_ok();
        e.schedules
    });
    measure("settlement, max_faults 3", || {
        let e = explore_settlement(3, &ALL_INVARIANTS);
        e.assert_ok();
        e.schedules
    });
}
