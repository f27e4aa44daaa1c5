//! `cngw config check|apply` (HW-04).

mod common;
use common::{cngw, scratch};

const VALID: &str = r#"
features = []
[port.0]
rate = "100G"
rtt = "10ms"
alpha = 1.0
k_base = "64K"
[registers]
SCRATCH = 0x1234
"#;

#[test]
fn hw_04_config_check_prints_the_plan_and_writes_nothing() {
    let dir = scratch("config_check");
    let file = dir.join("gw.toml");
    std::fs::write(&file, VALID).unwrap();
    let run = cngw(&argv!["--verbose", "config", "check", file]).expect_ok();
    assert!(run.stdout.contains("8 register write(s)"), "{}", run.stdout);
    assert!(
        run.stdout.contains("FEATURE_ENABLE @ 0x010 <- 0"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("nothing written"), "{}", run.stdout);
    assert!(run.bus_writes().is_empty(), "{}", run.stderr);
}

#[test]
fn hw_04_config_apply_performs_the_plan() {
    let dir = scratch("config_apply");
    let file = dir.join("gw.toml");
    std::fs::write(&file, VALID).unwrap();
    let run = cngw(&argv!["--verbose", "config", "apply", file]).expect_ok();
    assert!(
        run.stdout.contains("applied 8 register write(s)"),
        "{}",
        run.stdout
    );
    let writes = run.bus_writes();
    assert_eq!(writes.len(), 8, "{writes:?}");
    // Features switch on last, once their thresholds are in place.
    assert!(
        writes.last().unwrap().contains("(FEATURE_ENABLE)"),
        "{writes:?}"
    );
}

#[test]
fn hw_04_config_unknown_key_is_rejected_without_a_write() {
    let dir = scratch("config_unknown_key");
    for (name, text, message) in [
        ("top.toml", "featurez = []\n", "unknown field `featurez`"),
        (
            "port.toml",
            "[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\nkbase = 1\n",
            "unknown field `kbase`",
        ),
        (
            "register.toml",
            "[registers]\nNO_SUCH = 1\n",
            "registers.NO_SUCH: unknown register",
        ),
        ("readonly.toml", "[registers]\nVERSION = 1\n", "read-only"),
        (
            "port1.toml",
            "[port.1]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\n",
            "port.1",
        ),
        (
            "feature.toml",
            "features = [\"warp_drive\"]\n",
            "unknown feature",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        for command in ["check", "apply"] {
            let run = cngw(&argv!["--verbose", "config", command, file]).expect_err(message);
            assert!(
                run.bus_writes().is_empty(),
                "{name} {command}: {:?}",
                run.bus_writes()
            );
        }
    }
    cngw(&argv!["config", "check", dir.join("missing.toml")]).expect_err("missing.toml");
}
