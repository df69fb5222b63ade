//! `cargo labs class gradebook GRADE.json [--roster ROSTER.csv] --out FILE.csv
//! [--format canvas|moodle|plain]`: one row per learner, a column per lab and the total,
//! from a saved class grade, with the roster (folder → student id, name) joined, in a
//! layout a learning management system imports.
//!
//! The points are those the grade recorded (never re-scored). A lab the grader could not
//! grade (its environment, or the teacher's lab.toml) is left blank, never a zero, and
//! the total is out of the labs that were graded.
//!
//! The layouts:
//!
//! - **Canvas** (Instructor Guide, "How do I import grades in the Gradebook?",
//!   community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807,
//!   and Canvas's importer, `app/models/gradebook_importer.rb` in instructure/canvas-lms):
//!   the header starts `Student, ID, SIS User ID, SIS Login ID, Section` (the importer
//!   reads `SIS User ID` and `SIS Login ID` in columns 3 and 4 and wants `Section` last of
//!   the student columns), then one column per assignment; a row whose first cell is
//!   `Points Possible` gives each new assignment its points; trailing columns named
//!   `Final Points` (like `Current Score`, …) are read-only and skipped on import, which
//!   is where the total goes. A learner is matched by Canvas's user id (`ID`), then by
//!   the SIS user id (the roster's student id), then by name; a blank cell changes nothing.
//! - **Moodle** (MoodleDocs, "Grade import", docs.moodle.org/en/Grade_import; moodle/moodle
//!   `grade/import/csv/classes/load_data.php`): any header; in the import's preview the
//!   teacher maps "Identify user by" from the `ID number` column to `useridnumber` (or
//!   `Email address` to `useremail`), and each lab's column to a grade item (or a new
//!   one); leave `Total` mapped to "Ignore" (Moodle computes the course total itself).
//! - **plain**: `learner, student_id, name, email`, a column per lab, `total`, `out_of`
//!   and `not_graded`, for a spreadsheet.

use crate::class::ClassGrade;
use crate::error::{Error, Result};
use crate::grade::LabStatus;

/// The layout of the CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Canvas,
    Moodle,
    Plain,
}

impl std::str::FromStr for Layout {
    type Err = Error;
    fn from_str(text: &str) -> Result<Layout> {
        match text {
            "canvas" => Ok(Layout::Canvas),
            "moodle" => Ok(Layout::Moodle),
            "plain" => Ok(Layout::Plain),
            _ => Err(Error::input(format!(
                "`--format {text}`: the formats are canvas, moodle and plain"
            ))),
        }
    }
}

/// One learner of the roster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Student {
    /// The submission folder's name, as `grade-class` names the learner.
    pub folder: String,
    pub id: String,
    pub name: String,
    pub email: String,
    pub section: String,
}

/// A roster: `folder,id,name` (and, if wanted, `email` and `section`), with a header row
/// naming the columns in any order (`student_id` is also read as `id`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roster {
    pub students: Vec<Student>,
}

/// The fields of one CSV record (RFC 4180: quoted fields may hold commas, quotes doubled,
/// and line breaks).
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, _) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, _) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records.retain(|r| !(r.len() == 1 && r[0].trim().is_empty()));
    records
}

impl Roster {
    pub fn parse(text: &str) -> Result<Roster> {
        let mut records = csv_records(text).into_iter();
        let header: Vec<String> = records
            .next()
            .unwrap_or_default()
            .iter()
            .map(|h| h.trim().to_ascii_lowercase().replace(' ', "_"))
            .collect();
        let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
        let (Some(folder), Some(id), Some(name)) = (
            column(&["folder"]),
            column(&["id", "student_id"]),
            column(&["name"]),
        ) else {
            return Err(Error::input(format!(
                "the roster's first line must name its columns, among them `folder`, `id` (or `student_id`) and `name`; it is `{}`",
                header.join(",")
            )));
        };
        let (email, section) = (column(&["email"]), column(&["section"]));
        let mut students: Vec<Student> = Vec::new();
        for (n, record) in records.enumerate() {
            let get = |i: Option<usize>| {
                i.and_then(|i| record.get(i))
                    .map(|v| v.trim().to_string())
                    .unwrap_or_default()
            };
            let student = Student {
                folder: get(Some(folder)).trim_end_matches('/').to_string(),
                id: get(Some(id)),
                name: get(Some(name)),
                email: get(email),
                section: get(section),
            };
            if student.folder.is_empty() {
                return Err(Error::input(format!(
                    "the roster's line {} has no folder",
                    n + 2
                )));
            }
            if students.iter().any(|s| s.folder == student.folder) {
                return Err(Error::input(format!(
                    "the roster names the folder `{}` twice",
                    student.folder
                )));
            }
            students.push(student);
        }
        Ok(Roster { students })
    }

    /// The student whose folder is the learner `name` (or the last part of its
    /// submission path).
    fn find(&self, name: &str, submission: &str) -> Option<&Student> {
        let last = submission
            .trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or_default();
        (self.students.iter().find(|s| s.folder == name))
            .or_else(|| self.students.iter().find(|s| s.folder == last))
    }
}

/// A lab's column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub lab: String,
    pub title: String,
    pub max: f64,
}

/// A learner's cell for one lab.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// The points the grade recorded.
    Points(f64),
    /// Not graded, by no doing of the learner's: blank, and out of the total.
    NotGraded(LabStatus),
    /// The learner has no grade of this lab (or no submission at all): blank.
    Missing,
}

/// One row of the gradebook.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The learner as `grade-class` named them (empty for a roster entry without a
    /// submission).
    pub learner: String,
    pub student: Option<Student>,
    pub cells: Vec<Cell>,
    pub total: f64,
    /// The points of the labs graded for this learner.
    pub out_of: f64,
}

/// The gradebook of a class.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradebook {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Learners the roster does not name.
    pub not_in_roster: Vec<String>,
    /// Roster entries with no submission (they have a row of blanks).
    pub without_submission: Vec<String>,
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

impl Gradebook {
    pub fn new(class: &ClassGrade, roster: Option<&Roster>) -> Gradebook {
        let mut columns: Vec<Column> = Vec::new();
        for grade in &class.learners {
            for lab in &grade.labs {
                if !columns.iter().any(|c| c.lab == lab.lab) {
                    columns.push(Column {
                        lab: lab.lab.clone(),
                        title: lab.title.clone(),
                        max: lab.points.max,
                    });
                }
            }
        }
        columns.sort_by(|a, b| a.lab.cmp(&b.lab));
        let mut rows = Vec::new();
        let mut not_in_roster = Vec::new();
        let mut matched = Vec::new();
        for (i, grade) in class.learners.iter().enumerate() {
            let (name, submission) = grade
                .learner
                .as_ref()
                .map(|l| (l.name.clone(), l.submission.clone()))
                .unwrap_or_else(|| (format!("learner {}", i + 1), String::new()));
            let student = roster.and_then(|r| r.find(&name, &submission)).cloned();
            match &student {
                Some(s) => matched.push(s.folder.clone()),
                None if roster.is_some() => not_in_roster.push(name.clone()),
                None => {}
            }
            let mut cells = Vec::new();
            let (mut total, mut out_of) = (0.0, 0.0);
            for column in &columns {
                let cell = match grade.labs.iter().find(|l| l.lab == column.lab) {
                    None => Cell::Missing,
                    Some(lab) if lab.status.is_grader_fault() => Cell::NotGraded(lab.status),
                    Some(lab) => {
                        total += lab.points.total;
                        out_of += lab.points.max;
                        Cell::Points(lab.points.total)
                    }
                };
                cells.push(cell);
            }
            rows.push(Row {
                learner: name,
                student,
                cells,
                total: round2(total),
                out_of: round2(out_of),
            });
        }
        let mut without_submission = Vec::new();
        for student in roster.map(|r| r.students.as_slice()).unwrap_or_default() {
            if !matched.contains(&student.folder) {
                without_submission.push(student.folder.clone());
                rows.push(Row {
                    learner: String::new(),
                    student: Some(student.clone()),
                    cells: vec![Cell::Missing; columns.len()],
                    total: 0.0,
                    out_of: 0.0,
                });
            }
        }
        Gradebook {
            columns,
            rows,
            not_in_roster,
            without_submission,
        }
    }

    /// The sum of every lab's points: what a learner graded in every lab is out of.
    pub fn max_total(&self) -> f64 {
        self.columns.iter().map(|c| c.max).sum()
    }

    /// The gradebook as CSV in `layout`.
    pub fn csv(&self, layout: Layout) -> String {
        let number = |x: f64| {
            let x = round2(x);
            if x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x}")
            }
        };
        let cell = |c: &Cell| match c {
            Cell::Points(p) => number(*p),
            Cell::NotGraded(_) | Cell::Missing => String::new(),
        };
        let title = |c: &Column| format!("Lab {}: {}", c.lab, c.title);
        let mut lines: Vec<Vec<String>> = Vec::new();
        match layout {
            Layout::Canvas => {
                let mut header: Vec<String> =
                    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
                        .map(String::from)
                        .to_vec();
                header.extend(self.columns.iter().map(title));
                header.push("Final Points".into());
                lines.push(header);
                let mut possible = vec![
                    "    Points Possible".to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ];
                possible.extend(self.columns.iter().map(|c| number(c.max)));
                possible.push(number(self.max_total()));
                lines.push(possible);
                for row in &self.rows {
                    let s = row.student.clone().unwrap_or_default();
                    let student = if s.name.is_empty() {
                        row.learner.clone()
                    } else {
                        s.name
                    };
                    let mut line = vec![student, String::new(), s.id, String::new(), s.section];
                    line.extend(row.cells.iter().map(cell));
                    line.push(number(row.total));
                    lines.push(line);
                }
            }
            Layout::Moodle => {
                let mut header: Vec<String> = ["ID number", "Full name", "Email address"]
                    .map(String::from)
                    .to_vec();
                header.extend(self.columns.iter().map(title));
                header.push("Total".into());
                lines.push(header);
                for row in &self.rows {
                    let s = row.student.clone().unwrap_or_default();
                    let name = if s.name.is_empty() {
                        row.learner.clone()
                    } else {
                        s.name
                    };
                    let mut line = vec![s.id, name, s.email];
                    line.extend(row.cells.iter().map(cell));
                    line.push(number(row.total));
                    lines.push(line);
                }
            }
            Layout::Plain => {
                let mut header: Vec<String> = ["learner", "student_id", "name", "email"]
                    .map(String::from)
                    .to_vec();
                header.extend(self.columns.iter().map(|c| format!("lab_{}", c.lab)));
                header.extend(["total", "out_of", "not_graded"].map(String::from));
                lines.push(header);
                for row in &self.rows {
                    let s = row.student.clone().unwrap_or_default();
                    let mut line = vec![row.learner.clone(), s.id, s.name, s.email];
                    line.extend(row.cells.iter().map(cell));
                    line.push(number(row.total));
                    line.push(number(row.out_of));
                    let why: Vec<String> = (self.columns.iter().zip(&row.cells))
                        .filter_map(|(c, cell)| match cell {
                            Cell::NotGraded(status) => {
                                Some(format!("{}: {}", c.lab, status.words()))
                            }
                            Cell::Missing if !row.learner.is_empty() => {
                                Some(format!("{}: no grade", c.lab))
                            }
                            Cell::Missing => Some(format!("{}: no submission", c.lab)),
                            Cell::Points(_) => None,
                        })
                        .collect();
                    line.push(why.join("; "));
                    lines.push(line);
                }
            }
        }
        let mut out = String::new();
        for line in lines {
            let fields: Vec<String> = line.iter().map(|f| crate::class::table::field(f)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}

/// Reads a roster file.
pub fn read_roster(path: &std::path::Path) -> Result<Roster> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::reading(path, e))?;
    Roster::parse(&text).map_err(|e| Error::input(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_read_quotes_commas_and_line_breaks() {
        let text =
            "\u{feff}folder,id,name\r\nann,\"S1\",\"Lee, Ann\"\n\"bo\"\"b\",S2,\"two\nlines\"\n";
        let records = csv_records(text);
        assert_eq!(
            records,
            vec![
                vec!["folder", "id", "name"],
                vec!["ann", "S1", "Lee, Ann"],
                vec!["bo\"b", "S2", "two\nlines"],
            ]
        );
    }

    #[test]
    fn a_roster_needs_its_columns_and_one_line_per_folder() {
        let roster =
            Roster::parse("Name,Student ID,Folder,Email\nAnn Lee,S1,ann/,ann@x\n").unwrap();
        assert_eq!(
            roster.students,
            [Student {
                folder: "ann".into(),
                id: "S1".into(),
                name: "Ann Lee".into(),
                email: "ann@x".into(),
                section: String::new()
            }]
        );
        assert!(Roster::parse("folder,name\nann,Ann\n").is_err());
        assert!(Roster::parse("folder,id,name\nann,1,A\nann,2,B\n").is_err());
    }
}
