"""Independent check of cngw-packet frames with scapy.

Reads one frame per line (hex) on stdin and prints one line per frame of
space-separated `key=value` pairs:

- every field of every layer scapy dissects, as `Layer.field` (a repeated
  layer gets a suffix: `IPv6_2.src`); bytes are hex, lists comma-joined;
- `icrc_ok`: scapy's RoCE layer (scapy.contrib.roce) recomputes the ICRC and
  the rebuilt frame equals the input; `icrc_scapy` is its ICRC, wire order;
- `ip_chksum_ok`, `udp_chksum_ok`, `icmpv6_chksum_ok`: deleting the checksum
  and letting scapy rebuild it gives the input frame again (a zero UDP
  checksum is reported as `udp_chksum_ok=zero`);
- `bth_payload`: the bytes scapy puts after the BTH, without the ICRC;
- `udp_payload`: the bytes after the UDP header of a frame without a BTH
  or VXLAN header (a Fast CNP's label and level, for instance);
- `ext_chksum_ok`: for Long-haul CNPs with an RFC 4884 extension structure
  after the 12-byte body, scapy's ICMPExtension_Header computes the same
  extension checksum.

Embedded in cngw_packet::scapy (run with CNGW_PYTHON, an interpreter with scapy).
"""

import sys

from scapy.all import Ether, IP, IPv6, UDP, Raw, Padding, conf, raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import ICMPExtension_Header
from scapy.layers.inet6 import ICMPv6Unknown
import scapy.layers.vxlan  # noqa: F401  (binds UDP 4789)

conf.verb = 0


def value(v):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return ",".join(value(x) for x in v)
    return str(v).replace(" ", "_")


def fields(pkt):
    out = {}
    seen = {}
    layer = pkt
    while layer is not None and not isinstance(layer, (Raw, Padding)) and layer.name != "NoPayload":
        name = type(layer).__name__
        seen[name] = seen.get(name, 0) + 1
        key = name if seen[name] == 1 else f"{name}_{seen[name]}"
        for f in layer.fields_desc:
            out[f"{key}.{f.name}"] = value(layer.getfieldval(f.name))
        layer = layer.payload if layer.payload else None
    return out


def extension_checksum_ok(ext):
    """RFC 4884 extension structure: scapy recomputes the same checksum."""
    h = ICMPExtension_Header(ext[:4]) / Raw(ext[4:])
    h.chksum = None
    return str(raw(h) == ext)


def rebuilt_equal(data, layer_cls, field):
    q = Ether(data)
    if layer_cls not in q:
        return None
    delattr(q[layer_cls], field)
    return raw(q) == data


def check(data):
    p = Ether(data)
    out = fields(p)
    if BTH in p:
        q = Ether(data)
        q[BTH].icrc = None
        rebuilt = raw(q)
        out["icrc_ok"] = str(rebuilt == data)
        scapy_icrc = BTH.compute_icrc(q[BTH], b"")
        out["icrc_scapy"] = scapy_icrc.hex()
        payload = p[BTH].payload
        pad = p[Padding].load if Padding in p else b""
        body = raw(payload)
        if pad and body.endswith(pad):
            body = body[: -len(pad)]
        out["bth_payload"] = body.hex()
        if p[BTH].opcode == 0x81 and p[BTH].resv6 & 0x20 and len(body) > 12:
            out["ext_chksum_ok"] = extension_checksum_ok(body[12:])
    if IP in p:
        out["ip_chksum_ok"] = str(rebuilt_equal(data, IP, "chksum"))
    if UDP in p:
        if BTH not in p and isinstance(p[UDP].payload, Raw):
            out["udp_payload"] = raw(p[UDP].payload).hex()
        if p[UDP].chksum == 0:
            out["udp_chksum_ok"] = "zero"
        else:
            out["udp_chksum_ok"] = str(rebuilt_equal(data, UDP, "chksum"))
    if IPv6 in p and p[IPv6].nh == 58 and isinstance(p[IPv6].payload, Raw):
        # scapy leaves informational types it does not know (such as the
        # Long-haul CNP's) as Raw: decode them as ICMPv6Unknown.
        q = Ether(data)
        icmp = ICMPv6Unknown(raw(q[IPv6].payload))
        out.update(fields(icmp))
        q[IPv6].remove_payload()
        q = q / ICMPv6Unknown(type=icmp.type, code=icmp.code, msgbody=icmp.msgbody)
        out["icmpv6_chksum_ok"] = str(raw(q) == data)
        if len(icmp.msgbody) > 12:
            out["ext_chksum_ok"] = extension_checksum_ok(icmp.msgbody[12:])
    elif ICMPv6Unknown in p:
        out["icmpv6_chksum_ok"] = str(rebuilt_equal(data, ICMPv6Unknown, "cksum"))
    return out


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        out = check(bytes.fromhex(line))
        print(" ".join(f"{k}={v}" for k, v in out.items()), flush=True)


if __name__ == "__main__":
    main()
