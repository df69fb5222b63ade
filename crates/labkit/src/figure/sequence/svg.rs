//! Drawing a [`Sequence`] as SVG: the wrapped text of each step, the rows that grow with
//! it, the participants' boxes and lifelines, and each step.

use super::{Arrow, LABEL_MARGIN, MIN_BOX, PADDING, Sequence, Step};
use crate::figure::{
    EDGE, TEXT, TEXT_LINE, TITLE_LINE, escape, measure, svg_open, text_lines, title_lines,
    title_text, widest_line, wrap,
};
use std::fmt::Write;

impl Sequence {
    /// The diagram as a standalone SVG document, sized to its text.
    pub fn to_svg(&self) -> String {
        const ROW: i32 = 38;
        let (xs, content) = self.fitted_layout();
        let (title, width) = title_lines(&self.title, content);
        // Centre the lifelines when the title made the picture wider than its content.
        let shift = (width - content) / 2;
        let frame = Frame {
            xs: xs.iter().map(|x| x + shift).collect(),
            width,
        };
        let lines: Vec<Vec<String>> = self.steps.iter().map(|step| frame.wrap(step)).collect();
        // A row grows upwards by its extra lines: a label stays above its arrow.
        let extra: Vec<i32> = lines
            .iter()
            .map(|lines| TEXT_LINE * (lines.len() as i32 - 1).max(0))
            .collect();
        let below_title = TITLE_LINE * (title.len() as i32 - 1);
        let top = 70 + below_title;
        let mut ys = Vec::with_capacity(self.steps.len());
        let mut y = top;
        for extra in &extra {
            y += ROW + extra;
            ys.push(y);
        }
        let height = y + ROW + 20;
        let mut svg = String::new();
        svg_open(&mut svg, width, height, TEXT, &self.title);
        svg.push_str(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n",
        );
        title_text(&mut svg, &title, width);
        self.participants_svg(&mut svg, &frame, 34 + below_title, height - 20);
        for (n, step) in self.steps.iter().enumerate() {
            frame.step(&mut svg, step, ys[n], &lines[n], extra[n]);
        }
        svg.push_str("</svg>\n");
        svg
    }

    /// Each participant's box, from `box_top`, and its lifeline down to `bottom`.
    fn participants_svg(&self, svg: &mut String, frame: &Frame, box_top: i32, bottom: i32) {
        for (i, name) in self.participants.iter().enumerate() {
            let cx = frame.xs[i];
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
    }
}

/// The lifelines as placed in the picture (`xs`, centred under the title) and the
/// picture's width: where each step's text goes and how much room it has.
struct Frame {
    xs: Vec<i32>,
    width: i32,
}

impl Frame {
    /// The room of a text centred on a lifeline: around it, or when that is less than
    /// half the picture (a lifeline near the edge in a crowded picture), half the
    /// picture, the text then moving off centre to stay inside.
    fn centred_room(&self, cx: i32) -> i32 {
        (2 * (cx - EDGE).min(self.width - EDGE - cx)).max((self.width - 2 * EDGE) / 2)
    }

    /// Where a text `w` pixels wide centred on `cx` goes: there, or as near as keeps it
    /// inside the picture.
    fn centre(&self, cx: i32, w: i32) -> i32 {
        cx.min(self.width - EDGE - (w + 1) / 2)
            .max(EDGE + (w + 1) / 2)
    }

    /// A step's text, wrapped to the room it has: a label between its arrow's ends, a
    /// crash caption around its lifeline (kept inside the picture by `centre`), a note or
    /// a divider's caption across the picture.
    fn wrap(&self, step: &Step) -> Vec<String> {
        let (x, width) = (&self.xs, self.width);
        match step {
            Step::Message {
                from, to, label, ..
            } if from != to => wrap(
                label,
                TEXT,
                false,
                (x[*to] - x[*from]).abs() - 2 * LABEL_MARGIN,
            ),
            Step::Message { from, label, .. } => {
                wrap(label, TEXT, false, self.centred_room(x[*from]))
            }
            Step::Note { text, .. } => wrap(text, TEXT, false, width - 2 * EDGE - 2 * PADDING),
            Step::Crash { at, text } => wrap(
                &Sequence::crash_caption(text),
                TEXT,
                true,
                self.centred_room(x[*at]),
            ),
            Step::Divider(text) => wrap(text, TEXT, false, width - 2 * EDGE - 4),
        }
    }

    /// Draws one step on row `y` with its wrapped `lines` (`extra` pixels above one line).
    fn step(&self, svg: &mut String, step: &Step, y: i32, lines: &[String], extra: i32) {
        match step {
            Step::Message { from, to, kind, .. } => {
                self.message(svg, (*from, *to), *kind, y, lines)
            }
            Step::Note { over, .. } => {
                let w = widest_line(lines, TEXT, false) + 2 * PADDING;
                // Centred over the participant, but kept inside the picture.
                let left = (self.xs[*over] - w / 2).clamp(EDGE, (self.width - w - EDGE).max(EDGE));
                let _ = write!(
                    svg,
                    "<rect x=\"{left}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"#fff8dc\" stroke=\"#c9a227\"/>",
                    y - 16 - extra,
                    24 + extra,
                );
                text_lines(svg, lines, left + w / 2, y, "text-anchor=\"middle\"");
            }
            Step::Crash { at, .. } => {
                let cx = self.centre(self.xs[*at], widest_line(lines, TEXT, true));
                text_lines(
                    svg,
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
                    self.width - EDGE,
                );
                text_lines(
                    svg,
                    lines,
                    EDGE + 4,
                    y - 5,
                    "fill=\"#4a6fa5\" font-style=\"italic\"",
                );
            }
        }
    }

    /// An arrow between two lifelines on row `y` (a lost one ends in a cross halfway),
    /// with its label above it.
    fn message(
        &self,
        svg: &mut String,
        (from, to): (usize, usize),
        kind: Arrow,
        y: i32,
        lines: &[String],
    ) {
        let (x1, x2) = (self.xs[from], self.xs[to]);
        let (stroke, dash) = match kind {
            Arrow::Call => ("#333", ""),
            Arrow::Reply => ("#333", " stroke-dasharray=\"6 4\""),
            Arrow::Lost => ("#c0392b", " stroke-dasharray=\"6 4\""),
        };
        if kind == Arrow::Lost {
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
        let cx = self.centre((x1 + x2) / 2, widest_line(lines, TEXT, false));
        // A white halo keeps a label readable where it crosses a lifeline.
        let style = format!(
            "text-anchor=\"middle\" fill=\"{stroke}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\""
        );
        text_lines(svg, lines, cx, y - 6, &style);
    }
}
