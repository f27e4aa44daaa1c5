"""HW-03: every real capture in $CNGW_CAPTURES replayed through the gateway
in both directions under idle and backpressure; what leaves is checked by
scapy (ICRC, checksums) and tshark (no malformed packet, no bad checksum
that the input did not already carry). Skipped when CNGW_CAPTURES is unset."""

import itertools

import pytest
from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether
from scapy.layers.inet import UDP

import cngw_sim
import cngw_tb


def captures(folder):
    found = sorted(folder.glob("*.pcap"))
    assert found, f"no .pcap file in {folder}"
    return found


def rocev2_count(frames):
    """Frames scapy dissects as RoCEv2 (UDP 4791 with a BTH)."""
    return sum(1 for f in frames if BTH in Ether(f) and Ether(f)[UDP].dport == 4791)


def replay(frames, rx, tx):
    """Runs frames through a fresh gateway; returns (out frames, parser results, counters)."""

    async def body(gw):
        gw.source(rx).set_pause_generator(itertools.cycle([0, 0, 1]))
        gw.sink(tx).set_pause_generator(0.3, seed=5)
        gw.source(rx).send_batch(frames)
        out = await gw.sink(tx).recv_n(len(frames), timeout=1_000_000)
        await gw.drain()
        roce = await gw.csr.read(f"{rx.upper()}_ROCE_FRAMES")
        return out, gw.parsed_nowait(rx), roce

    with cngw_tb.Gateway(trace=cngw_tb.vcd_path()) as gw:
        return cngw_tb.run(body(gw))


@pytest.mark.parametrize("rx,tx", [("dc_rx", "wan_tx"), ("wan_rx", "dc_tx")])
def test_hw_03_every_capture_replays_unchanged_and_checks_clean(captures_dir, tmp_path, rx, tx):
    for pcap in captures(captures_dir):
        frames = cngw_sim.read_pcap(pcap)
        out, parsed, roce_counter = replay(frames, rx, tx)
        assert [bytes(f) for f in out] == frames, f"{pcap.name}: forwarded byte for byte, in order"
        # scapy: every RoCEv2 frame that left carries a valid ICRC, every
        # IPv4/UDP/ICMPv6 checksum is right.
        for i, frame in enumerate(out):
            try:
                cngw_tb.check_frame(frame)
            except cngw_tb.FrameCheckError as e:
                raise AssertionError(f"{pcap.name} frame {i + 1}: {e}") from None
        roce = rocev2_count(frames)
        assert sum(h.is_roce for h in parsed) == roce == roce_counter, f"{pcap.name}: RoCEv2 frames parsed"
        assert [h for h in parsed] == [cngw_sim.classify(f) for f in frames], f"{pcap.name}: parser vs reference"
        # tshark on what left: nothing malformed, no bad checksum beyond the
        # ones the capture already had (checksum offload on the capturing host).
        written = tmp_path / f"{rx}-{pcap.name}"
        cngw_sim.write_pcap(written, out)
        cngw_tb.check_with_tshark(written, baseline=pcap)


def test_hw_03_connectx4_cnp_from_a_real_nic_checks_with_scapy_and_tshark(captures_dir):
    (frame,) = cngw_sim.read_pcap(captures_dir / "scapy_uts_connectx4lx_cnp_hexdump.pcap")
    out, parsed, _ = replay([frame], "dc_rx", "wan_tx")
    pkt = cngw_tb.check_roce_frame(out[0])
    assert pkt[BTH].opcode == 0x81 and pkt[BTH].becn == 1 and pkt[BTH].dqpn == 0x000118
    assert (parsed[0].opcode, parsed[0].dest_qp, parsed[0].ecn) == (0x81, 0x000118, 0b10)
    rows = cngw_tb.tshark_fields(out, ["infiniband.bth.opcode", "udp.dstport", "ip.dsfield.ecn"])
    assert rows == [{"infiniband.bth.opcode": "129", "udp.dstport": "4791", "ip.dsfield.ecn": "2"}]
    cngw_tb.check_with_tshark(out)
