//! The bar chart ([`BarChart`]): its groups and category labels fitted to [`MAX_WIDTH`],
//! its value axis, and its drawing.

use super::{
    CHART_LINE, CHART_TEXT, EDGE, MAX_WIDTH, TITLE_LINE, measure, svg_open, title_lines,
    title_text, widest_line, wrap,
};

mod plot;

use plot::Plot;

/// A bar chart: one group of bars per category, one bar per series. The value axis ends
/// on the first round tick at or above the largest value, and a chart of one series has
/// no legend (its title and axis name it). The chart fits [`MAX_WIDTH`]: its groups share
/// the room beside the axis and the legend, and category labels wider than their group
/// wrap (or, when a word is wider still, only every k-th category is labelled).
#[derive(Clone, Debug)]
pub struct BarChart {
    /// The chart's title, above it.
    pub title: String,
    /// The name of the value axis (with its unit).
    pub y_label: String,
    /// The categories along the bottom, one group of bars each.
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
    /// gaps between them when there are many), and the category labels for them.
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
        (groups, self.labels(groups.group))
    }

    /// The category labels under groups `group` pixels wide: on one line when they fit
    /// their group, else wrapped at word boundaries when every word fits, else only every
    /// k-th category labelled so that the labels do not overlap.
    fn labels(&self, group: i32) -> Labels {
        // A label has its group's width, less a gap to its neighbours.
        let label_room = group - 6;
        let single: Vec<Vec<String>> = self.categories.iter().map(|c| vec![c.clone()]).collect();
        let widest = |lines: &[Vec<String>]| {
            lines
                .iter()
                .map(|l| widest_line(l, CHART_TEXT, false))
                .max()
                .unwrap_or(1)
        };
        let one_line = widest(&single);
        if one_line <= label_room {
            return Labels {
                lines: single,
                every: 1,
                widest: one_line,
            };
        }
        let wrapped: Vec<Vec<String>> = self
            .categories
            .iter()
            .map(|c| wrap(c, CHART_TEXT, false, label_room))
            .collect();
        let widest_wrapped = widest(&wrapped);
        if widest_wrapped <= label_room {
            return Labels {
                lines: wrapped,
                every: 1,
                widest: widest_wrapped,
            };
        }
        Labels {
            lines: single,
            every: ((one_line + 6 + group - 1) / group).max(1) as usize,
            widest: one_line,
        }
    }

    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let ticks = Ticks::for_values(&self.series);
        // Room on the left for the rotated axis name, then the widest tick label.
        let widest_tick = ticks
            .labels
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
        let (groups, labels) = self.fitted_groups(left, legend);
        let plot_w = groups.group * self.categories.len().max(1) as i32;
        let overhang = ((labels.widest - (groups.group - groups.pad)) / 2).max(0);
        let content = left + plot_w + legend.max(overhang) + 2 * EDGE;
        let (title, width) = title_lines(&self.title, content);
        let top = 50 + TITLE_LINE * (title.len() as i32 - 1);
        let label_lines = labels.lines.iter().map(Vec::len).max().unwrap_or(1).max(1) as i32;
        let height = top + PLOT_H + 70 + CHART_LINE * (label_lines - 1);
        let mut svg = String::new();
        svg_open(&mut svg, width, height, CHART_TEXT, &self.title);
        title_text(&mut svg, &title, width);
        let plot = Plot {
            left,
            top,
            width: plot_w,
            groups,
        };
        plot.axis(&mut svg, &ticks, &self.y_label);
        for c in 0..self.categories.len() {
            plot.group(&mut svg, c, &self.series, ticks.top, &labels);
        }
        if self.series.len() > 1 {
            plot.legend(&mut svg, &self.series);
        }
        svg.push_str("</svg>\n");
        svg
    }

    /// The groups and labels that share what the picture has beside the axis (`left`)
    /// and the `legend` (or the last label's overhang), so that it fits MAX_WIDTH; a roomy
    /// chart keeps bars of 20 px. The overhang depends on the groups' width, so it is
    /// settled in a few rounds, each only narrowing the groups.
    fn fitted_groups(&self, left: i32, legend: i32) -> (Groups, Labels) {
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
        (groups, labels)
    }
}

/// The height of the plot, in pixels.
const PLOT_H: i32 = 260;

/// The value axis: its top, the step between ticks, their count and their labels.
struct Ticks {
    top: f64,
    count: i32,
    labels: Vec<String>,
}

impl Ticks {
    fn for_values(series: &[(String, Vec<f64>)]) -> Ticks {
        let values: Vec<f64> = series.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        let max = values.iter().copied().fold(0.0_f64, f64::max);
        let whole = values.iter().all(|v| v.fract() == 0.0);
        let (top, step) = axis(max, whole);
        let count = (top / step).round() as i32;
        let labels = (0..=count).map(|t| format_value(step * t as f64)).collect();
        Ticks { top, count, labels }
    }
}

/// The value axis for data whose largest value is `max`: the step between ticks (1, 2 or
/// 5 times a power of ten; whole numbers when the data are whole) and the top, the first
/// tick at or above `max`, with at most seven steps. 12 gives 0–12 by 2, 217 gives 0–250
/// by 50.
pub(super) fn axis(max: f64, whole: bool) -> (f64, f64) {
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

pub(super) fn format_value(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{value:.0}")
    } else if (value * 10.0 - (value * 10.0).round()).abs() < 1e-9 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}
