//! The sequence diagram ([`Sequence`]): its participants and steps, and its layout (the
//! x of each lifeline and the picture's width, sized to the text and fitted to
//! [`MAX_WIDTH`]). It is drawn in `sequence/svg.rs`.

use super::{EDGE, MAX_WIDTH, TEXT, measure, widest_word};

mod svg;

/// One step of a sequence diagram.
#[derive(Clone, Debug)]
enum Step {
    Message {
        from: usize,
        to: usize,
        label: String,
        kind: Arrow,
    },
    Note {
        over: usize,
        text: String,
    },
    Crash {
        at: usize,
        text: String,
    },
    Divider(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Arrow {
    Call,
    Reply,
    Lost,
}

/// A sequence diagram: participants across the top, one step per row. Every box, gap and
/// margin is sized to the text it holds (measured with [`crate::font`]) while the picture
/// fits [`MAX_WIDTH`]; beyond that the gaps are shared out and the longest labels, notes
/// and captions wrap at word boundaries, each row growing with its lines.
#[derive(Clone, Debug)]
pub struct Sequence {
    title: String,
    participants: Vec<String>,
    steps: Vec<Step>,
}

/// The least distance between two lifelines, and the least width of a participant's box.
const MIN_GAP: i32 = 150;
const MIN_BOX: i32 = 110;
/// Space between a message's label and the lifelines at its ends, on each side.
const LABEL_MARGIN: i32 = 10;
/// Horizontal padding inside a box or a note, on each side.
const PADDING: i32 = 12;

impl Sequence {
    /// An empty diagram titled `title`, with one lifeline per participant, left to right.
    pub fn new(title: &str, participants: &[&str]) -> Self {
        Sequence {
            title: title.to_string(),
            participants: participants.iter().map(|p| p.to_string()).collect(),
            steps: Vec::new(),
        }
    }

    fn index(&self, name: &str) -> usize {
        self.participants
            .iter()
            .position(|p| p == name)
            .unwrap_or_else(|| panic!("no participant `{name}` in `{}`", self.title))
    }

    fn message(mut self, from: &str, to: &str, label: &str, kind: Arrow) -> Self {
        let (from, to) = (self.index(from), self.index(to));
        self.steps.push(Step::Message {
            from,
            to,
            label: label.to_string(),
            kind,
        });
        self
    }

    /// A request (solid arrow).
    pub fn call(self, from: &str, to: &str, label: &str) -> Self {
        self.message(from, to, label, Arrow::Call)
    }

    /// A response (dashed arrow).
    pub fn reply(self, from: &str, to: &str, label: &str) -> Self {
        self.message(from, to, label, Arrow::Reply)
    }

    /// A response that never arrives (dashed, red, ending in a cross).
    pub fn lost(self, from: &str, to: &str, label: &str) -> Self {
        self.message(from, to, label, Arrow::Lost)
    }

    /// Something a participant does or knows.
    pub fn note(mut self, over: &str, text: &str) -> Self {
        let over = self.index(over);
        self.steps.push(Step::Note {
            over,
            text: text.to_string(),
        });
        self
    }

    /// A crash of one participant.
    pub fn crash(mut self, at: &str, text: &str) -> Self {
        let at = self.index(at);
        self.steps.push(Step::Crash {
            at,
            text: text.to_string(),
        });
        self
    }

    /// A horizontal rule with a caption, to separate phases.
    pub fn divider(mut self, text: &str) -> Self {
        self.steps.push(Step::Divider(text.to_string()));
        self
    }

    pub(super) fn crash_caption(text: &str) -> String {
        format!("⚡ {text}")
    }

    /// The x of each lifeline and the picture's width when no text is wider than `cap`
    /// pixels, or than its widest word (a word does not break): the gaps between
    /// lifelines grow until every message's label, so capped, fits between its ends; the
    /// margins until every box and crash caption centred on a lifeline fits inside the
    /// picture; and the picture until every note and divider caption fits across it.
    fn layout(&self, cap: i32, min_gap: i32) -> (Vec<i32>, i32) {
        let capped = |text: &str, bold: bool| {
            measure(text, TEXT, bold).min(cap.max(widest_word(text, TEXT, bold)))
        };
        let n = self.participants.len().max(1);
        let boxes: Vec<i32> = self
            .participants
            .iter()
            .map(|p| (measure(p, TEXT, false) + 2 * PADDING).max(MIN_BOX))
            .collect();
        let gaps = self.gaps(&boxes, min_gap, &capped);
        let mut offsets = vec![0; n];
        for i in 1..n {
            offsets[i] = offsets[i - 1] + gaps[i - 1];
        }
        let centred = self.centred(&boxes, &capped);
        let left = centred
            .iter()
            .map(|&(i, w)| EDGE + (w + 1) / 2 - offsets[i])
            .max()
            .unwrap_or(EDGE)
            .max(EDGE + 20);
        let xs: Vec<i32> = offsets.iter().map(|o| left + o).collect();
        let mut right = centred
            .iter()
            .map(|&(i, w)| xs[i] + (w + 1) / 2 + EDGE)
            .max()
            .unwrap_or(0)
            .max(xs[n - 1] + EDGE + 20);
        // A note is centred where it can be, but kept inside; a divider's caption starts
        // at the left edge.
        for step in &self.steps {
            match step {
                Step::Note { text, .. } => {
                    right = right.max(capped(text, false) + 2 * PADDING + 2 * EDGE)
                }
                Step::Divider(text) => right = right.max(EDGE + 4 + capped(text, false) + EDGE),
                _ => {}
            }
        }
        (xs, right)
    }

    /// The gaps between neighbouring lifelines: at least `min_gap` and room for the boxes
    /// on either side, widened until every message's label (its width given by `capped`)
    /// fits between its ends.
    fn gaps(&self, boxes: &[i32], min_gap: i32, capped: &dyn Fn(&str, bool) -> i32) -> Vec<i32> {
        let n = boxes.len().max(1);
        let mut gaps: Vec<i32> = (0..n - 1)
            .map(|i| ((boxes[i] + boxes[i + 1]) / 2 + 2 * EDGE).max(min_gap))
            .collect();
        // Labels over one gap first, then the wider spans, each widening its gaps evenly.
        let mut spans: Vec<(usize, usize, i32)> = self
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Message {
                    from, to, label, ..
                } if from != to => Some((
                    *from.min(to),
                    *from.max(to),
                    capped(label, false) + 2 * LABEL_MARGIN,
                )),
                _ => None,
            })
            .collect();
        spans.sort_by_key(|&(a, b, _)| b - a);
        for (a, b, needed) in spans {
            let have: i32 = gaps[a..b].iter().sum();
            if have < needed {
                let count = (b - a) as i32;
                let extra = needed - have;
                for (k, gap) in gaps[a..b].iter_mut().enumerate() {
                    // Spread the extra pixels evenly; the first gaps take the remainder.
                    *gap += extra / count + i32::from((k as i32) < extra % count);
                }
            }
        }
        gaps
    }

    /// What is centred on a lifeline, as (participant, width): its box, its crash
    /// captions, a message to itself.
    fn centred(&self, boxes: &[i32], capped: &dyn Fn(&str, bool) -> i32) -> Vec<(usize, i32)> {
        let mut centred: Vec<(usize, i32)> = boxes.iter().copied().enumerate().collect();
        for step in &self.steps {
            match step {
                Step::Crash { at, text } => {
                    centred.push((*at, capped(&Self::crash_caption(text), true)))
                }
                Step::Message {
                    from, to, label, ..
                } if from == to => centred.push((*from, capped(label, false))),
                _ => {}
            }
        }
        centred
    }

    /// The layout as wide as its text when that fits in [`MAX_WIDTH`]; otherwise the one
    /// whose texts are capped at the widest width that still fits, so that the longest
    /// texts wrap first and short ones not at all. When even words alone do not fit
    /// between lifelines [`MIN_GAP`] apart, the least gap narrows first, down to what the
    /// boxes need (they do not shrink: a picture of many participants may stay too wide).
    fn fitted_layout(&self) -> (Vec<i32>, i32) {
        let fits = |cap: i32, min_gap: i32| self.layout(cap, min_gap).1 <= MAX_WIDTH;
        // The largest value in low..=high for which `holds`, by bisection; `low` when none.
        let largest = |low: i32, high: i32, holds: &dyn Fn(i32) -> bool| {
            if holds(high) {
                return high;
            }
            let (mut yes, mut no) = (low, high);
            while no - yes > 1 {
                let mid = (yes + no) / 2;
                if holds(mid) {
                    yes = mid;
                } else {
                    no = mid;
                }
            }
            yes
        };
        if fits(i32::MAX, MIN_GAP) {
            return self.layout(i32::MAX, MIN_GAP);
        }
        let min_gap = largest(0, MIN_GAP, &|gap| fits(0, gap));
        let widest = self
            .steps
            .iter()
            .map(|step| match step {
                Step::Message { label, .. } => measure(label, TEXT, false),
                Step::Note { text, .. } | Step::Divider(text) => measure(text, TEXT, false),
                Step::Crash { text, .. } => measure(&Self::crash_caption(text), TEXT, true),
            })
            .max()
            .unwrap_or(0);
        let cap = largest(0, widest, &|cap| fits(cap, min_gap));
        self.layout(cap, min_gap)
    }
}
