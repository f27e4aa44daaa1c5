"""HW-03: the Rust RTL-vs-model scoreboard reached from Python: frames,
parser results and every counter agree on random traffic, and a difference
is reported."""

import pytest

import cngw_sim
import cngw_tb


@pytest.mark.parametrize("idle,backpressure", [(0.0, 0.0), (0.3, 0.0), (0.0, 0.5), (0.4, 0.6)])
def test_hw_03_scoreboard_rtl_matches_model_on_random_traffic(idle, backpressure):
    inputs = {"dc_rx": cngw_sim.random_mix(300, seed=1), "wan_rx": cngw_sim.random_mix(300, seed=2)}
    cap = cngw_sim.check(inputs, idle=idle, backpressure=backpressure, seed=7)
    assert cap["outputs"]["wan_tx"] == [f for f, _ in inputs["dc_rx"]]
    assert cap["output_users"]["dc_tx"] == [u for _, u in inputs["wan_rx"]]
    classes = {h.frame_class for h in cap["parsed"]["dc_rx"]}
    assert classes == {"roce", "non_roce", "malformed"}, "the mix covers every class"
    if idle == backpressure == 0.0:
        assert cap["beats_per_cycle"]["dc_rx"] == 1.0


def test_hw_03_scoreboard_reports_the_first_difference():
    gw = cngw_sim.Gateway()
    model = cngw_sim.Model()
    model.receive("dc_rx", b"\x00" * 60)  # a frame the RTL never saw
    with pytest.raises(cngw_sim.ScoreboardMismatch, match="counter DC_RX_FRAMES"):
        gw.check(model, {"dc_rx": cngw_sim.random_mix(5, seed=3)})
    assert issubclass(cngw_sim.ScoreboardMismatch, AssertionError)


@cngw_tb.test
async def test_hw_03_model_follows_traffic_sent_through_the_async_harness(gw):
    model = cngw_tb.Model()
    frames = cngw_sim.random_mix(60, seed=9)
    gw.dc_rx.set_pause_generator(0.3, seed=1)
    gw.wan_tx.set_pause_generator(0.3, seed=2)
    for frame in frames:
        await gw.dc_rx.send(frame)
        parsed, emitted = model.receive("dc_rx", frame)
        assert emitted == [("wan_tx", frame[0], frame[1])]
    out = await gw.wan_tx.recv_n(len(frames), timeout=100_000)
    assert [(bytes(f), f.user) for f in out] == frames
    await gw.drain()
    rtl = gw.parsed_nowait("dc_rx")
    assert rtl == [model_h for model_h in (cngw_sim.classify(f) for f, _ in frames)]
    for name, value in model.counters():
        assert await gw.csr.read(name) == value, name
    # The same gateway and model go on under the Rust scoreboard.
    gw.sim.check(model, {"wan_rx": cngw_sim.random_mix(80, seed=10)}, idle=0.2, backpressure=0.2, seed=4)
