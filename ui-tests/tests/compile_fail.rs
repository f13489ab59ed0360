//! One mistake per file in `tests/ui/`, each with the compiler output it must give beside it.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p ui-tests --test compile_fail`, then read them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
