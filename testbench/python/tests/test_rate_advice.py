"""RA-01/RA-03 from Python: scapy-built RoCEv2 frames of a capable sender bring it one Rate
Advice message on dc_tx (scapy checks its ICRC and checksums and reads the body, tshark finds
nothing wrong with it); a sender outside the capable prefixes gets none. RA-04: a peer gateway's
advice, built by scapy, reaches the sender."""
import ipaddress
import struct

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import cngw_tb
from cngw_tb import REGMAP, ClockCycles

GW_IPV4 = "198.51.100.1"
SENDER = "10.1.0.7"
OTHER = "10.2.0.8"
RECEIVER = "10.200.0.1"
DQP, SQP = 0x4A1, 0x9007
SENDER_MAC = "02:33:00:00:00:07"


def words(addr):
    """An IPv4 address as the four words of a *_0..3 register group (IPv4-mapped)."""
    v = int(ipaddress.IPv6Address("::ffff:" + addr))
    return [(v >> s) & 0xFFFFFFFF for s in (96, 64, 32, 0)]


async def insert_flow(gw, sip, dip, dqp, sqp):
    for i, (s, d) in enumerate(zip(words(sip), words(dip))):
        await gw.csr.write(f"FLOW_SIP_{i}", s)
        await gw.csr.write(f"FLOW_DIP_{i}", d)
    await gw.csr.write("FLOW_DQP", dqp)
    await gw.csr.write("FLOW_SQP", sqp)
    await gw.csr.write_field("FLOW_COMMAND", "insert_static", 1)
    await ClockCycles(gw.clk, 20)


def data(src, mac, psn):
    return (Ether(src=mac, dst="02:00:00:00:00:fe") / IP(src=src, dst=RECEIVER) / UDP(sport=49152, dport=4791)
            / BTH(opcode=0x0A, dqpn=DQP, psn=psn) / (b"\x5a" * 256))


@cngw_tb.test
async def test_ra_03_a_capable_sender_gets_rate_advice_scapy_reads_it(gw):
    await gw.csr.write("GW_IPV4", int(ipaddress.IPv4Address(GW_IPV4)))
    await gw.csr.write("GW_MAC_HI", 0x0200)
    await gw.csr.write("GW_MAC_LO", 0x00000B01)
    await gw.csr.write("RA_CAPACITY_BYTES_PER_US", 1_250)  # 10 Gb/s: the advice is 8 C = 10,000 Mb/s
    for i, w in enumerate(words("10.1.0.0")):
        await gw.csr.write(f"RA_CAP0_PREFIX_{i}", w)
    await gw.csr.write("RA_CAP0_CONTROL", 1 | (96 + 16) << 8)
    for i, w in enumerate(words(SENDER)):
        await gw.csr.write(f"RA_POLICY0_PREFIX_{i}", w)
    await gw.csr.write("RA_POLICY0_CONTROL", 1 | 128 << 8)
    await gw.csr.write("RA_POLICY0_MBPS", 4_000)
    await insert_flow(gw, SENDER, RECEIVER, DQP, SQP)
    await insert_flow(gw, OTHER, RECEIVER, DQP, SQP + 1)
    await gw.csr.write_field("FEATURE_ENABLE", "rate_advice", 1)
    # Three frames of the capable sender: one message (the advice does not change); one of the other.
    for psn in range(3):
        await gw.dc_rx.send(data(SENDER, SENDER_MAC, psn))
    await gw.dc_rx.send(data(OTHER, "02:33:00:00:00:08", 9))
    for _ in range(4):
        cngw_tb.check_roce_frame(await gw.wan_tx.recv(timeout=200))
    msg = await gw.dc_tx.recv(timeout=200)
    pkt = cngw_tb.check_roce_frame(msg)  # ICRC, IPv4 checksum: scapy
    assert pkt[BTH].opcode == REGMAP["RA_OPCODE"].reset == 0x1D
    assert pkt[BTH].dqpn == SQP  # the sender's QP
    assert pkt[IP].src == GW_IPV4 and pkt[IP].dst == SENDER and pkt[Ether].dst == SENDER_MAC
    assert pkt[UDP].dport == 4791
    rate, version, body_dqp, body_sqp = struct.unpack("!IIII", bytes(pkt[BTH].payload)[:16])
    assert (rate, version, body_dqp, body_sqp) == (4_000, 1, DQP, 0)  # the policy cap below 8 C
    cngw_tb.check_with_tshark([msg])
    await gw.drain()
    assert await gw.csr.read("RA_SENT") == 1
    assert await gw.csr.read("RA_PORT_RATE_MBPS") == 10_000


PEER = "198.51.100.9"


@cngw_tb.test
async def test_ra_04_a_peer_gateways_advice_reaches_the_sender(gw):
    """RA-04 source gateway: a Rate Advice message that scapy builds (ICRC included) from the
    peer gateway (QP 0) is taken off wan_rx, and the capable sender of a flow toward the prefix
    behind that peer is told the peer's rate, below the port's own advice."""
    await gw.csr.write("GW_IPV4", int(ipaddress.IPv4Address(GW_IPV4)))
    await gw.csr.write("GW_MAC_HI", 0x0200)
    await gw.csr.write("GW_MAC_LO", 0x00000B01)
    await gw.csr.write("RA_CAPACITY_BYTES_PER_US", 1_250)  # 10 Gb/s: the port's advice is 10,000 Mb/s
    for i, w in enumerate(words("10.1.0.0")):
        await gw.csr.write(f"RA_CAP0_PREFIX_{i}", w)
    await gw.csr.write("RA_CAP0_CONTROL", 1 | (96 + 16) << 8)
    for i, (a, p) in enumerate(zip(words(PEER), words("10.200.0.0"))):
        await gw.csr.write(f"RA_PEER0_ADDR_{i}", a)
        await gw.csr.write(f"RA_PEER0_PREFIX_{i}", p)
    await gw.csr.write("RA_PEER0_CONTROL", 1 | (96 + 16) << 8)
    await gw.csr.write_field("RA_REMOTE_CONTROL", "accept", 1)
    await insert_flow(gw, SENDER, RECEIVER, DQP, SQP)
    await gw.csr.write_field("FEATURE_ENABLE", "rate_advice", 1)
    advice = (Ether(src="02:77:00:00:00:02", dst="02:00:00:00:0b:01") / IP(src=PEER, dst=GW_IPV4)
              / UDP(sport=49152, dport=4791) / BTH(opcode=0x1D, pkey=0xFFFF, dqpn=0)
              / struct.pack("!IIII", 2_500, 1, 0, 0))
    await gw.wan_rx.send(advice)
    await ClockCycles(gw.clk, 40)
    assert await gw.csr.read("RA_REMOTE_RECEIVED") == 1
    assert await gw.csr.read("RA_PEER0_MBPS") == 2_500
    await gw.dc_rx.send(data(SENDER, SENDER_MAC, 1))
    cngw_tb.check_roce_frame(await gw.wan_tx.recv(timeout=200))
    msg = await gw.dc_tx.recv(timeout=200)  # the peer's message itself never reaches dc_tx
    pkt = cngw_tb.check_roce_frame(msg)
    assert pkt[IP].src == GW_IPV4 and pkt[IP].dst == SENDER and pkt[BTH].dqpn == SQP
    rate, version, body_dqp, body_sqp = struct.unpack("!IIII", bytes(pkt[BTH].payload)[:16])
    assert (rate, version, body_dqp, body_sqp) == (2_500, 1, DQP, 0)
    cngw_tb.check_with_tshark([msg])
    await gw.drain()
    assert await gw.csr.read("RA_SENT") == 1
