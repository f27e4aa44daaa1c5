//! `cngw bench --soak` (HW-02, issue 9): a short soak of the Verilated
//! gateway with every feature on against the reference model reports its
//! clocks, frames, notifications and no difference; bad arguments are
//! refused before anything is simulated.

mod common;

use common::json_num as num;

#[test]
fn hw_02_soak_bench_reports_clocks_frames_notifications_and_no_mismatch() {
    let out = common::cngw(&["bench", "--soak", "200000", "--seed", "4", "--json"])
        .expect_ok()
        .stdout;
    assert_eq!(num(&out, "seed"), 4.0, "{out}");
    assert!(num(&out, "cycles") >= 200_000.0, "{out}");
    assert_eq!(num(&out, "mismatches"), 0.0, "{out}");
    for port in [
        "frames_dc_rx",
        "frames_wan_rx",
        "frames_dc_tx",
        "frames_wan_tx",
    ] {
        assert!(num(&out, port) > 100.0, "{port}: {out}");
    }
    assert!(num(&out, "notifications_total") > 0.0, "{out}");
    assert!(num(&out, "cycles_per_s") > 0.0, "{out}");
    let human = common::cngw(&["bench", "--soak", "5000"])
        .expect_ok()
        .stdout;
    for line in [
        "clocks:",
        "frames out:",
        "notifications:",
        "mismatches:    0",
        "wall time:",
    ] {
        assert!(human.contains(line), "{line}: {human}");
    }
}

#[test]
fn hw_02_soak_bench_rejects_bad_arguments() {
    common::cngw(&["bench", "--soak", "0"]).expect_err("--soak");
    common::cngw(&["bench", "--soak", "999"]).expect_err("--soak");
    common::cngw(&["bench", "--soak", "1e6"]).expect_err("--soak");
    common::cngw(&["bench", "--soak", "-5"]).expect_err("-5");
    common::cngw(&["bench", "--seed", "3"]).expect_err("--soak");
    common::cngw(&["bench", "--soak", "10000", "--seed", "x"]).expect_err("--seed");
    common::cngw(&["bench", "--soak", "10000", "--flow-table"]).expect_err("cannot be used");
    common::cngw(&["bench", "--soak", "10000", "--all-features"]).expect_err("cannot be used");
}
