//! One graded test in a process of its own (`graded --graded-child NAME`).

use crate::vault::{PAD_0, PAD_1, PAD_2, Vault, padded};
use crate::{GradedTest, Key, RESULT_TAG, proof};
use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;

/// The last panic's message, kept by the child's panic hook.
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Reads the key line from stdin into a buffer of this function's own: a read this large
/// goes past stdin's internal buffer, so the digits never sit there. The digits are wiped
/// once decoded, and the key goes straight into its vault.
fn read_key() -> Option<Vault> {
    // Larger than std's 8 KiB stdin buffer at every read, so each read bypasses it.
    let mut buffer = vec![0u8; 64 * 1024];
    let mut filled = 0;
    let mut stdin = std::io::stdin().lock();
    while filled < 33 && !buffer[..filled].contains(&b'\n') {
        match stdin.read(&mut buffer[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    let line = buffer[..filled]
        .split(|b| *b == b'\n')
        .next()
        .unwrap_or(&[]);
    let vault = std::str::from_utf8(line)
        .ok()
        .and_then(Key::parse)
        .map(Vault::seal);
    buffer.fill(0);
    std::hint::black_box(&buffer);
    vault
}

/// A graded test runs in one process, one thread: it may start no other. The cap is set
/// before any code under test runs, so that a learner's code cannot flood the machine
/// that grades the class with processes (or busy loops in them) and slow down the
/// tests of the submissions graded beside it; a test that tries gets an error from the
/// system. (`RLIMIT_NPROC` counts the user's processes, in the sandbox's user namespace
/// where there is one; it does not bind a privileged process, nor outside Unix.)
fn start_no_other_process() {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, setrlimit};
        let _ = setrlimit(Resource::RLIMIT_NPROC, 0, 0);
    }
}

/// Runs test `name` and prints its result line.
pub fn run(tests: &[GradedTest], name: &str) -> ExitCode {
    // The key first, before any code under test exists in this process.
    let vault = read_key();
    start_no_other_process();
    let Some(test) = tests.iter().find(|t| t.name == name) else {
        println!("this graded suite has no test `{name}`");
        return ExitCode::from(2);
    };
    // Panics inside explorations are caught and turned into violations; keep only the
    // last message, quietly, and print it if the test itself fails.
    panic::set_hook(Box::new(|info| {
        let text = panic_text(info.payload());
        if let Ok(mut slot) = PANIC_MESSAGE.lock() {
            *slot = Some(text);
        }
    }));
    let outcome = padded::<PAD_0, _>(|| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            padded::<PAD_1, _>(|| padded::<PAD_2, _>(test.run))
        }))
    });
    let mut stdout = std::io::stdout().lock();
    let written = match outcome {
        Ok(()) => match &vault {
            Some(vault) => {
                let key = vault.open();
                writeln!(stdout, "\n{RESULT_TAG} {name} passed {}", proof(&key, name))
            }
            None => writeln!(
                stdout,
                "\nno key was given on stdin: nothing to prove a pass with"
            ),
        },
        Err(payload) => {
            let message = PANIC_MESSAGE
                .lock()
                .ok()
                .and_then(|mut m| m.take())
                .unwrap_or_else(|| panic_text(payload.as_ref()));
            writeln!(stdout, "{message}\n{RESULT_TAG} {name} failed")
        }
    };
    let _ = written.and_then(|()| stdout.flush());
    ExitCode::SUCCESS
}
