//! Figures for the book, drawn by code so they cannot drift from the labs: sequence
//! diagrams of protocols and bar charts of measured values, as standalone SVG.
//!
//! A lab lists its figures in a `figures()` function; its binary writes them with
//! `figures DIR` and the consistency gate checks them with `figures DIR --check`.

use crate::font::{FONT_FAMILY, text_width};
use std::fmt::Write;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Text sizes, in pixels.
const TEXT: f64 = 13.0;
const TITLE: f64 = 15.0;
const CHART_TEXT: f64 = 12.0;
/// The line height of a wrapped title.
const TITLE_LINE: i32 = 19;
/// The line height of a wrapped label, note or caption (13 px text), and of a wrapped
/// category label (12 px text).
const TEXT_LINE: i32 = 16;
const CHART_LINE: i32 = 15;
/// A title wider than its picture wraps at the picture's width, or at this width when
/// the picture is narrower (a narrow chart does not stretch for its title).
const TITLE_WRAP: i32 = 640;
/// The widest picture: the book's content column is 750 px (mdBook's default), and a
/// wider picture is shrunk by the browser until its 13 px text reads at 9 or 10 px.
pub const MAX_WIDTH: i32 = 740;

fn measure(text: &str, size: f64, bold: bool) -> i32 {
    text_width(text, size, bold).ceil() as i32
}

/// Symbols that bind the words on both sides: a line never starts or ends with one, so
/// `epoch 1 → 2` or `sent = 1` stays whole.
const BINDING: [&str; 14] = [
    "→", "←", "=", "==", "!=", "+", "+=", "-=", "<", ">", "<=", ">=", "≤", "≥",
];

/// The words of `text`, split at spaces, the units a line breaks between: a crash
/// caption's ⚡ is glued to the word after it, and a [`BINDING`] symbol to its neighbours.
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut glue_next = false;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let binding = BINDING.contains(&word);
        match words.last_mut() {
            Some(last) if glue_next || binding => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        glue_next = binding || word == "⚡";
    }
    words
}

fn widest_word(text: &str, size: f64, bold: bool) -> i32 {
    words(text)
        .iter()
        .map(|w| measure(w, size, bold))
        .max()
        .unwrap_or(0)
}

/// Fills lines word by word up to `room` pixels; a word wider than `room` gets a line
/// of its own.
fn fill(words: &[String], size: f64, bold: bool, room: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if measure(&format!("{line} {word}"), size, bold) <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.clone()),
        }
    }
    lines
}

/// `text` wrapped at word boundaries into lines at most `room` pixels wide (a single
/// word wider than `room` stays whole), as few lines as that takes, and those lines as
/// even as they can be: a label split in two reads as two halves, not a line and a word.
fn wrap(text: &str, size: f64, bold: bool, room: i32) -> Vec<String> {
    let words = words(text);
    let count = fill(&words, size, bold, room).len();
    if count <= 1 {
        return vec![words.join(" ")];
    }
    // Filling line by line gives no more lines at a wider room, so the narrowest room
    // that still takes `count` lines is found by bisection.
    let (mut narrow, mut wide) = (widest_word(text, size, bold), room.max(1));
    while narrow < wide {
        let mid = (narrow + wide) / 2;
        if fill(&words, size, bold, mid).len() <= count {
            wide = mid;
        } else {
            narrow = mid + 1;
        }
    }
    fill(&words, size, bold, wide)
}

fn widest_line(lines: &[String], size: f64, bold: bool) -> i32 {
    lines
        .iter()
        .map(|l| measure(l, size, bold))
        .max()
        .unwrap_or(0)
}

/// The title's lines for a picture `content` pixels wide, and the picture's width.
fn title_lines(title: &str, content: i32) -> (Vec<String>, i32) {
    let room = content.max(TITLE_WRAP.min(measure(title, TITLE, true) + 24));
    let mut lines: Vec<String> = Vec::new();
    for word in title.split(' ') {
        match lines.last_mut() {
            Some(line) if measure(&format!("{line} {word}"), TITLE, true) + 24 <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let widest = lines
        .iter()
        .map(|l| measure(l, TITLE, true) + 24)
        .max()
        .unwrap_or(0);
    (lines, room.max(widest))
}

fn svg_open(out: &mut String, width: i32, height: i32, size: f64, title: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" font-family=\"{FONT_FAMILY}\" font-size=\"{size}\">\n\
         <title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        escape(title)
    );
}

fn title_text(out: &mut String, lines: &[String], width: i32) {
    for (i, line) in lines.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\" font-size=\"{TITLE}\">{}</text>",
            width / 2,
            22 + TITLE_LINE * i as i32,
            escape(line)
        );
    }
}

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
/// The margin kept free at the picture's edges.
const EDGE: i32 = 10;

impl Sequence {
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

    fn crash_caption(text: &str) -> String {
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
        let mut offsets = vec![0; n];
        for i in 1..n {
            offsets[i] = offsets[i - 1] + gaps[i - 1];
        }
        // What is centred on a lifeline: its box, its crash captions, a message to itself.
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

    pub fn to_svg(&self) -> String {
        const ROW: i32 = 38;
        let (xs, content) = self.fitted_layout();
        let (title, width) = title_lines(&self.title, content);
        // Centre the lifelines when the title made the picture wider than its content.
        let shift = (width - content) / 2;
        let x = |i: usize| xs[i] + shift;
        // The room of a text centred on a lifeline: around it, or when that is less than
        // half the picture (a lifeline near the edge in a crowded picture), half the
        // picture, the text then moving off centre to stay inside.
        let centred_room =
            |cx: i32| (2 * (cx - EDGE).min(width - EDGE - cx)).max((width - 2 * EDGE) / 2);
        let centre = |cx: i32, w: i32| cx.min(width - EDGE - (w + 1) / 2).max(EDGE + (w + 1) / 2);
        // Each step's text, wrapped to the room it has: a label between its arrow's ends,
        // a crash caption around its lifeline (kept inside the picture by `centre`), a note or a divider's caption across the
        // picture.
        let lines: Vec<Vec<String>> = self
            .steps
            .iter()
            .map(|step| match step {
                Step::Message {
                    from, to, label, ..
                } if from != to => wrap(
                    label,
                    TEXT,
                    false,
                    (x(*to) - x(*from)).abs() - 2 * LABEL_MARGIN,
                ),
                Step::Message { from, label, .. } => {
                    wrap(label, TEXT, false, centred_room(x(*from)))
                }
                Step::Note { text, .. } => wrap(text, TEXT, false, width - 2 * EDGE - 2 * PADDING),
                Step::Crash { at, text } => {
                    wrap(&Self::crash_caption(text), TEXT, true, centred_room(x(*at)))
                }
                Step::Divider(text) => wrap(text, TEXT, false, width - 2 * EDGE - 4),
            })
            .collect();
        // A row grows upwards by its extra lines: a label stays above its arrow.
        let extra = |n: usize| TEXT_LINE * (lines[n].len() as i32 - 1).max(0);
        let below_title = TITLE_LINE * (title.len() as i32 - 1);
        let top = 70 + below_title;
        let mut ys = Vec::with_capacity(self.steps.len());
        let mut y = top;
        for n in 0..self.steps.len() {
            y += ROW + extra(n);
            ys.push(y);
        }
        let height = y + ROW + 20;
        let mut svg = String::new();
        svg_open(&mut svg, width, height, TEXT, &self.title);
        svg.push_str(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n",
        );
        title_text(&mut svg, &title, width);
        let bottom = height - 20;
        let box_top = 34 + below_title;
        for (i, name) in self.participants.iter().enumerate() {
            let cx = x(i);
            let w = (measure(name, TEXT, false) + 2 * PADDING).max(MIN_BOX);
            let _ = writeln!(
                svg,
                "<rect x=\"{}\" y=\"{box_top}\" width=\"{w}\" height=\"26\" rx=\"4\" fill=\"#eef3fb\" stroke=\"#4a6fa5\"/>\
                 <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>\
                 <line x1=\"{cx}\" y1=\"{}\" x2=\"{cx}\" y2=\"{bottom}\" stroke=\"#999\" stroke-dasharray=\"4 4\"/>",
                cx - w / 2,
                box_top + 18,
                escape(name),
                box_top + 26,
            );
        }
        for (n, step) in self.steps.iter().enumerate() {
            let (y, lines) = (ys[n], &lines[n]);
            match step {
                Step::Message {
                    from,
                    to,
                    label: _,
                    kind,
                } => {
                    let (x1, x2) = (x(*from), x(*to));
                    let (stroke, dash) = match kind {
                        Arrow::Call => ("#333", ""),
                        Arrow::Reply => ("#333", " stroke-dasharray=\"6 4\""),
                        Arrow::Lost => ("#c0392b", " stroke-dasharray=\"6 4\""),
                    };
                    if kind == &Arrow::Lost {
                        let xm = (x1 + x2) / 2;
                        let _ = writeln!(
                            svg,
                            "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{xm}\" y2=\"{y}\" stroke=\"{stroke}\"{dash}/>\
                             <text x=\"{xm}\" y=\"{}\" text-anchor=\"middle\" fill=\"{stroke}\" font-size=\"16\" font-weight=\"bold\">✕</text>",
                            y + 6
                        );
                    } else {
                        let _ = writeln!(
                            svg,
                            "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"{stroke}\"{dash} marker-end=\"url(#arrow)\"/>"
                        );
                    }
                    let cx = centre((x1 + x2) / 2, widest_line(lines, TEXT, false));
                    // A white halo keeps a label readable where it crosses a lifeline.
                    let style = format!(
                        "text-anchor=\"middle\" fill=\"{stroke}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\""
                    );
                    text_lines(&mut svg, lines, cx, y - 6, &style);
                }
                Step::Note { over, .. } => {
                    let w = widest_line(lines, TEXT, false) + 2 * PADDING;
                    // Centred over the participant, but kept inside the picture.
                    let left = (x(*over) - w / 2).clamp(EDGE, (width - w - EDGE).max(EDGE));
                    let _ = write!(
                        svg,
                        "<rect x=\"{left}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"#fff8dc\" stroke=\"#c9a227\"/>",
                        y - 16 - extra(n),
                        24 + extra(n),
                    );
                    text_lines(&mut svg, lines, left + w / 2, y, "text-anchor=\"middle\"");
                }
                Step::Crash { at, .. } => {
                    let cx = centre(x(*at), widest_line(lines, TEXT, true));
                    text_lines(
                        &mut svg,
                        lines,
                        cx,
                        y + 4,
                        "text-anchor=\"middle\" fill=\"#c0392b\" font-weight=\"bold\"",
                    );
                }
                Step::Divider(_) => {
                    let _ = write!(
                        svg,
                        "<line x1=\"{EDGE}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#4a6fa5\" stroke-dasharray=\"2 3\"/>",
                        width - EDGE,
                    );
                    text_lines(
                        &mut svg,
                        lines,
                        EDGE + 4,
                        y - 5,
                        "fill=\"#4a6fa5\" font-style=\"italic\"",
                    );
                }
            }
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// Writes `lines` one `<text>` each, the last on baseline `last_baseline` and the others
/// above it, then ends the line of SVG.
fn text_lines(out: &mut String, lines: &[String], x: i32, last_baseline: i32, style: &str) {
    let above = lines.len() as i32 - 1;
    for (k, line) in lines.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" {style}>{}</text>",
            last_baseline - TEXT_LINE * (above - k as i32),
            escape(line)
        );
    }
    out.push('\n');
}

/// A bar chart: one group of bars per category, one bar per series. The value axis ends
/// on the first round tick at or above the largest value, and a chart of one series has
/// no legend (its title and axis name it). The chart fits [`MAX_WIDTH`]: its groups share
/// the room beside the axis and the legend, and category labels wider than their group
/// wrap (or, when a word is wider still, only every k-th category is labelled).
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    /// (series name, one value per category)
    pub series: Vec<(String, Vec<f64>)>,
}

const PALETTE: [&str; 6] = [
    "#4a6fa5", "#c0392b", "#27ae60", "#8e44ad", "#d68910", "#566573",
];

/// The widths of a chart's groups: each bar, from one bar's start to the next's, a whole
/// group, and the padding between groups.
#[derive(Clone, Copy, Debug)]
struct Groups {
    bar: i32,
    step: i32,
    group: i32,
    pad: i32,
}

/// The category labels as drawn: each one's lines, whether every category or only every
/// k-th is labelled, and the widest line.
#[derive(Clone, Debug)]
struct Labels {
    lines: Vec<Vec<String>>,
    every: usize,
    widest: i32,
}

impl BarChart {
    /// Groups sharing `room` pixels (bars of at most 20 px, narrowing to 1 px with the
    /// gaps between them when there are many), and the category labels for them: on one
    /// line when they fit their group, else wrapped at word boundaries when every word
    /// fits, else only every k-th category labelled so that the labels do not overlap.
    fn groups(&self, room: i32) -> (Groups, Labels) {
        let series = self.series.len().max(1) as i32;
        let categories = self.categories.len().max(1) as i32;
        let most = room / categories;
        let bar = ((most - 10) / series - 4).min(20);
        let groups = if bar >= 3 {
            Groups {
                bar,
                step: bar + 4,
                group: (bar + 4) * series + 10,
                pad: 10,
            }
        } else {
            let bar = ((most - 4) / series - 1).max(1);
            Groups {
                bar,
                step: bar + 1,
                group: (bar + 1) * series + 4,
                pad: 4,
            }
        };
        // A label has its group's width, less a gap to its neighbours.
        let label_room = groups.group - 6;
        let single: Vec<Vec<String>> = self.categories.iter().map(|c| vec![c.clone()]).collect();
        let widest = |lines: &[Vec<String>]| {
            lines
                .iter()
                .map(|l| widest_line(l, CHART_TEXT, false))
                .max()
                .unwrap_or(1)
        };
        let one_line = widest(&single);
        let labels = if one_line <= label_room {
            Labels {
                lines: single,
                every: 1,
                widest: one_line,
            }
        } else {
            let wrapped: Vec<Vec<String>> = self
                .categories
                .iter()
                .map(|c| wrap(c, CHART_TEXT, false, label_room))
                .collect();
            let widest_wrapped = widest(&wrapped);
            if widest_wrapped <= label_room {
                Labels {
                    lines: wrapped,
                    every: 1,
                    widest: widest_wrapped,
                }
            } else {
                Labels {
                    lines: single,
                    every: ((one_line + 6 + groups.group - 1) / groups.group).max(1) as usize,
                    widest: one_line,
                }
            }
        };
        (groups, labels)
    }

    pub fn to_svg(&self) -> String {
        let (top, plot_h) = (50, 260);
        let categories = self.categories.len().max(1) as i32;
        let values: Vec<f64> = self
            .series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        let max = values.iter().copied().fold(0.0_f64, f64::max);
        let whole = values.iter().all(|v| v.fract() == 0.0);
        let (axis_top, tick_step) = axis(max, whole);
        let ticks = (axis_top / tick_step).round() as i32;
        let tick_labels: Vec<String> = (0..=ticks)
            .map(|t| format_value(tick_step * t as f64))
            .collect();
        // Room on the left for the rotated axis name, then the widest tick label.
        let widest_tick = tick_labels
            .iter()
            .map(|l| measure(l, CHART_TEXT, false))
            .max()
            .unwrap_or(0);
        let left = (28 + widest_tick + 8).max(60);
        let legend = if self.series.len() > 1 {
            20 + 18
                + self
                    .series
                    .iter()
                    .map(|(name, _)| measure(name, CHART_TEXT, false))
                    .max()
                    .unwrap_or(0)
        } else {
            0
        };
        // The groups share what the picture has beside the axis and the legend (or the
        // last label's overhang), so that it fits MAX_WIDTH; a roomy chart keeps bars of
        // 20 px. The overhang depends on the groups' width, so it is settled in a few
        // rounds, each only narrowing the groups.
        let mut right = legend;
        let (mut groups, mut labels) = self.groups(MAX_WIDTH - 2 * EDGE - left - right);
        for _ in 0..3 {
            let overhang = ((labels.widest - (groups.group - groups.pad)) / 2).max(0);
            if overhang <= right {
                break;
            }
            right = overhang;
            (groups, labels) = self.groups(MAX_WIDTH - 2 * EDGE - left - right);
        }
        let Groups {
            bar,
            step,
            group,
            pad,
        } = groups;
        let plot_w = group * categories;
        let overhang = ((labels.widest - (group - pad)) / 2).max(0);
        let content = left + plot_w + legend.max(overhang) + 2 * EDGE;
        let (title, width) = title_lines(&self.title, content);
        let below_title = TITLE_LINE * (title.len() as i32 - 1);
        let top = top + below_title;
        let label_lines = labels.lines.iter().map(Vec::len).max().unwrap_or(1).max(1) as i32;
        let height = top + plot_h + 70 + CHART_LINE * (label_lines - 1);
        let mut svg = String::new();
        svg_open(&mut svg, width, height, CHART_TEXT, &self.title);
        title_text(&mut svg, &title, width);
        let base = top + plot_h;
        for (tick, label) in tick_labels.iter().enumerate() {
            let y = base - (plot_h as f64 * tick as f64 / ticks as f64).round() as i32;
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{label}</text>",
                left + plot_w,
                left - 6,
                y + 4,
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {0})\" text-anchor=\"middle\">{}</text>",
            top + plot_h / 2,
            escape(&self.y_label)
        );
        for c in 0..self.categories.len() {
            let gx = left + group * c as i32 + pad / 2;
            for (s, (_, values)) in self.series.iter().enumerate() {
                let value = values.get(c).copied().unwrap_or(0.0);
                let h = (plot_h as f64 * value / axis_top).round() as i32;
                let _ = writeln!(
                    svg,
                    "<rect x=\"{}\" y=\"{}\" width=\"{bar}\" height=\"{h}\" fill=\"{}\"><title>{}</title></rect>",
                    gx + step * s as i32,
                    base - h,
                    PALETTE[s % PALETTE.len()],
                    format_value(value)
                );
            }
            if c % labels.every == 0 {
                for (k, line) in labels.lines[c].iter().enumerate() {
                    let _ = write!(
                        svg,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                        gx + (group - pad) / 2,
                        base + 16 + CHART_LINE * k as i32,
                        escape(line)
                    );
                }
                svg.push('\n');
            }
        }
        if self.series.len() > 1 {
            for (s, (name, _)) in self.series.iter().enumerate() {
                let y = top + 18 * s as i32;
                let _ = writeln!(
                    svg,
                    "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
                    left + plot_w + 20,
                    y,
                    PALETTE[s % PALETTE.len()],
                    left + plot_w + 38,
                    y + 11,
                    escape(name)
                );
            }
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// The value axis for data whose largest value is `max`: the step between ticks (1, 2 or
/// 5 times a power of ten; whole numbers when the data are whole) and the top, the first
/// tick at or above `max`, with at most seven steps. 12 gives 0–12 by 2, 217 gives 0–250
/// by 50.
fn axis(max: f64, whole: bool) -> (f64, f64) {
    const MOST_STEPS: f64 = 7.0;
    if max <= 0.0 {
        return (1.0, if whole { 1.0 } else { 0.25 });
    }
    let mut magnitude = 10f64.powf((max / MOST_STEPS).log10().floor());
    if whole {
        magnitude = magnitude.max(1.0);
    }
    for scale in [1.0, 10.0, 100.0] {
        for m in [1.0, 2.0, 5.0] {
            let step = m * magnitude * scale;
            let steps = (max / step - 1e-9).ceil().max(1.0);
            if steps <= MOST_STEPS {
                return (steps * step, step);
            }
        }
    }
    (max, max)
}

fn format_value(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{value:.0}")
    } else if (value * 10.0 - (value * 10.0).round()).abs() < 1e-9 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// Writes each figure into `dir`, or with `check` compares instead and lists the stale
/// ones. Used by the lab binaries' `figures` command only: crate-private, so that no code
/// linked with the kit (a learner's file among it) can write a file through it.
pub(crate) fn write_or_check(
    dir: &std::path::Path,
    figures: &[(&str, String)],
    check: bool,
) -> Result<(), String> {
    let mut stale = Vec::new();
    for (name, svg) in figures {
        let path = dir.join(name);
        if check {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if &current != svg {
                stale.push(path.display().to_string());
            }
        } else {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "figures out of date (regenerate with `cargo labs bless`): {}",
            stale.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_diagram_draws_every_participant_and_escapes_labels() {
        let svg = Sequence::new("relay", &["app", "db"])
            .call("app", "db", "INSERT <order>")
            .lost("db", "app", "OK")
            .crash("app", "crash")
            .note("db", "row committed")
            .divider("recovery")
            .to_svg();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("INSERT &lt;order&gt;"));
        assert_eq!(svg.matches("<rect x=").count(), 3, "two boxes and one note");
    }

    #[test]
    fn the_value_axis_ends_on_the_first_round_tick_above_the_data() {
        assert_eq!(axis(12.0, true), (12.0, 2.0));
        assert_eq!(axis(217.0, true), (250.0, 50.0));
        assert_eq!(axis(13.0, true), (14.0, 2.0));
        assert_eq!(axis(77.0, true), (80.0, 20.0));
        assert_eq!(axis(400.0, true), (400.0, 100.0));
        assert_eq!(axis(9.0, true), (10.0, 2.0));
        assert_eq!(axis(1.0, true), (1.0, 1.0));
        assert_eq!(axis(1.0, false), (1.0, 0.2));
        let (top, step) = axis(0.28, false);
        assert_eq!(
            (format_value(top), format_value(step)),
            ("0.3".into(), "0.05".into())
        );
    }

    fn chart(series: usize, max: f64) -> BarChart {
        BarChart {
            title: "t".into(),
            y_label: "count".into(),
            categories: vec!["a".into(), "b".into()],
            series: (0..series)
                .map(|s| (format!("series {s}"), vec![max, max / 2.0]))
                .collect(),
        }
    }

    #[test]
    fn a_chart_of_one_series_has_no_legend_and_an_axis_fitted_to_its_data() {
        let one = chart(1, 12.0).to_svg();
        assert!(!one.contains("series 0"), "{one}");
        assert!(
            one.contains(">12</text>") && !one.contains(">20</text>"),
            "{one}"
        );
        let two = chart(2, 217.0).to_svg();
        assert!(two.contains(">series 0</text>") && two.contains(">series 1</text>"));
        assert!(
            two.contains(">250</text>") && !two.contains(">400</text>"),
            "{two}"
        );
    }

    #[test]
    fn a_sequence_diagram_is_as_wide_as_its_text() {
        let title =
            "Recovery by the original identity: intent first, one key, look before resending";
        let label = "charge(S1, key = intent id) after a lost response, same key";
        let svg = Sequence::new(title, &["app", "processor"])
            .call("app", "processor", label)
            .to_svg();
        let viewbox: i32 = svg
            .split("viewBox=\"0 0 ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(viewbox as f64 >= text_width(label, TEXT, false) + 2.0 * EDGE as f64);
        // The title wraps rather than stretching a two-lifeline picture across the page.
        assert!(
            svg.matches("font-weight=\"bold\" font-size=\"15\"").count() >= 2,
            "{svg}"
        );
        for line in svg.lines().filter(|l| l.contains("font-size=\"15\"")) {
            let text = line.split('>').nth(1).unwrap().split('<').next().unwrap();
            assert!(text_width(text, TITLE, true) <= viewbox as f64, "{text}");
        }
    }

    /// One `<text>` element of a picture.
    struct Drawn {
        x: i32,
        y: i32,
        size: f64,
        anchor: String,
        bold: bool,
        content: String,
    }

    impl Drawn {
        /// Its horizontal extent.
        fn extent(&self) -> (f64, f64) {
            let (x, w) = (
                self.x as f64,
                text_width(&self.content, self.size, self.bold),
            );
            match self.anchor.as_str() {
                "middle" => (x - w / 2.0, x + w / 2.0),
                "end" => (x - w, x),
                _ => (x, x + w),
            }
        }
    }

    /// The picture's width and its `<text>` elements but rotated ones.
    fn parse(svg: &str) -> (i32, Vec<Drawn>) {
        let attribute = |tag: &str, name: &str| -> Option<String> {
            let needle = format!(" {name}=\"");
            let start = tag.find(&needle)? + needle.len();
            Some(tag[start..].split('"').next()?.to_string())
        };
        let root = svg.split('>').next().unwrap();
        let width: i32 = attribute(root, "width").unwrap().parse().unwrap();
        let root_size: f64 = attribute(root, "font-size").map_or(TEXT, |s| s.parse().unwrap());
        let texts = svg
            .split("<text")
            .skip(1)
            .filter(|rest| !rest.split('>').next().unwrap().contains("transform"))
            .map(|rest| {
                let (tag, after) = rest.split_once('>').unwrap();
                let content = after.split("</text>").next().unwrap();
                Drawn {
                    x: attribute(tag, "x").unwrap().parse().unwrap(),
                    y: attribute(tag, "y").unwrap().parse().unwrap(),
                    size: attribute(tag, "font-size").map_or(root_size, |s| s.parse().unwrap()),
                    anchor: attribute(tag, "text-anchor").unwrap_or_else(|| "start".into()),
                    bold: attribute(tag, "font-weight").as_deref() == Some("bold"),
                    content: content
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&quot;", "\"")
                        .replace("&amp;", "&"),
                }
            })
            .collect();
        (width, texts)
    }

    #[test]
    fn a_diagram_with_long_labels_fits_the_column_and_draws_every_word() {
        let label =
            "BEGIN; INSERT order S1 with its line items; INSERT intent S1 for the relay; COMMIT";
        let across = "re-read the source range 1000–1002 and compare its fingerprint with the journal's H(A)";
        let back = "lease: owner_epoch 1 → 2 (compare-and-swap on the journal row, or give up)";
        let note = "the journal proves that the same stream, offset and fingerprint were sent before the crash, so the retry is the same append";
        let crash =
            "the writer dies while waiting for the response: A is SENT and its outcome unknown";
        let divider =
            "a new process starts: it reads durable state before any network state, then resumes";
        let single_word = "receive_batch_with_tx";
        let diagram = Sequence::new(
            "Long labels wrap between their lifelines",
            &[
                "source",
                "journal.db",
                "writer",
                "Storage Write API",
                "sink",
            ],
        )
        .call("writer", "journal.db", label)
        .reply("journal.db", "writer", back)
        .call("writer", "source", across)
        .note("Storage Write API", note)
        .crash("source", crash)
        .divider(divider)
        .call("Storage Write API", "sink", single_word)
        .lost("sink", "writer", label);
        let svg = diagram.to_svg();
        let (width, texts) = parse(&svg);
        assert!(width <= MAX_WIDTH, "{width} px wide:\n{svg}");
        // Every text inside the picture.
        for text in &texts {
            let (left, right) = text.extent();
            assert!(
                left >= 0.0 && right <= width as f64,
                "`{}` spans {left}…{right} of {width}",
                text.content
            );
        }
        // Every word of every text drawn, in order: a wrapped text's lines are
        // consecutive elements, so the drawn lines joined by spaces hold it whole.
        let drawn: Vec<&str> = texts.iter().map(|t| t.content.as_str()).collect();
        let drawn = drawn.join(" ");
        for text in [label, across, back, note, divider, single_word] {
            assert!(drawn.contains(text), "`{text}` not drawn whole in:\n{svg}");
        }
        assert!(drawn.contains(&Sequence::crash_caption(crash)), "{svg}");
        assert!(!texts.iter().any(|t| t.content == label), "it wraps: {svg}");
        // A label's lines fit between its arrow's ends and stay above the arrow, below
        // the arrow before: a row grows with its label's lines.
        let lines: Vec<&str> = svg.lines().collect();
        let (mut arrows, mut arrow_before) = (0, 0);
        for (n, line) in lines.iter().enumerate() {
            if !(line.starts_with("<line x1=") && line.contains("marker-end")) {
                continue;
            }
            arrows += 1;
            let (_, texts_of_row) = parse(&format!("<svg width=\"{width}\">{}", lines[n + 1]));
            let number = |name: &str| -> i32 {
                let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                line[start..].split('"').next().unwrap().parse().unwrap()
            };
            let (x1, x2, y) = (number("x1"), number("x2"), number("y1"));
            for text in &texts_of_row {
                let (left, right) = text.extent();
                assert!(
                    left >= x1.min(x2) as f64 && right <= x1.max(x2) as f64,
                    "`{}` ({left}…{right}) runs past its arrow ({x1}…{x2})",
                    text.content
                );
                assert!(
                    text.y < y && text.y as f64 - text.size > arrow_before as f64,
                    "`{}` is not between its arrow and the one before",
                    text.content
                );
            }
            assert!(texts_of_row.len() > 1 || texts_of_row[0].content == single_word);
            arrow_before = y;
        }
        assert_eq!(arrows, 4, "{svg}");
        // Binding symbols keep their neighbours: no line starts or ends with an arrow.
        for text in &texts {
            assert!(
                !text.content.starts_with('→') && !text.content.ends_with('→'),
                "{}",
                text.content
            );
        }
    }

    #[test]
    fn a_short_diagram_is_drawn_as_before_on_one_line_per_label() {
        let svg = Sequence::new("short", &["app", "db"])
            .call("app", "db", "INSERT order")
            .reply("db", "app", "OK")
            .to_svg();
        let (width, texts) = parse(&svg);
        assert!(width < MAX_WIDTH);
        // The title, two boxes and two labels: nothing wraps.
        assert_eq!(texts.len(), 5, "{svg}");
        assert!(svg.contains("height=\"204\""), "{svg}");
    }

    #[test]
    fn wrapping_evens_out_lines_and_keeps_words_whole() {
        let text = "UPDATE outbox SET sent = 1 WHERE id = 'S1'";
        let lines = wrap(text, TEXT, false, 200);
        assert_eq!(lines.join(" "), text);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines.iter().all(|l| measure(l, TEXT, false) <= 200));
        assert!(!lines.iter().any(|l| l.ends_with('=') || l.starts_with('=')));
        // Even lines: the first is not a full line above a single word.
        let widths: Vec<i32> = lines.iter().map(|l| measure(l, TEXT, false)).collect();
        assert!((widths[0] - widths[1]).abs() < 80, "{lines:?}");
        // A word wider than the room stays whole on a line of its own.
        assert_eq!(
            wrap("a verylongword b", TEXT, false, 20),
            ["a", "verylongword", "b"]
        );
        assert_eq!(wrap("fits", TEXT, false, 200), ["fits"]);
        assert_eq!(
            words("⚡ dies waiting: A → B"),
            ["⚡ dies", "waiting:", "A → B"]
        );
    }

    #[test]
    fn a_chart_of_many_categories_and_series_fits_the_column() {
        let chart = BarChart {
            title: "Live writes per split across every design of the observe phase".into(),
            y_label: "writes".into(),
            categories: (1..=12).map(|s| format!("split {s}")).collect(),
            series: (0..5)
                .map(|s| {
                    (
                        format!("design number {s} of five"),
                        (0..12).map(|c| (c * s) as f64).collect(),
                    )
                })
                .collect(),
        };
        let svg = chart.to_svg();
        let (width, texts) = parse(&svg);
        assert!(width <= MAX_WIDTH, "{width}:\n{svg}");
        for text in &texts {
            let (left, right) = text.extent();
            assert!(
                left >= 0.0 && right <= width as f64,
                "{}: {left}…{right}",
                text.content
            );
        }
        // The category labels wrap under their groups rather than overlap.
        let drawn: Vec<&str> = texts.iter().map(|t| t.content.as_str()).collect();
        let drawn = drawn.join(" ");
        for s in 1..=12 {
            assert!(drawn.contains(&format!("split {s}")), "{drawn}");
        }
        assert!(texts.iter().any(|t| t.content == "split"), "{drawn}");
    }

    #[test]
    fn bar_heights_are_proportional_to_values() {
        let chart = BarChart {
            title: "t".into(),
            y_label: "share".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![("s".into(), vec![1.0, 0.5])],
        };
        let svg = chart.to_svg();
        assert!(svg.contains("height=\"260\""));
        assert!(svg.contains("height=\"130\""));
    }
}
