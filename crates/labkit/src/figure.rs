//! Figures for the book, drawn by code so they cannot drift from the labs: sequence
//! diagrams of protocols and bar charts of measured values, as standalone SVG.
//!
//! A lab lists its figures in a `figures()` function; its binary writes them with
//! `figures DIR` and the consistency gate checks them with `figures DIR --check`.

use std::fmt::Write;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const FONT: &str = "font-family=\"ui-sans-serif, system-ui, sans-serif\"";

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

/// A sequence diagram: participants across the top, one step per row.
#[derive(Clone, Debug)]
pub struct Sequence {
    title: String,
    participants: Vec<String>,
    steps: Vec<Step>,
}

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

    pub fn to_svg(&self) -> String {
        let column = 190;
        let row = 38;
        let top = 70;
        let width = column * self.participants.len() as i32 + 40;
        let height = top + row * (self.steps.len() as i32 + 1) + 20;
        let x = |i: usize| 20 + column / 2 + column * i as i32;
        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" {FONT} font-size=\"13\">\n\
             <title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n\
             <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-weight=\"bold\" font-size=\"15\">{}</text>\n",
            escape(&self.title),
            width / 2,
            escape(&self.title)
        );
        let bottom = height - 20;
        for (i, name) in self.participants.iter().enumerate() {
            let cx = x(i);
            let _ = writeln!(
                svg,
                "<rect x=\"{}\" y=\"34\" width=\"{}\" height=\"26\" rx=\"4\" fill=\"#eef3fb\" stroke=\"#4a6fa5\"/>\
                 <text x=\"{cx}\" y=\"52\" text-anchor=\"middle\">{}</text>\
                 <line x1=\"{cx}\" y1=\"60\" x2=\"{cx}\" y2=\"{bottom}\" stroke=\"#999\" stroke-dasharray=\"4 4\"/>",
                cx - column / 2 + 12,
                column - 24,
                escape(name)
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
                    let w = (text.chars().count() as i32 * 15 / 2 + 24).max(60);
                    // Centred over the participant, but kept inside the picture.
                    let left = (x(*over) - w / 2).clamp(4, (width - w - 4).max(4));
                    let cx = left + w / 2;
                    let _ = writeln!(
                        svg,
                        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"24\" fill=\"#fff8dc\" stroke=\"#c9a227\"/>\
                         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                        left,
                        y - 16,
                        y,
                        escape(text)
                    );
                }
                Step::Crash { at, text } => {
                    let cx = x(*at);
                    let _ = writeln!(
                        svg,
                        "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" fill=\"#c0392b\" font-weight=\"bold\">⚡ {}</text>",
                        y + 4,
                        escape(text)
                    );
                }
                Step::Divider(text) => {
                    let _ = writeln!(
                        svg,
                        "<line x1=\"10\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#4a6fa5\" stroke-dasharray=\"2 3\"/>\
                         <text x=\"14\" y=\"{}\" fill=\"#4a6fa5\" font-style=\"italic\">{}</text>",
                        width - 10,
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

/// A bar chart: one group of bars per category, one bar per series.
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
        let (left, top, plot_h) = (70, 50, 260);
        // Bars narrow (down to 4 px) so that many categories still fit about 720 px: a
        // wider picture would be scaled down on the page until its labels are unreadable.
        let series = self.series.len().max(1) as i32;
        let categories = self.categories.len().max(1) as i32;
        let bar = ((720 / categories - 10) / series - 4).clamp(4, 20);
        let step = bar + 4;
        let group = step * series + 10;
        let plot_w = group * categories;
        // Label every k-th category when the labels would overlap.
        let widest = self
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(1) as i32;
        let label_every = ((widest * 7 + 6) / group + 1).max(1) as usize;
        let width = left + plot_w + 180;
        let height = top + plot_h + 70;
        let max = self
            .series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0_f64, f64::max)
            .max(1e-9);
        let max = nice_axis_top(max);
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" {FONT} font-size=\"12\">\n\
             <title>{0}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{1}\" y=\"22\" text-anchor=\"middle\" font-weight=\"bold\" font-size=\"15\">{0}</text>",
            escape(&self.title),
            width / 2
        );
        let base = top + plot_h;
        for tick in 0..=4 {
            let value = max * tick as f64 / 4.0;
            let y = base - (plot_h as f64 * tick as f64 / 4.0) as i32;
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                left + plot_w,
                left - 6,
                y + 4,
                format_value(value)
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {0})\" text-anchor=\"middle\">{}</text>",
            top + plot_h / 2,
            escape(&self.y_label)
        );
        for (c, category) in self.categories.iter().enumerate() {
            let gx = left + group * c as i32 + 5;
            for (s, (_, values)) in self.series.iter().enumerate() {
                let value = values.get(c).copied().unwrap_or(0.0);
                let h = (plot_h as f64 * value / max).round() as i32;
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
        svg.push_str("</svg>\n");
        svg
    }
}

/// The top of a value axis with four ticks: four times a round step (1, 2, 2.5 or 5 times a
/// power of ten), so the tick labels are round numbers.
fn nice_axis_top(max: f64) -> f64 {
    let raw_step = max / 4.0;
    let magnitude = 10f64.powf(raw_step.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= raw_step - 1e-9)
        .unwrap_or(10.0 * magnitude);
    step * 4.0
}

fn format_value(value: f64) -> String {
    if value.fract().abs() < 1e-9 {
        format!("{value:.0}")
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
    fn the_value_axis_ends_on_a_round_number() {
        assert_eq!(nice_axis_top(77.0), 80.0);
        assert_eq!(nice_axis_top(400.0), 400.0);
        assert_eq!(nice_axis_top(0.28), 0.4);
        assert_eq!(nice_axis_top(9.0), 10.0);
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
