//! The figures' own tests: the text measured and wrapped, the diagrams and charts sized
//! to their text and fitted to the column.

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
    let title = "Recovery by the original identity: intent first, one key, look before resending";
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
    let across =
        "re-read the source range 1000–1002 and compare its fingerprint with the journal's H(A)";
    let back = "lease: owner_epoch 1 → 2 (compare-and-swap on the journal row, or give up)";
    let note = "the journal proves that the same stream, offset and fingerprint were sent before the crash, so the retry is the same append";
    let crash = "the writer dies while waiting for the response: A is SENT and its outcome unknown";
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
