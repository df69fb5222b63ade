//! The report's charts, as inline SVG: the class at a glance (a heat map), each item's
//! answers (bars per option, sealed and now), each lab's graded tests (pass rates). Every
//! chart names both axes (`class="axis-label x"` and `"axis-label y"`), is at most
//! [`WIDTH`] wide (the page's column), and sizes its text with DejaVu Sans's metrics
//! (`labkit::font`), truncating a label that would not fit.

use super::model::*;
use crate::grade::LabStatus;
use labkit::font::{FONT_FAMILY, text_width};

/// The widest chart: the page's column (46rem at 16 px, less a little).
pub const WIDTH: f64 = 720.0;

pub fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `text`, cut with `…` to fit `width` at `size`.
pub fn fit(text: &str, size: f64, width: f64) -> String {
    if text_width(text, size, false) <= width {
        return text.to_string();
    }
    let mut cut: String = text.to_string();
    while !cut.is_empty() && text_width(&format!("{cut}…"), size, false) > width {
        cut.pop();
    }
    format!("{cut}…")
}

/// `text` cut in its middle with `…` to fit `width` at `size`: for names, whose ends
/// tell them apart (`ann-lab-folder-1`, `ann-lab-folder-2`).
pub fn fit_middle(text: &str, size: f64, width: f64) -> String {
    if text_width(text, size, false) <= width {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut head, mut tail) = (chars.len() / 2, chars.len() - chars.len() / 2);
    loop {
        let shown: String = chars[..head]
            .iter()
            .chain(['…'].iter())
            .chain(&chars[chars.len() - tail..])
            .collect();
        if text_width(&shown, size, false) <= width || head + tail == 0 {
            return shown;
        }
        if head >= tail {
            head -= 1;
        } else {
            tail -= 1;
        }
    }
}

/// Points that fit a cell `width` wide at `size`: with a decimal if they fit, rounded if
/// not.
fn cell_points(value: f64, size: f64, width: f64) -> String {
    let exact = points(value);
    if text_width(&exact, size, false) <= width {
        return exact;
    }
    fit(&format!("{:.0}", value.round()), size, width)
}

fn open(width: f64, height: f64, label: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"{FONT_FAMILY}\" font-size=\"12\" aria-label=\"{}\"><title>{}</title>",
        esc(label),
        esc(label)
    )
}

fn text(x: f64, y: f64, anchor: &str, size: f64, extra: &str, content: &str) -> String {
    format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" font-size=\"{size}\"{extra}>{}</text>",
        esc(content)
    )
}

fn x_axis_label(x: f64, y: f64, content: &str) -> String {
    text(x, y, "middle", 12.0, " class=\"axis-label x\"", content)
}

fn y_axis_label(x: f64, y: f64, content: &str) -> String {
    format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" font-size=\"12\" class=\"axis-label y\" transform=\"rotate(-90 {x:.1} {y:.1})\">{}</text>",
        esc(content)
    )
}

fn rect(x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) -> String {
    match tip {
        Some(tip) => format!(
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\"><title>{}</title></rect>",
            esc(tip)
        ),
        None => format!(
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\"/>"
        ),
    }
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> String {
    format!(
        "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#555\" stroke-width=\"1\"/>"
    )
}

/// A share from 0 to 1 as a fill: from pale to deep blue, one hue, so it prints in grey.
pub fn scale(share: f64) -> String {
    let t = share.clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(241.0, 30.0),
        mix(245.0, 64.0),
        mix(249.0, 175.0)
    )
}

fn ink_on(share: f64) -> &'static str {
    if share > 0.55 { "#fff" } else { "#111" }
}

/// Points as short as they read: `17.5`, `20`, `3.33` → `3.3`.
fn points(value: f64) -> String {
    let tenths = (value * 10.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
    }
}

/// The letter a heat-map cell shows for a lab without a graded run.
pub fn status_code(status: LabStatus) -> Option<&'static str> {
    match status {
        LabStatus::Graded => None,
        LabStatus::DidNotCompile => Some("C"),
        LabStatus::BuildCapped => Some("B"),
        LabStatus::Refused => Some("R"),
        LabStatus::NotAWorkbook => Some("W"),
        LabStatus::GraderFault => Some("E"),
        LabStatus::BrokenMetadata => Some("M"),
    }
}

/// The class at a glance: a row per learner, two cells per lab (graded points and
/// prediction points, shaded by the share of the lab's points earned), and the
/// learner's integrity notes.
pub fn heat_map(labs: &[LabInfo], rows: &[GlanceRow]) -> String {
    const TOP: f64 = 52.0;
    const ROW: f64 = 18.0;
    const NAME_LEFT: f64 = 24.0;
    const NAME_W: f64 = 150.0;
    const NOTES_W: f64 = 64.0;
    let x0 = NAME_LEFT + NAME_W + 6.0;
    let n = labs.len().max(1) as f64;
    let lab_w = ((WIDTH - x0 - NOTES_W - 8.0) / n).floor().min(72.0);
    let cell_w = (lab_w - 4.0) / 2.0;
    let notes_x = x0 + lab_w * n + 8.0;
    let legend_y = TOP + ROW * rows.len() as f64 + 16.0;
    let height = legend_y + 40.0;
    let mut out = open(
        WIDTH,
        height,
        "The class at a glance: graded and prediction points per learner and lab",
    );
    out += &x_axis_label(
        x0 + lab_w * n / 2.0,
        14.0,
        "lab (G: graded points, P: prediction points)",
    );
    out += &y_axis_label(14.0, TOP + ROW * rows.len() as f64 / 2.0, "learner");
    out += &text(
        notes_x + NOTES_W / 2.0,
        30.0,
        "middle",
        11.0,
        "",
        "integrity",
    );
    out += &text(notes_x + NOTES_W / 2.0, 44.0, "middle", 10.0, "", "notes");
    for (j, lab) in labs.iter().enumerate() {
        let left = x0 + lab_w * j as f64;
        out += &text(
            left + lab_w / 2.0 - 1.0,
            30.0,
            "middle",
            11.0,
            " font-weight=\"bold\"",
            &lab.number,
        );
        out += &text(left + cell_w / 2.0, 44.0, "middle", 10.0, "", "G");
        out += &text(left + cell_w * 1.5 + 2.0, 44.0, "middle", 10.0, "", "P");
    }
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let mid = y + ROW / 2.0 + 4.0;
        out += &format!(
            "<text x=\"{:.1}\" y=\"{mid:.1}\" text-anchor=\"end\" font-size=\"12\"><title>{}</title>{}</text>",
            NAME_LEFT + NAME_W,
            esc(&row.learner),
            esc(&fit_middle(&row.learner, 12.0, NAME_W - 4.0))
        );
        for (j, cell) in row.cells.iter().enumerate() {
            let left = x0 + lab_w * j as f64;
            let Some(cell) = cell else {
                out += &text(
                    left + lab_w / 2.0,
                    mid,
                    "middle",
                    10.0,
                    " fill=\"#777\"",
                    "–",
                );
                continue;
            };
            let lab = &labs[j].number;
            // Graded points, or why there are none.
            match status_code(cell.status) {
                Some(code) => {
                    let fill = if cell.status.is_grader_fault() {
                        "#fde68a"
                    } else {
                        "#d4d4d4"
                    };
                    let tip = format!("{}, lab {lab}: {}", row.learner, cell.status.words());
                    out += &rect(left, y + 1.0, cell_w, ROW - 2.0, fill, Some(&tip));
                    out += &text(
                        left + cell_w / 2.0,
                        mid,
                        "middle",
                        10.0,
                        " font-weight=\"bold\"",
                        code,
                    );
                }
                None => {
                    let share = cell.graded / cell.max_graded.max(f64::MIN_POSITIVE);
                    let tip = format!(
                        "{}, lab {lab}: graded {} of {}",
                        row.learner, cell.graded, cell.max_graded
                    );
                    out += &rect(left, y + 1.0, cell_w, ROW - 2.0, &scale(share), Some(&tip));
                    let shown = cell_points(cell.graded, 9.0, cell_w - 1.0);
                    out += &text(
                        left + cell_w / 2.0,
                        mid,
                        "middle",
                        9.0,
                        &format!(" fill=\"{}\"", ink_on(share)),
                        &shown,
                    );
                }
            }
            let share = cell.predictions / cell.max_predictions.max(f64::MIN_POSITIVE);
            let tip = format!(
                "{}, lab {lab}: predictions {} of {} ({:?})",
                row.learner, cell.predictions, cell.max_predictions, cell.mode
            );
            let px = left + cell_w + 2.0;
            out += &rect(px, y + 1.0, cell_w, ROW - 2.0, &scale(share), Some(&tip));
            let shown = cell_points(cell.predictions, 9.0, cell_w - 1.0);
            out += &text(
                px + cell_w / 2.0,
                mid,
                "middle",
                9.0,
                &format!(" fill=\"{}\"", ink_on(share)),
                &shown,
            );
        }
        let notes = &row.notes;
        if notes.total() > 0 {
            let fill = match notes.worst() {
                Some(crate::grade::Severity::Serious) => "#fecaca",
                Some(crate::grade::Severity::Review) => "#fde68a",
                _ => "#e5e7eb",
            };
            let mut words = Vec::new();
            for (count, letter) in [(notes.serious, "S"), (notes.review, "R"), (notes.info, "I")] {
                if count > 0 {
                    words.push(format!("{letter}{count}"));
                }
            }
            let tip = format!(
                "{}: {} serious, {} review, {} info",
                row.learner, notes.serious, notes.review, notes.info
            );
            out += &rect(notes_x, y + 1.0, NOTES_W, ROW - 2.0, fill, Some(&tip));
            out += &text(
                notes_x + NOTES_W / 2.0,
                mid,
                "middle",
                10.0,
                "",
                &fit(&words.join(" "), 10.0, NOTES_W - 2.0),
            );
        }
    }
    // The shading's legend.
    out += &text(
        x0,
        legend_y + 4.0,
        "start",
        10.0,
        "",
        "share of the lab's points:",
    );
    let legend_x = x0 + text_width("share of the lab's points:", 10.0, false) + 8.0;
    for (k, share) in [0.0, 0.25, 0.5, 0.75, 1.0].iter().enumerate() {
        let x = legend_x + 44.0 * k as f64;
        out += &rect(x, legend_y - 8.0, 40.0, 16.0, &scale(*share), None);
        out += &text(
            x + 20.0,
            legend_y + 4.0,
            "middle",
            9.0,
            &format!(" fill=\"{}\"", ink_on(*share)),
            &format!("{:.0} %", share * 100.0),
        );
    }
    out += &text(
        x0,
        legend_y + 26.0,
        "start",
        10.0,
        "",
        "C, B: did not build (learner's code); R refused; W not a workbook; E, M: the grader's",
    );
    out += "</svg>";
    out
}

/// One item's answers: a bar per option, its length the share of the learners who sealed
/// that answer; with a second, lighter bar for the same learners' answers now when
/// anyone changed this item after the seal. The right answer's bars are green.
pub fn item_chart(item: &ItemReport) -> String {
    const LEFT: f64 = 74.0;
    const PLOT_W: f64 = 470.0;
    const TOP: f64 = 8.0;
    let shifted = item.shift.is_some();
    let band = if shifted { 30.0 } else { 20.0 };
    let rows = item.options.len() as f64;
    let axis_y = TOP + band * rows + 4.0;
    let height = axis_y + 36.0;
    let whole = item.answered.max(1) as f64;
    let mut out = open(
        WIDTH,
        height,
        &format!("Item {}: the class's answers", item.number),
    );
    out += &y_axis_label(14.0, TOP + band * rows / 2.0, "answer");
    for (k, option) in item.options.iter().enumerate() {
        let y = TOP + band * k as f64;
        let label = if option.answer.len() == 1 {
            format!("({})", option.answer)
        } else {
            option.answer.clone()
        };
        let weight = if option.right {
            " font-weight=\"bold\""
        } else {
            ""
        };
        out += &text(LEFT - 8.0, y + 13.0, "end", 12.0, weight, &label);
        let (dark, light) = if option.right {
            ("#15803d", "#86efac")
        } else {
            ("#475569", "#cbd5e1")
        };
        let w = PLOT_W * option.sealed as f64 / whole;
        let tip = format!("{label}: {} sealed", option.sealed);
        out += &rect(LEFT, y + 3.0, w.max(0.5), 13.0, dark, Some(&tip));
        let percent = 100.0 * option.sealed as f64 / whole;
        let mut note = format!("{} ({percent:.0} %)", option.sealed);
        if option.right {
            note.push_str(" · right");
        }
        out += &text(LEFT + w + 6.0, y + 14.0, "start", 11.0, weight, &note);
        if shifted {
            let w_now = PLOT_W * option.current as f64 / whole;
            let tip = format!("{label}: {} now", option.current);
            out += &rect(LEFT, y + 18.0, w_now.max(0.5), 8.0, light, Some(&tip));
            out += &text(
                LEFT + w_now + 6.0,
                y + 26.0,
                "start",
                9.0,
                "",
                &format!("now {}", option.current),
            );
        }
    }
    out += &line(LEFT, TOP, LEFT, axis_y);
    out += &line(LEFT, axis_y, LEFT + PLOT_W, axis_y);
    for k in 0..=4 {
        let x = LEFT + PLOT_W * k as f64 / 4.0;
        out += &line(x, axis_y, x, axis_y + 4.0);
        out += &text(
            x,
            axis_y + 15.0,
            "middle",
            10.0,
            "",
            &format!("{} %", k * 25),
        );
    }
    let label = if shifted {
        format!(
            "share of the {} learners who answered before the run (light: their answers now)",
            item.answered
        )
    } else {
        format!(
            "share of the {} learners who answered before the run",
            item.answered
        )
    };
    out += &x_axis_label(
        LEFT + PLOT_W / 2.0,
        axis_y + 31.0,
        &fit(&label, 12.0, WIDTH - 20.0),
    );
    out += "</svg>";
    out
}

/// A lab's graded tests: a bar per test, its length the share of the graded runs that
/// passed it; tests that earn nothing alone (regression guards) in a lighter shade.
pub fn test_chart(lab: &LabReport) -> String {
    const LEFT: f64 = 30.0;
    const PLOT_W: f64 = 560.0;
    const TOP: f64 = 6.0;
    const BAND: f64 = 34.0;
    let rows = lab.tests.len() as f64;
    let axis_y = TOP + BAND * rows + 2.0;
    let height = axis_y + 36.0;
    let mut out = open(
        WIDTH,
        height,
        &format!("Lab {}: the graded tests' pass rates", lab.lab),
    );
    out += &y_axis_label(14.0, TOP + BAND * rows / 2.0, "graded test");
    for (k, test) in lab.tests.iter().enumerate() {
        let y = TOP + BAND * k as f64;
        let name = if test.earns {
            test.name.clone()
        } else {
            format!("{} (a guard: earns nothing alone)", test.name)
        };
        out += &format!(
            "<text x=\"{LEFT:.1}\" y=\"{:.1}\" font-size=\"11\"><title>{}</title>{}</text>",
            y + 11.0,
            esc(&test.name),
            esc(&fit(&name, 11.0, WIDTH - LEFT - 4.0))
        );
        let w = PLOT_W * test.rate();
        let fill = if test.earns { "#1e40af" } else { "#93c5fd" };
        out += &rect(LEFT, y + 15.0, w.max(0.5), 12.0, fill, None);
        out += &text(
            LEFT + w + 6.0,
            y + 25.0,
            "start",
            11.0,
            "",
            &format!(
                "{} of {} ({:.0} %)",
                test.passed,
                test.runs,
                test.rate() * 100.0
            ),
        );
    }
    out += &line(LEFT, TOP, LEFT, axis_y);
    out += &line(LEFT, axis_y, LEFT + PLOT_W, axis_y);
    for k in 0..=4 {
        let x = LEFT + PLOT_W * k as f64 / 4.0;
        out += &line(x, axis_y, x, axis_y + 4.0);
        out += &text(
            x,
            axis_y + 15.0,
            "middle",
            10.0,
            "",
            &format!("{} %", k * 25),
        );
    }
    out += &x_axis_label(
        LEFT + PLOT_W / 2.0,
        axis_y + 31.0,
        &format!(
            "share of the {} graded runs that passed it",
            lab.graded_runs
        ),
    );
    out += "</svg>";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_in_the_middle_and_points_rounded_to_fit() {
        let name = "ailsa7-a-rather-long-submission-folder-3";
        let cut = fit_middle(name, 12.0, 146.0);
        assert!(cut.starts_with("ailsa7") && cut.ends_with("folder-3") && cut.contains('…'));
        assert!(text_width(&cut, 12.0, false) <= 146.0);
        assert_eq!(fit_middle("ann", 12.0, 146.0), "ann");
        assert_eq!(cell_points(13.33, 9.0, 40.0), "13.3");
        assert_eq!(cell_points(13.33, 9.0, 16.0), "13");
    }
}
