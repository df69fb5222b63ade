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
/// A title wider than its picture wraps at the picture's width, or at this width when
/// the picture is narrower (a narrow chart does not stretch for its title).
const TITLE_WRAP: i32 = 640;

fn measure(text: &str, size: f64, bold: bool) -> i32 {
    text_width(text, size, bold).ceil() as i32
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
/// margin is sized to the text it holds (measured with [`crate::font`]).
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

    /// The x of each lifeline and the picture's width: the gaps between lifelines grow
    /// until every message's label fits between its ends, and the margins until every
    /// box and crash caption centred on a lifeline fits inside the picture.
    fn layout(&self) -> (Vec<i32>, i32) {
        let n = self.participants.len().max(1);
        let boxes: Vec<i32> = self
            .participants
            .iter()
            .map(|p| (measure(p, TEXT, false) + 2 * PADDING).max(MIN_BOX))
            .collect();
        let mut gaps: Vec<i32> = (0..n - 1)
            .map(|i| ((boxes[i] + boxes[i + 1]) / 2 + 2 * EDGE).max(MIN_GAP))
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
                    measure(label, TEXT, false) + 2 * LABEL_MARGIN,
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
                    centred.push((*at, measure(&Self::crash_caption(text), TEXT, true)))
                }
                Step::Message {
                    from, to, label, ..
                } if from == to => centred.push((*from, measure(label, TEXT, false))),
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
                    right = right.max(measure(text, TEXT, false) + 2 * PADDING + 2 * EDGE)
                }
                Step::Divider(text) => {
                    right = right.max(EDGE + 4 + measure(text, TEXT, false) + EDGE)
                }
                _ => {}
            }
        }
        (xs, right)
    }

    pub fn to_svg(&self) -> String {
        let row = 38;
        let (xs, content) = self.layout();
        let (title, width) = title_lines(&self.title, content);
        // Centre the lifelines when the title made the picture wider than its content.
        let shift = (width - content) / 2;
        let x = |i: usize| xs[i] + shift;
        let below_title = TITLE_LINE * (title.len() as i32 - 1);
        let top = 70 + below_title;
        let height = top + row * (self.steps.len() as i32 + 1) + 20;
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
            let y = top + row * (n as i32 + 1);
            match step {
                Step::Message {
                    from,
                    to,
                    label,
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
                    let _ = writeln!(
                        svg,
                        // A white halo keeps a label readable where it crosses a lifeline.
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{stroke}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\">{}</text>",
                        (x1 + x2) / 2,
                        y - 6,
                        escape(label)
                    );
                }
                Step::Note { over, text } => {
                    let w = measure(text, TEXT, false) + 2 * PADDING;
                    // Centred over the participant, but kept inside the picture.
                    let left = (x(*over) - w / 2).clamp(EDGE, (width - w - EDGE).max(EDGE));
                    let _ = writeln!(
                        svg,
                        "<rect x=\"{left}\" y=\"{}\" width=\"{w}\" height=\"24\" fill=\"#fff8dc\" stroke=\"#c9a227\"/>\
                         <text x=\"{}\" y=\"{y}\" text-anchor=\"middle\">{}</text>",
                        y - 16,
                        left + w / 2,
                        escape(text)
                    );
                }
                Step::Crash { at, text } => {
                    let _ = writeln!(
                        svg,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#c0392b\" font-weight=\"bold\">{}</text>",
                        x(*at),
                        y + 4,
                        escape(&Self::crash_caption(text))
                    );
                }
                Step::Divider(text) => {
                    let _ = writeln!(
                        svg,
                        "<line x1=\"{EDGE}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#4a6fa5\" stroke-dasharray=\"2 3\"/>\
                         <text x=\"{}\" y=\"{}\" fill=\"#4a6fa5\" font-style=\"italic\">{}</text>",
                        width - EDGE,
                        EDGE + 4,
                        y - 5,
                        escape(text)
                    );
                }
            }
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// A bar chart: one group of bars per category, one bar per series. The value axis ends
/// on the first round tick at or above the largest value, and a chart of one series has
/// no legend (its title and axis name it).
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

impl BarChart {
    pub fn to_svg(&self) -> String {
        let (top, plot_h) = (50, 260);
        // Bars narrow (down to 4 px) so that many categories still fit about 720 px: a
        // wider picture would be scaled down on the page until its labels are unreadable.
        let series = self.series.len().max(1) as i32;
        let categories = self.categories.len().max(1) as i32;
        let bar = ((720 / categories - 10) / series - 4).clamp(4, 20);
        let step = bar + 4;
        let group = step * series + 10;
        let plot_w = group * categories;
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
        // Label every k-th category when the labels would overlap.
        let widest = self
            .categories
            .iter()
            .map(|c| measure(c, CHART_TEXT, false))
            .max()
            .unwrap_or(1);
        let label_every = ((widest + 6 + group - 1) / group).max(1) as usize;
        let overhang = ((widest - (group - 10)) / 2).max(0);
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
        let content = left + plot_w + legend.max(overhang) + 2 * EDGE;
        let (title, width) = title_lines(&self.title, content);
        let below_title = TITLE_LINE * (title.len() as i32 - 1);
        let top = top + below_title;
        let height = top + plot_h + 70;
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
        for (c, category) in self.categories.iter().enumerate() {
            let gx = left + group * c as i32 + 5;
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
            if c % label_every == 0 {
                let _ = writeln!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    gx + (group - 10) / 2,
                    base + 16,
                    escape(category)
                );
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
/// ones. Used by the lab binaries' `figures` command.
pub fn write_or_check(
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
            "figures out of date (regenerate with `cargo labs figures`): {}",
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
