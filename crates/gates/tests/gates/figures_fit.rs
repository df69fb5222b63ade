//! The book's generated figures fit: no text of an SVG figure runs outside its box or the
//! picture, and no line of a generated text figure (a timeline, a crash matrix) is wider
//! than the book's code blocks. Text is measured with the metrics the figures declare
//! (`labkit::font`, DejaVu Sans), so this gate and the figure code agree on every width.

use labkit::font::{ascent, descent, text_width};
use std::path::{Path, PathBuf};

/// The widest line a code block of the book shows without scrolling.
const BOOK_COLUMNS: usize = 90;
/// The widest figure: the book's content column is 750 px (mdBook's default) and a wider
/// picture is shrunk by the browser until its 13 px text reads at 9 or 10 px.
const MAX_WIDTH: f64 = labkit::figure::MAX_WIDTH as f64;
/// Rounding slack, in pixels: coordinates in the SVGs are whole pixels.
const SLACK: f64 = 0.5;

fn figures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src/figures")
}

/// The value of attribute `name` in the tag text `tag` (`<rect x="1" …`).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let needle = format!(" {name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

fn number(tag: &str, name: &str) -> Option<f64> {
    attribute(tag, name)?.parse().ok()
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

#[derive(Debug, Clone, Copy)]
struct Area {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Area {
    fn contains_point(&self, x: f64, y: f64) -> bool {
        self.left <= x && x <= self.right && self.top <= y && y <= self.bottom
    }

    fn holds(&self, inner: &Area) -> bool {
        inner.left >= self.left - SLACK
            && inner.right <= self.right + SLACK
            && inner.top >= self.top - SLACK
            && inner.bottom <= self.bottom + SLACK
    }

    fn size(&self) -> f64 {
        (self.right - self.left) * (self.bottom - self.top)
    }
}

/// One `<text>` element: its content and the area its glyphs cover.
struct Text {
    content: String,
    anchor: (f64, f64),
    area: Area,
}

/// The problems of one SVG figure, each naming the text that does not fit.
fn problems_of(name: &str, svg: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(root) = svg.split('>').next().filter(|t| t.starts_with("<svg")) else {
        return vec![format!("{name}: does not start with an <svg> element")];
    };
    let view: Vec<f64> = attribute(root, "viewBox")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let [x0, y0, w, h] = view[..] else {
        return vec![format!("{name}: no viewBox")];
    };
    let picture = Area {
        left: x0,
        top: y0,
        right: x0 + w,
        bottom: y0 + h,
    };
    let root_size = number(root, "font-size").unwrap_or(16.0);
    let family = attribute(root, "font-family").unwrap_or("");
    if !family.starts_with("DejaVu Sans") {
        problems.push(format!(
            "{name}: declares font-family `{family}`, not the DejaVu Sans the gate measures"
        ));
    }
    let boxes: Vec<Area> = svg
        .split("<rect")
        .skip(1)
        .filter_map(|rest| {
            let tag = rest.split('>').next()?;
            let (x, y) = (number(tag, "x")?, number(tag, "y")?);
            let (w, h) = (number(tag, "width")?, number(tag, "height")?);
            Some(Area {
                left: x,
                top: y,
                right: x + w,
                bottom: y + h,
            })
        })
        .collect();
    let mut texts = Vec::new();
    for rest in svg.split("<text").skip(1) {
        let Some((tag, after)) = rest.split_once('>') else {
            continue;
        };
        let content = unescape(after.split("</text>").next().unwrap_or(""));
        let (Some(x), Some(y)) = (number(tag, "x"), number(tag, "y")) else {
            problems.push(format!("{name}: text `{content}` has no position"));
            continue;
        };
        let size = number(tag, "font-size").unwrap_or(root_size);
        let bold = attribute(tag, "font-weight") == Some("bold");
        let width = text_width(&content, size, bold);
        let (start, end) = match attribute(tag, "text-anchor").unwrap_or("start") {
            "middle" => (-width / 2.0, width / 2.0),
            "end" => (-width, 0.0),
            _ => (0.0, width),
        };
        let area = match attribute(tag, "transform") {
            // rotate(-90 x y) about the text's own anchor: it reads upwards.
            Some(t) if t.starts_with("rotate(-90") => Area {
                left: x - ascent(size),
                top: y - end,
                right: x + descent(size),
                bottom: y - start,
            },
            Some(t) => {
                problems.push(format!(
                    "{name}: text `{content}` has a transform the gate cannot measure: {t}"
                ));
                continue;
            }
            None => Area {
                left: x + start,
                top: y - ascent(size),
                right: x + end,
                bottom: y + descent(size),
            },
        };
        texts.push(Text {
            content,
            anchor: (x, y),
            area,
        });
    }
    for text in &texts {
        let span = format!("{:.0}…{:.0}", text.area.left, text.area.right);
        if !picture.holds(&text.area) {
            problems.push(format!(
                "{name}: text `{}` ({span} × {:.0}…{:.0}) runs outside the picture (0…{w} × 0…{h})",
                text.content, text.area.top, text.area.bottom
            ));
        }
        // Its box: the smallest rectangle around the point the text is anchored at.
        let own_box = boxes
            .iter()
            .filter(|b| b.contains_point(text.anchor.0, text.anchor.1))
            .min_by(|a, b| a.size().total_cmp(&b.size()));
        if let Some(own) = own_box
            && (text.area.left < own.left - SLACK || text.area.right > own.right + SLACK)
        {
            problems.push(format!(
                "{name}: text `{}` ({span}) runs outside its box ({:.0}…{:.0})",
                text.content, own.left, own.right
            ));
        }
    }
    problems
}

/// Why an SVG figure is too wide for the book's column, if it is: by its viewBox (the
/// width its text was laid out for) or by its width attribute (the width it is drawn at).
fn width_problem(name: &str, svg: &str) -> Option<String> {
    let root = svg.split('>').next().filter(|t| t.starts_with("<svg"))?;
    let laid_out: f64 = attribute(root, "viewBox")?
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()?;
    let drawn = number(root, "width").unwrap_or(laid_out);
    (laid_out > MAX_WIDTH || drawn > MAX_WIDTH).then(|| {
        format!(
            "{name}: {laid_out} px wide (drawn at {drawn} px); the book's column holds {MAX_WIDTH} px unshrunk"
        )
    })
}

fn figures(extension: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(figures_dir())
        .expect("book/src/figures exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    found.sort();
    found
}

#[test]
fn every_svg_figure_keeps_its_text_inside_its_boxes_and_picture() {
    let svgs = figures("svg");
    assert!(!svgs.is_empty(), "no SVG figure under book/src/figures");
    let problems: Vec<String> = svgs
        .iter()
        .flat_map(|(name, svg)| problems_of(name, svg))
        .collect();
    assert!(
        problems.is_empty(),
        "\n{}\n(regenerate with `cargo labs bless` after fixing the figure code)\n",
        problems.join("\n")
    );
}

#[test]
fn no_svg_figure_is_wider_than_the_books_column() {
    let svgs = figures("svg");
    assert!(!svgs.is_empty(), "no SVG figure under book/src/figures");
    let problems: Vec<String> = svgs
        .iter()
        .filter_map(|(name, svg)| width_problem(name, svg))
        .collect();
    assert!(
        problems.is_empty(),
        "\n{}\n(regenerate with `cargo labs bless` after fixing the figure code)\n",
        problems.join("\n")
    );
}

#[test]
fn every_text_figure_fits_the_books_code_blocks() {
    let mut problems = Vec::new();
    for (name, text) in figures("txt") {
        for (n, line) in text.lines().enumerate() {
            let columns = line.chars().count();
            if columns > BOOK_COLUMNS {
                problems.push(format!(
                    "{name}:{}: {columns} columns (at most {BOOK_COLUMNS}): {line}",
                    n + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The gate itself: it finds text that runs out of its box, out of the picture, or out
/// of the top of a rotated axis name, and a picture wider than the column, and passes
/// text and pictures that fit.
#[test]
fn the_gate_catches_text_that_does_not_fit() {
    let head = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 300 200\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"13\">";
    let fits = format!(
        "{head}<rect x=\"10\" y=\"30\" width=\"120\" height=\"26\"/><text x=\"70\" y=\"48\" text-anchor=\"middle\">short</text></svg>"
    );
    assert_eq!(problems_of("fits.svg", &fits), Vec::<String>::new());
    let wide_in_box = format!(
        "{head}<rect x=\"10\" y=\"30\" width=\"60\" height=\"26\"/><text x=\"40\" y=\"48\" text-anchor=\"middle\">a label far wider than its box</text></svg>"
    );
    let found = problems_of("box.svg", &wide_in_box);
    assert!(
        found
            .iter()
            .any(|p| p.contains("`a label far wider than its box`") && p.contains("its box")),
        "{found:?}"
    );
    let title = format!(
        "{head}<text x=\"150\" y=\"22\" text-anchor=\"middle\" font-weight=\"bold\" font-size=\"15\">Recovery by the original identity: intent first, one key</text></svg>"
    );
    let found = problems_of("title.svg", &title);
    assert!(
        found.iter().any(
            |p| p.starts_with("title.svg: text `Recovery") && p.contains("outside the picture")
        ),
        "{found:?}"
    );
    let rotated = format!(
        "{head}<text x=\"16\" y=\"40\" transform=\"rotate(-90 16 40)\" text-anchor=\"middle\">a long axis name</text></svg>"
    );
    assert!(!problems_of("axis.svg", &rotated).is_empty());
    let wide = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 960 200\" width=\"960\" height=\"200\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"13\"></svg>";
    let found = width_problem("wide.svg", wide);
    assert!(
        found
            .as_deref()
            .is_some_and(|p| p.starts_with("wide.svg: 960 px wide")),
        "{found:?}"
    );
    assert_eq!(width_problem("fits.svg", &fits), None);
}
