"""HW-03: the testbench guide's example, a scapy-built RoCEv2 frame from dc_rx to wan_tx."""
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import cngw_tb


@cngw_tb.test
async def test_hw_03_scapy_rocev2_frame_crosses_from_dc_to_wan(gw):
    frame = (Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=0x02) / UDP(sport=49152, dport=4791)
             / BTH(opcode=0x0A, dqpn=0x45, psn=7) / (b"\xab" * 64))
    await gw.dc_rx.send(frame)
    out = await gw.wan_tx.recv(timeout=100)
    pkt = cngw_tb.check_roce_frame(out)  # ICRC and checksums, by scapy
    assert pkt[BTH].dqpn == 0x45 and pkt[IP].tos == 0x02
    assert out == bytes(frame)  # features off: forwarded byte for byte
    header = await gw.parsed("dc_rx")
    assert header.is_roce and header.dest_qp == 0x45 and header.psn == 7
    assert await gw.csr.read("DC_RX_ROCE_FRAMES") == 1
