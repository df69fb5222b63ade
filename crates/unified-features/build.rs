//! Nothing to build: the build-dependencies in Cargo.toml exist for their features.
fn main() {}
