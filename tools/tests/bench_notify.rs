//! `cngw bench --notifications` (LH-05, LH-08, HW-02): data at one beat per
//! clock toward the WAN while Long-haul CNPs are generated, the token
//! bucket's bound respected, every notification equal to the model's, and
//! the notification latency within its target.

mod common;

#[test]
fn lh_08_bench_notifications_respects_the_bucket_and_line_rate() {
    let out = common::cngw(&[
        "bench",
        "--notifications",
        "--sizes",
        "64,1024",
        "--flood-frames",
        "512",
        "--refill-clocks",
        "64",
        "--json",
    ])
    .expect_ok()
    .stdout;
    let num = |key: &str, from: &str| common::json_num(from, key);
    assert!(num("frame_to_notification", &out) <= 32.0, "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("\"bytes\":")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    for r in rows {
        assert!(r.contains("\"rtl_matches_model\": true"), "{r}");
        assert_eq!(num("dc_rx", r), 1.0, "{r}");
        assert_eq!(num("wan_tx", r), 1.0, "{r}");
        let sent = num("notifications", r);
        let allowed = num("allowed", r);
        assert!(sent > 8.0, "the bucket refilled during the run: {r}");
        assert!(sent <= allowed, "{r}");
    }
}

#[test]
fn hw_04_bench_notifications_rejects_conflicting_options() {
    common::cngw(&["bench", "--notifications", "--all-features"]).expect_err("cannot be used with");
    common::cngw(&["bench", "--flows", "8"]).expect_err("--notifications");
    common::cngw(&["bench", "--notifications", "--bucket-depth", "9"]).expect_err("bucket-depth");
}
