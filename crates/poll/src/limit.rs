//! Flood control: a token bucket per client address. Every learner-facing request takes
//! a token; a bucket refills at `rate` tokens a second up to three seconds' worth, so a
//! class sending its votes at once passes and a script in a loop is refused (429) with
//! the time to wait. The clock is passed in, so the tests need no sleep.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// How many addresses are remembered before the full buckets (the quiet ones) are
/// forgotten: a flood from many addresses cannot grow the map without bound.
const MAX_TRACKED: usize = 4096;

pub struct Limiter {
    rate: f64,
    burst: f64,
    buckets: HashMap<IpAddr, Bucket>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Limiter {
    pub fn new(rate_per_second: u32) -> Limiter {
        let rate = f64::from(rate_per_second.max(1));
        Limiter {
            rate,
            burst: rate * 3.0,
            buckets: HashMap::new(),
        }
    }

    /// Takes a token for `address`, or says how long to wait for one.
    pub fn admit(&mut self, address: IpAddr, now: Instant) -> Result<(), Duration> {
        if self.buckets.len() >= MAX_TRACKED {
            self.forget_quiet(now);
        }
        let (rate, burst) = (self.rate, self.burst);
        let bucket = self.buckets.entry(address).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }

    fn forget_quiet(&mut self, now: Instant) {
        let (rate, burst) = (self.rate, self.burst);
        self.buckets.retain(|_, b| {
            b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst
        });
        if self.buckets.len() >= MAX_TRACKED {
            // Every address is busy: start afresh rather than grow.
            self.buckets.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_a_flood_waits_and_time_refills() {
        let mut limiter = Limiter::new(2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..6 {
            assert!(limiter.admit(a, t0).is_ok());
        }
        let wait = limiter.admit(a, t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        assert!(
            limiter.admit(b, t0).is_ok(),
            "another address has its own bucket"
        );
        assert!(limiter.admit(a, t0 + Duration::from_millis(500)).is_ok());
        assert!(limiter.admit(a, t0 + Duration::from_millis(500)).is_err());
        for _ in 0..6 {
            assert!(
                limiter.admit(a, t0 + Duration::from_secs(60)).is_ok(),
                "refilled, up to the burst"
            );
        }
        assert!(limiter.admit(a, t0 + Duration::from_secs(60)).is_err());
    }

    #[test]
    fn many_addresses_do_not_grow_the_map_without_bound() {
        let mut limiter = Limiter::new(1);
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 * 2) {
            let _ = limiter.admit(IpAddr::from(i.to_be_bytes()), t0);
        }
        assert!(limiter.buckets.len() <= MAX_TRACKED);
    }
}
