//! Timers on the logical clock. Ties are broken by insertion order, so two timers due at
//! the same tick always fire in the order they were set.

use std::collections::BTreeMap;

/// A queue of timers on the logical clock, each carrying a `T` (what to do when it fires).
#[derive(Clone, Debug)]
pub struct Timers<T> {
    queue: BTreeMap<(u64, u64), T>,
    next_seq: u64,
}

impl<T> Default for Timers<T> {
    fn default() -> Self {
        Timers {
            queue: BTreeMap::new(),
            next_seq: 0,
        }
    }
}

impl<T> Timers<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a timer due at tick `due`.
    pub fn set(&mut self, due: u64, item: T) {
        self.queue.insert((due, self.next_seq), item);
        self.next_seq += 1;
    }

    /// Removes and returns the earliest timer due at or before `now`.
    pub fn pop_due(&mut self, now: u64) -> Option<(u64, T)> {
        let (&(due, seq), _) = self.queue.first_key_value()?;
        if due > now {
            return None;
        }
        self.queue.remove(&(due, seq)).map(|item| (due, item))
    }

    /// The tick of the earliest timer, if any.
    pub fn next_due(&self) -> Option<u64> {
        self.queue.first_key_value().map(|(&(due, _), _)| due)
    }

    /// Drops every timer for which `keep` is false (a cancelled ack deadline, say).
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.queue.retain(|_, item| keep(item));
    }

    /// How many timers are set.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no timer is set.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_fire_by_due_tick_then_by_insertion_order() {
        let mut timers = Timers::new();
        timers.set(5, "b");
        timers.set(3, "a");
        timers.set(5, "c");
        assert_eq!(timers.pop_due(2), None);
        assert_eq!(timers.pop_due(9), Some((3, "a")));
        assert_eq!(timers.pop_due(9), Some((5, "b")));
        assert_eq!(timers.pop_due(9), Some((5, "c")));
        assert!(timers.is_empty());
    }
}
