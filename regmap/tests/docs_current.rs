//! docs/registers.md is the Markdown export of the register map, kept current.

#[test]
fn hw_04_docs_registers_md_matches_the_register_map() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/registers.md");
    let expected = cngw_regmap::export::to_markdown();
    if std::env::var_os("CNGW_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/registers.md is stale: run `cngw gen regmap --format md --out docs/registers.md` \
         (or this test with CNGW_BLESS=1)"
    );
}
