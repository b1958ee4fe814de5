//! `sqlx::migrate!` embeds the migrations when this crate compiles; without
//! this, a new migration file alone would not rebuild it and would never
//! run.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
