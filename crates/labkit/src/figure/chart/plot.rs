//! Drawing a [`BarChart`](super::BarChart)'s plot: the grid and the axis name, each
//! category's bars and label, and the legend.

use super::{Groups, Labels, PALETTE, PLOT_H, Ticks, format_value};
use crate::figure::{CHART_LINE, escape};
use std::fmt::Write;

/// Where the plot is drawn: its left edge (the axis), its top, its width and its groups.
pub(super) struct Plot {
    pub(super) left: i32,
    pub(super) top: i32,
    pub(super) width: i32,
    pub(super) groups: Groups,
}

impl Plot {
    /// The grid lines with their tick labels, and the axis name, rotated.
    pub(super) fn axis(&self, svg: &mut String, ticks: &Ticks, name: &str) {
        let (left, base) = (self.left, self.top + PLOT_H);
        for (tick, label) in ticks.labels.iter().enumerate() {
            let y = base - (PLOT_H as f64 * tick as f64 / ticks.count as f64).round() as i32;
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{label}</text>",
                left + self.width,
                left - 6,
                y + 4,
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {0})\" text-anchor=\"middle\">{}</text>",
            self.top + PLOT_H / 2,
            escape(name)
        );
    }

    /// Category `c`'s bars, one per series, scaled to the axis' `top`, and its label
    /// when it is one of those drawn.
    pub(super) fn group(
        &self,
        svg: &mut String,
        c: usize,
        series: &[(String, Vec<f64>)],
        top: f64,
        labels: &Labels,
    ) {
        let Groups {
            bar,
            step,
            group,
            pad,
        } = self.groups;
        let base = self.top + PLOT_H;
        let gx = self.left + group * c as i32 + pad / 2;
        for (s, (_, values)) in series.iter().enumerate() {
            let value = values.get(c).copied().unwrap_or(0.0);
            let h = (PLOT_H as f64 * value / top).round() as i32;
            let _ = writeln!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"{bar}\" height=\"{h}\" fill=\"{}\"><title>{}</title></rect>",
                gx + step * s as i32,
                base - h,
                PALETTE[s % PALETTE.len()],
                format_value(value)
            );
        }
        if c.is_multiple_of(labels.every) {
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

    /// The legend beside the plot: a swatch and a name per series.
    pub(super) fn legend(&self, svg: &mut String, series: &[(String, Vec<f64>)]) {
        for (s, (name, _)) in series.iter().enumerate() {
            let y = self.top + 18 * s as i32;
            let _ = writeln!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
                self.left + self.width + 20,
                y,
                PALETTE[s % PALETTE.len()],
                self.left + self.width + 38,
                y + 11,
                escape(name)
            );
        }
    }
}
