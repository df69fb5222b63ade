//! No code. This crate exists for its dependencies' features (see its Cargo.toml): with
//! it, a lab's build and the workspace's enable the same features of the crates they
//! share, so a lab built after the workspace reuses the workspace's build.
