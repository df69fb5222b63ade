//! The templates of `cargo labs new` (crates/workbook/templates) are in the teacher's
//! edition only: `cfg(scaffold_templates)` tells `scaffold.rs` they are here to embed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(scaffold_templates)");
    if std::path::Path::new("templates").is_dir() {
        println!("cargo::rustc-cfg=scaffold_templates");
        // The files themselves are tracked by `include_str!`; this notices the folder
        // going away (an export made from this checkout does not have it).
        println!("cargo::rerun-if-changed=templates");
    } else {
        println!("cargo::rerun-if-changed=build.rs");
    }
}
