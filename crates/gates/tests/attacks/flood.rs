// ---- Appended to lab 01's starter: learner code that starts processes ----
//
// Each call tries to start a shell. A class grading must not let one submission flood
// the machine with processes (busy loops in them would slow down the tests of the
// submissions graded beside it), so a graded test may start none. A start that works
// panics the test: a grading that lets it passes fewer tests than the starter alone.
fn flood() {
    let started = std::process::Command::new("/bin/sh")
        .args(["-c", "exit 0"])
        .status();
    if started.is_ok() {
        panic!("a graded test started a process");
    }
}
