"""Independent checks of frames: scapy (RoCEv2 ICRC through
``scapy.contrib.roce``, IPv4/UDP/ICMPv6 checksums by rebuilding) and
tshark (fails on malformed-packet and checksum findings).

Every later feature validates what the gateway emits with these.
"""

import functools
import os
import shutil
import struct
import subprocess
import tempfile

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether
from scapy.packet import Padding
from scapy.utils import wrpcap

ROCEV2_UDP_PORT = 4791


class FrameCheckError(AssertionError):
    """A frame failed a scapy check (the message says which and why)."""


def _icmpv6_layer(pkt):
    for layer in pkt.iterpayloads():
        if type(layer).__name__.startswith("ICMPv6") and any(f.name == "cksum" for f in layer.fields_desc):
            return layer
    return None


def _without_padding(pkt):
    """A copy without the Ethernet padding of a short frame: scapy hangs the
    padding under the last layer, and its ICRC would cover it."""
    copy = pkt.copy()
    pad = copy.getlayer(Padding)
    if pad is not None and pad.underlayer is not None:
        pad.underlayer.remove_payload()
    return copy


def _rebuilt(pkt, layer_type, field):
    """The value scapy computes for ``field`` of ``layer_type`` when it builds the frame afresh."""
    copy = pkt.copy()
    setattr(copy[layer_type], field, None)
    return getattr(Ether(bytes(copy))[layer_type], field)


def check_frame(frame, *, allow_zero_udp_checksum=True):
    """Dissects a frame with scapy and checks every checksum it carries.

    - IPv4 header checksum and total length against the frame,
    - UDP checksum (0 is accepted for RoCEv2 when ``allow_zero_udp_checksum``:
      RoCEv2 NICs send 0 and rely on the ICRC; any other zero over IPv6 fails),
    - ICMPv6 checksum,
    - RoCEv2 ICRC (``scapy.contrib.roce``) for UDP port 4791.

    Returns the scapy packet for field asserts; raises FrameCheckError.
    """
    raw = bytes(frame)
    pkt = Ether(raw)
    problems = []
    if IP in pkt:
        ip = pkt[IP]
        if ip.version != 4:
            problems.append(f"IPv4 version field {ip.version}")
        l3 = len(raw) - len(bytes(ip))  # bytes before the IP header (Ethernet, 802.1Q)
        if ip.len is not None and l3 + ip.len > len(raw):
            problems.append(f"IPv4 total length {ip.len} runs past the {len(raw)}-byte frame")
        want = _rebuilt(pkt, IP, "chksum")
        if ip.chksum != want:
            problems.append(f"IPv4 header checksum {ip.chksum:#06x}, should be {want:#06x}")
    if IPv6 in pkt:
        ip6 = pkt[IPv6]
        l3 = len(raw) - len(bytes(ip6))
        if l3 + 40 + ip6.plen > len(raw):
            problems.append(f"IPv6 payload length {ip6.plen} runs past the {len(raw)}-byte frame")
    if UDP in pkt:
        udp = pkt[UDP]
        roce = udp.dport == ROCEV2_UDP_PORT
        if udp.chksum == 0:
            if IPv6 in pkt and not (roce and allow_zero_udp_checksum):
                problems.append("UDP checksum 0 over IPv6")
        else:
            want = _rebuilt(pkt, UDP, "chksum")
            if udp.chksum != want:
                problems.append(f"UDP checksum {udp.chksum:#06x}, should be {want:#06x}")
        if udp.len is not None and udp.len < 8:
            problems.append(f"UDP length {udp.len} below 8")
    icmp6 = _icmpv6_layer(pkt) if IPv6 in pkt else None
    if icmp6 is not None:
        want = _rebuilt(pkt, type(icmp6), "cksum")
        if icmp6.cksum != want:
            problems.append(f"ICMPv6 checksum {icmp6.cksum:#06x}, should be {want:#06x}")
    if BTH in pkt:
        bth = _without_padding(pkt)[BTH]
        want = bth.compute_icrc(b"")
        got = struct.pack("!I", bth.icrc)
        if want != got:
            problems.append(f"RoCEv2 ICRC {got.hex()} (wire order), should be {want.hex()}")
    if problems:
        raise FrameCheckError(f"{pkt.summary()}: " + "; ".join(problems))
    return pkt


def check_roce_frame(frame, *, allow_zero_udp_checksum=True):
    """``check_frame`` for a frame that must be RoCEv2 (UDP 4791 with a BTH).
    Returns the scapy packet: ``pkt[BTH].opcode``, ``pkt[IP].tos`` ..."""
    pkt = check_frame(frame, allow_zero_udp_checksum=allow_zero_udp_checksum)
    if BTH not in pkt:
        raise FrameCheckError(f"not a RoCEv2 frame: {pkt.summary()}")
    return pkt


# tshark expert info (epan/proto.h): severities and groups.
_SEVERITY = {0x00100000: "comment", 0x00200000: "chat", 0x00400000: "note", 0x00600000: "warn", 0x00800000: "error"}
_GROUP = {
    0x01000000: "checksum", 0x02000000: "sequence", 0x03000000: "response_code", 0x04000000: "request_code",
    0x05000000: "undecoded", 0x06000000: "reassemble", 0x07000000: "malformed", 0x08000000: "debug",
    0x09000000: "protocol", 0x0A000000: "security", 0x0B000000: "comment", 0x0C000000: "decryption",
    0x0D000000: "assumption", 0x0E000000: "deprecated",
}

#: Checksums tshark verifies only when asked.
TSHARK_CHECKSUM_PREFS = ("ip.check_checksum:TRUE", "udp.check_checksum:TRUE", "tcp.check_checksum:TRUE")

#: Dissectors turned off by default: RPC-over-RDMA is only a heuristic guess
#: at RDMA SEND payloads, and on perftest or random payloads (which are not
#: RPC) it reports "Malformed Packet" about bytes that are not ours to check.
DEFAULT_DISABLED_PROTOCOLS = ("rpcordma",)


class TsharkFinding:
    """One expert-info item tshark reported on a frame."""

    def __init__(self, frame, severity, group, message, protocols):
        self.frame = frame
        self.severity = severity
        self.group = group
        self.message = message
        self.protocols = protocols

    @property
    def is_problem(self):
        """Malformed packets, bad checksums and any error-level finding."""
        return self.group in ("malformed", "checksum") or self.severity == "error"

    @property
    def is_zero_rocev2_udp_checksum(self):
        """tshark's "Illegal checksum value (0)" on RoCEv2 over IPv6: RoCEv2
        senders put 0 there and rely on the ICRC (docs/decisions.md)."""
        return self.message.startswith("Illegal checksum value (0)") and "ipv6:udp:infiniband" in self.protocols

    def key(self):
        return (self.frame, self.message)

    def __repr__(self):
        return f"frame {self.frame} [{self.severity}/{self.group}] {self.message} ({self.protocols})"


def tshark_path():
    path = shutil.which("tshark")
    if path is None:
        raise FileNotFoundError("tshark is not installed (tools/setup.sh installs it from Debian's packages)")
    return path


@functools.lru_cache(maxsize=None)
def _known_protocols():
    out = subprocess.run([tshark_path(), "-G", "protocols"], capture_output=True, text=True, check=True).stdout
    return {line.split("\t")[2] for line in out.splitlines() if line.count("\t") >= 2}


def _tshark(pcap, args, disabled):
    cmd = [tshark_path(), "-n", "-r", str(pcap)]
    for pref in TSHARK_CHECKSUM_PREFS:
        cmd += ["-o", pref]
    known = _known_protocols()
    for proto in disabled:
        if proto in known:
            cmd += ["--disable-protocol", proto]
    proc = subprocess.run(cmd + list(args), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tshark failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def _as_pcap(frames_or_path, tmpdir):
    if isinstance(frames_or_path, (str, os.PathLike)):
        return os.fspath(frames_or_path)
    path = os.path.join(tmpdir, "frames.pcap")
    wrpcap(path, [Ether(bytes(f)) for f in frames_or_path])
    return path


def tshark_findings(frames_or_pcap, *, disabled_protocols=DEFAULT_DISABLED_PROTOCOLS):
    """Every expert-info finding tshark reports, with checksum checks on."""
    with tempfile.TemporaryDirectory(prefix="cngw-tshark-") as tmp:
        pcap = _as_pcap(frames_or_pcap, tmp)
        out = _tshark(
            pcap,
            ["-Y", "_ws.expert || _ws.malformed", "-T", "fields", "-E", "separator=/t", "-E", "aggregator=|",
             "-e", "frame.number", "-e", "_ws.expert.severity", "-e", "_ws.expert.group",
             "-e", "_ws.expert.message", "-e", "frame.protocols"],
            disabled_protocols,
        )
    findings = []
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) < 5 or not cols[0]:
            continue
        severities = cols[1].split("|")
        groups = cols[2].split("|")
        messages = cols[3].split("|")
        for i, message in enumerate(messages):
            sev = int(severities[i]) if i < len(severities) and severities[i] else 0
            grp = int(groups[i]) if i < len(groups) and groups[i] else 0
            findings.append(TsharkFinding(int(cols[0]), _SEVERITY.get(sev, hex(sev)), _GROUP.get(grp, hex(grp)),
                                          message, cols[4]))
    return findings


def check_with_tshark(frames_or_pcap, *, baseline=None, allow_zero_udp_checksum=True,
                      disabled_protocols=DEFAULT_DISABLED_PROTOCOLS):
    """Runs tshark (IPv4/UDP/TCP checksum checks on) over a pcap file or a
    list of frames and fails on malformed packets, bad checksums and
    error-level findings. ``baseline`` (a pcap or frames, frame for frame the
    input of a pass-through) tolerates the findings already in it: a capture
    taken with checksum offload carries bad TCP checksums the gateway must
    keep, not fix. ``allow_zero_udp_checksum`` accepts UDP checksum 0 on
    RoCEv2 over IPv6 (as ``check_frame`` does). Returns every finding;
    raises AssertionError.

    tshark picks a UDP dissector by the lower port first, so a frame whose
    source port belongs to another protocol (69 TFTP, 1629 CNIP ...) is
    decoded as that protocol; RNICs use the dynamic range (>= 49152)."""
    findings = tshark_findings(frames_or_pcap, disabled_protocols=disabled_protocols)
    tolerated = set()
    if baseline is not None:
        tolerated = {f.key() for f in tshark_findings(baseline, disabled_protocols=disabled_protocols)}
    problems = [
        f for f in findings
        if f.is_problem and f.key() not in tolerated
        and not (allow_zero_udp_checksum and f.is_zero_rocev2_udp_checksum)
    ]
    if problems:
        shown = "\n  ".join(map(repr, problems[:20]))
        raise AssertionError(f"tshark reports {len(problems)} problem(s):\n  {shown}")
    return findings


def tshark_fields(frames_or_pcap, fields, *, display_filter=None,
                  disabled_protocols=DEFAULT_DISABLED_PROTOCOLS):
    """Field values tshark decodes, one dict per frame (``None`` when absent),
    e.g. ``tshark_fields(frames, ["infiniband.bth.opcode", "ip.dsfield.ecn"])``."""
    args = ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]
    if display_filter:
        args += ["-Y", display_filter]
    for f in fields:
        args += ["-e", f]
    with tempfile.TemporaryDirectory(prefix="cngw-tshark-") as tmp:
        out = _tshark(_as_pcap(frames_or_pcap, tmp), args, disabled_protocols)
    rows = []
    for line in out.splitlines():
        cols = line.split("\t")
        rows.append({f: (cols[i] if i < len(cols) and cols[i] != "" else None) for i, f in enumerate(fields)})
    return rows
