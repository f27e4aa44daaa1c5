"""HW-03: the interop checks every later feature relies on: scapy (ICRC,
IPv4/UDP/ICMPv6 checksums) and tshark (malformed packets, bad checksums)
catch broken frames and pass good ones, Rust-built ones included."""

import pytest
from scapy.contrib.roce import BTH, cnp
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
from scapy.layers.l2 import Dot1Q, Ether

import cngw_sim
import cngw_tb
from cngw_tb import FrameCheckError


def roce_v4():
    return bytes(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1234, dport=4791)
                 / BTH(opcode=0x04, dqpn=7, psn=9) / (b"\x01" * 32))


def roce_v6():
    return bytes(Ether() / Dot1Q(vlan=3) / IPv6(src="fd00::1", dst="fd00::2", fl=0x12345)
                 / UDP(sport=1234, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=7) / (b"\x02" * 40))


def flip(frame, at):
    b = bytearray(frame)
    b[at] ^= 0x01
    return bytes(b)


def test_hw_03_good_frames_pass_scapy():
    for frame in (roce_v4(), roce_v6()):
        pkt = cngw_tb.check_roce_frame(frame)
        assert BTH in pkt
    cngw_tb.check_roce_frame(bytes(Ether() / IP(src="1.1.1.1", dst="2.2.2.2", tos=0xC2) / UDP(sport=0, dport=4791,
                                                                                            chksum=0) / cnp(0x118)))
    cngw_tb.check_frame(bytes(Ether() / IPv6(src="fd00::1", dst="fd00::2") / ICMPv6EchoRequest(data=b"hi")))


def test_hw_03_scapy_catches_each_kind_of_damage():
    v4 = roce_v4()
    with pytest.raises(FrameCheckError, match="ICRC"):
        cngw_tb.check_roce_frame(flip(v4, len(v4) - 10))  # payload bit: ICRC breaks
    with pytest.raises(FrameCheckError, match="IPv4 header checksum"):
        cngw_tb.check_frame(flip(v4, 14 + 8))  # TTL: the ICRC masks it, the IP checksum does not
    with pytest.raises(FrameCheckError, match="UDP checksum"):
        cngw_tb.check_frame(bytes(Ether() / IP() / UDP(dport=53, chksum=0x1234) / b"x"))
    with pytest.raises(FrameCheckError, match="UDP checksum 0 over IPv6"):
        cngw_tb.check_frame(bytes(Ether() / IPv6() / UDP(dport=53, chksum=0) / b"x"))
    with pytest.raises(FrameCheckError, match="ICMPv6 checksum"):
        cngw_tb.check_frame(bytes(Ether() / IPv6() / ICMPv6EchoRequest(cksum=0x1111)))
    with pytest.raises(FrameCheckError, match="not a RoCEv2 frame"):
        cngw_tb.check_roce_frame(bytes(Ether() / IP() / UDP(dport=53) / b"x"))
    # ECN marking does not touch the ICRC (TOS is masked) but needs a new IP checksum.
    marked = bytearray(v4)
    marked[15] |= 0x03
    with pytest.raises(FrameCheckError, match="IPv4 header checksum") as e:
        cngw_tb.check_frame(bytes(marked))
    assert "ICRC" not in str(e.value)


def test_hw_03_short_frames_with_ethernet_padding_check_clean():
    frame = bytes(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=4791, chksum=0)
                  / BTH(opcode=0x11, dqpn=3))
    assert len(frame) == 58
    cngw_tb.check_roce_frame(frame + b"\x00\x00")  # padded to the 60-byte minimum
    cngw_tb.check_with_tshark([frame + b"\x00\x00"])


def test_hw_03_rust_built_rocev2_frames_pass_scapy_and_tshark():
    frames = cngw_sim.random_roce(200, seed=21)
    assert all(cngw_sim.classify(f).is_roce for f in frames)
    for frame in frames:
        cngw_tb.check_roce_frame(frame)  # the packet crate's ICRC agrees with scapy's
    # tshark decodes UDP by the lower port first: a random source port such
    # as 1629 (CNIP) or 69 (TFTP) hides the RoCEv2 behind another protocol.
    # RNICs pick source ports from the dynamic range; so does this check.
    dynamic = [f for f in frames if cngw_sim.classify(f).udp_src_port >= 49152]
    assert len(dynamic) > 20
    cngw_tb.check_with_tshark(dynamic)


def test_hw_03_tshark_flags_malformed_frames_and_bad_checksums():
    good = [roce_v4(), roce_v6()]
    assert cngw_tb.check_with_tshark(good) is not None
    truncated = roce_v4()[:14 + 12]  # IPv4 header cut short
    with pytest.raises(AssertionError, match="malformed|error"):
        cngw_tb.check_with_tshark(good + [truncated])
    bad_ip = flip(roce_v4(), 14 + 8)
    with pytest.raises(AssertionError, match="checksum"):
        cngw_tb.check_with_tshark([bad_ip])
    # A problem already in the baseline (frame for frame) is tolerated.
    cngw_tb.check_with_tshark([bad_ip], baseline=[bad_ip])
    rows = cngw_tb.tshark_fields(good, ["infiniband.bth.opcode", "ipv6.flow"])
    assert rows == [{"infiniband.bth.opcode": "4", "ipv6.flow": None},
                    {"infiniband.bth.opcode": "10", "ipv6.flow": "0x012345"}]
