//! `NotifyBuilder`: turns a notification job into a complete frame: a
//! RoCEv2 CNP (IPv4 header checksum and ICRC included) or a Long-haul CNP
//! in ICMPv6 format (ICMPv6 checksum included), with the optional
//! extension structure of the Long-haul CNP, on an AXI4-Stream source.
//!
//! ```text
//!                  +-------------------------------------------------------------+
//!  job_valid   --->| IDLE: compose the frame    STREAM: beats through FrameIcrc   |
//!  job_ready   <---|   = template(kind, ipv6)     (RoCEv2; beat 0 also through    |---> m (two or three
//!  job_kind    --->|   | MACs | DSCP | IPs        Ipv4HeaderChecksum) or Icmpv6Ch. |     beats, tuser 0)
//!  job_ipv6 ...--->|   | P_Key | DestQP | body  SEND: beat 0, 1 (, 2) (tlast)    |
//!  job_icmp_type ->|   | ICMPv6 type | lengths   the checksums and the ICRC are    |
//!  job_timestamp ->|   | extension structure    written into the held frame      |
//!  ext_* --------->| [configuration pipeline: objects, lengths, their sum]       |
//!                  +-------------------------------------------------------------+
//! ```
//! Kinds (`job_kind`, [`NotifyKind`]):
//! - 0 standard CNP (BTH opcode 0x81, BECN, 16 zero bytes): 74 bytes over
//!   IPv4, 94 over IPv6; never an extension structure;
//! - 1 Long-haul CNP in RoCEv2 format (LH-12: opcode 0x81, BECN 1, E bit 1,
//!   12-byte body straight after the BTH, then the extension structure if
//!   any object is enabled, then the ICRC over all of it): 70 + E bytes
//!   over IPv4, 90 + E over IPv6;
//! - 2 Long-haul CNP in ICMPv6 format (LH-13, IPv6 only): ICMPv6 type
//!   `job_icmp_type`, code 0, checksum, the 12-byte body and the extension
//!   structure if any; IPv6 next header 58, payload length 16 + E: 70 + E
//!   bytes. Every part is a multiple of four bytes (objects are padded), so
//!   the message needs no further padding, and every frame is above the
//!   60-byte Ethernet minimum.
//! - 3 Fast CNP (FCN-03, draft-he-fcn-in-wan section 4.2; IPv6 only,
//!   `job_ipv6` ignored): IPv6 next header 17, payload length 12, flow
//!   label `job_flow_label`, and `job_body` as the whole 12-byte UDP
//!   datagram (ports, length 12, checksum, payload) that the caller built:
//!   66 bytes, never an extension structure, no checksum or ICRC here, so
//!   its first beat leaves in the clock after the job is taken.
//!
//! E is the length of the extension structure (RFC 4884 section 7, the
//! draft's "Optional Extension Objects"): 0 when no object is enabled (the
//! draft: the Extension Header MUST then be omitted), else the 4-byte
//! header (version 2, reserved 0, checksum) and the enabled objects in
//! C-Type order, each `Length | Class-Num | C-Type | payload` zero-padded
//! to four bytes, Length unpadded:
//! - timestamp (`ext_enable` bit 0, C-Type 1): `job_timestamp`, 8 bytes
//!   of NTP time (seconds in bits 63..32), 12 bytes in all;
//! - device identifier (bit 1, C-Type 2): the first `ext_device_id_len`
//!   bytes (0..16; larger values send 16) of `ext_device_id`;
//! - path identifier (bit 2, C-Type 3): the first `ext_path_id_len` bytes
//!   (0..8; larger values send 8) of `ext_path_id`;
//!
//! all with Class-Num `ext_class_num`; E is 0 or 8..48. The extension
//! checksum is the one's complement of the one's complement sum of header
//! and objects — the same bytes `cngw_packet::icmp_extension` builds. The
//! IPv4 total length, UDP length and IPv6 payload length grow by E; the ICRC
//! (kind 1) and the ICMPv6 checksum (kind 2) cover the structure.
//!
//! The `ext_*` inputs are configuration (registers): the block takes them
//! through a two-stage pipeline (objects placed and summed, then the sum
//! folded) that recomputes only when an input changed, so a job sees them
//! as they were at least three clocks before it is taken; `job_ready` stays
//! low while the pipeline moves (two clocks after a change, and after
//! reset), so every frame comes from one configuration. Every object
//! sits at a multiple of four bytes, so the checksum does not depend on
//! where an object lands: the pipeline keeps the folded sum of everything
//! but the timestamp, the job adds its timestamp's four words, and the
//! result goes into the held frame in the clock after the job is taken,
//! before any beat streams through the ICRC or ICMPv6 checksum.
//!
//! Kind 2 with `job_ipv6` low is a caller error (the draft's
//! "Applicability Statement": IPv4 destinations get the RoCEv2 format): the
//! block then builds the IPv4 standard CNP of kind 0 from the same job
//! (P_Key and DestQP included), which every RoCEv2 sender understands, with
//! kind 0's timing.
//!
//! All are untagged Ethernet frames (no FCS), ECN Not-ECT; IPv4 TTL 64,
//! identification 0, DF; IPv6 hop limit 64, flow label 0; the RoCEv2 kinds
//! have UDP source port 0 and UDP checksum 0, A, SE, M, Pad, TVer 0 and
//! PSN 0 — exactly what `cngw_packet`'s `Cnp`, `LonghaulRocev2` and
//! `LonghaulIcmpv6` build, which is the reference (each fixed byte comes
//! from a template that the packet crate builds when the block is
//! constructed).
//!
//! The job fields: MACs and IP addresses in lane order (byte `k` at bits
//! `8k+7..8k`, as on the wire; an IPv4 address sits in bytes 12..15 of the
//! IPv4-mapped 128-bit value, like `HeaderSource`), `job_dscp`, `job_pkey`
//! and `job_dqp` (BTH DestQP: the sender's QP; ignored by kind 2) as
//! numbers, `job_body` the 12-byte Long-haul body in lane order (ignored
//! for a standard CNP), `job_icmp_type` the ICMPv6 type (kind 2 only; the
//! draft's TBD1, 200 by default in the packet crate) and `job_timestamp`
//! a number (used when the timestamp object is enabled). `ext_device_id`
//! and `ext_path_id` are in lane order (byte 0 of the identifier first).
//!
//! One job at a time: `job_ready` is high in IDLE only; a job is taken on
//! `job_valid & job_ready`. The first beat of a RoCEv2 frame leaves ten
//! clocks after the job is taken (one to compose, two to stream the beats
//! through `FrameIcrc`, seven for its result; the IPv4 header goes to its
//! checksum unit with beat 0 and the checksum lands in beat 0 meanwhile,
//! since the ICRC counts that field as ones), eleven for a
//! three-beat frame (a Long-haul RoCEv2 frame over
//! IPv6 with more than 38 bytes of extension); a frame every twelve clocks
//! at best when `m.tready` stays high (fourteen for three beats); that of an
//! ICMPv6 frame ten clocks after (one to compose, two to stream the beats
//! through `Icmpv6Checksum`, seven for its result), a frame every twelve
//! clocks at best. The extension costs nothing more. Far above any
//! configured notification rate. The output holds its beat until
//! `m.tready`.
//!
//! Issue 4: the frame builder of the notification engine (LH-12, LH-13;
//! FCN-05 uses kind 0).

use super::{FrameIcrc, Icmpv6Checksum, Ipv4HeaderChecksum};

// The documented frame timing (first beat ten clocks after the job, which
// the model's scenario loop follows) needs the ICRC at most seven clocks
// after the last beat streamed through `FrameIcrc`.
const _: () = assert!(super::frame_icrc::LATENCY <= 7);
use crate::stream::AxisSource;
use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use rust_hdl::prelude::*;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Values of `job_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyKind {
    StandardCnp = 0,
    LonghaulRocev2 = 1,
    /// IPv6 only; over IPv4 the block builds a [`NotifyKind::StandardCnp`].
    LonghaulIcmpv6 = 2,
    /// IPv6 only: a UDP datagram the caller built (`job_body`).
    FastCnp = 3,
}

/// Length (no FCS) of the frame the block builds for `kind` over IPv4 or
/// IPv6 (kind 2 over IPv4: the standard CNP) with an extension structure
/// of `ext_len` bytes (0: none; a standard CNP never has one).
pub fn frame_len(kind: NotifyKind, ipv6: bool, ext_len: usize) -> usize {
    match (kind, ipv6) {
        (NotifyKind::StandardCnp, false) | (NotifyKind::LonghaulIcmpv6, false) => 74,
        (NotifyKind::StandardCnp, true) => 94,
        (NotifyKind::LonghaulRocev2, false) => 70 + ext_len,
        (NotifyKind::LonghaulRocev2, true) => 90 + ext_len,
        (NotifyKind::LonghaulIcmpv6, true) => 70 + ext_len,
        (NotifyKind::FastCnp, _) => 66,
    }
}

/// Where the extension structure starts in the frame of a Long-haul kind
/// (right after the 12-byte body).
pub fn extension_offset(kind: NotifyKind, ipv6: bool) -> Option<usize> {
    match (kind, ipv6) {
        (NotifyKind::LonghaulRocev2, false) => Some(66),
        (NotifyKind::LonghaulRocev2, true) => Some(86),
        (NotifyKind::LonghaulIcmpv6, true) => Some(70),
        _ => None,
    }
}

/// The frame the block builds for `kind` without extension, with every
/// variable field zero (MACs, DSCP, addresses, P_Key, DestQP, body, ICMPv6
/// type), the IPv4 checksum, the ICRC and the ICMPv6 checksum zero, and —
/// for the Long-haul kinds, whose lengths grow with the extension — the
/// IPv4 total length, UDP length and IPv6 payload length zero.
pub fn template(kind: NotifyKind, ipv6: bool) -> Vec<u8> {
    let env = if ipv6 {
        Envelope::ipv6(Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED)
    } else {
        Envelope::ipv4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED)
    }
    .with_macs([0; 6], [0; 6]);
    let body = LonghaulBody {
        congestion_level: 0,
        action: Action::Notify,
        parameter: 0,
        source_qp: 0,
        metric_type: 0,
        metric_value: 0,
    };
    if kind == NotifyKind::FastCnp {
        // The UDP datagram (ports, length, checksum, payload) is the job's.
        let env =
            Envelope::ipv6(Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED).with_macs([0; 6], [0; 6]);
        let mut bytes = cngw_packet::fast_cnp::FastCnp::new(0, 0)
            .to_frame(&env, 0, 0)
            .to_bytes();
        bytes[54..66].fill(0);
        assert_eq!(bytes.len(), frame_len(kind, true, 0));
        return bytes;
    }
    let mut bytes = match (kind, ipv6) {
        (NotifyKind::StandardCnp, _) | (NotifyKind::LonghaulIcmpv6, false) => {
            let mut cnp = Cnp::new(0);
            cnp.pkey = 0;
            cnp.to_frame(&env).to_bytes()
        }
        (NotifyKind::LonghaulRocev2, _) => {
            let mut lh = LonghaulRocev2::new(0, LonghaulCnp::new(body));
            lh.pkey = 0;
            lh.to_frame(&env).to_bytes()
        }
        (NotifyKind::LonghaulIcmpv6, true) => {
            let mut lh = LonghaulIcmpv6::new(LonghaulCnp::new(body));
            lh.icmp_type = 0;
            lh.to_frame(&env).expect("IPv6 envelope").to_bytes()
        }
        (NotifyKind::FastCnp, _) => unreachable!("returned above"),
    };
    assert_eq!(bytes.len(), frame_len(kind, ipv6, 0));
    if kind == NotifyKind::LonghaulIcmpv6 && ipv6 {
        // The payload length and the ICMPv6 checksum (message bytes 2..3).
        bytes[18..20].fill(0);
        bytes[56..58].fill(0);
        return bytes;
    }
    if kind == NotifyKind::LonghaulRocev2 {
        // IPv4 total length and UDP length, or IPv6 payload length and UDP
        // length.
        let (ip, udp) = if ipv6 { (18, 58) } else { (16, 38) };
        bytes[ip..ip + 2].fill(0);
        bytes[udp..udp + 2].fill(0);
    }
    if !ipv6 {
        bytes[24] = 0;
        bytes[25] = 0;
    }
    let n = bytes.len();
    bytes[n - 4..].fill(0);
    bytes
}

/// The Rate Advice message (RA-03) the block builds for a kind-0 job with
/// `job_rate_advice` set: the standard CNP's size (74 bytes over IPv4, 94
/// over IPv6) with BTH opcode `job_opcode`, no BECN, UDP source port
/// 0xC000 and the 16-byte Rate Advice packet {rate, version 1, DestQP, 0}
/// instead of the CNP's zero bytes; the template has every variable field
/// zero (MACs, DSCP, addresses, opcode, P_Key, DestQP, rate, the body's
/// DestQP), the IPv4 checksum and the ICRC zero, the version 1.
pub fn rate_advice_template(ipv6: bool) -> Vec<u8> {
    use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage};
    let env = if ipv6 {
        Envelope::ipv6(Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED)
    } else {
        Envelope::ipv4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED)
    }
    .with_macs([0; 6], [0; 6]);
    let mut m = RateAdviceMessage::new(0, RateAdvice::new(0, 0, 0));
    m.opcode = 0;
    m.pkey = 0;
    let mut bytes = m.to_frame(&env).to_bytes();
    assert_eq!(bytes.len(), frame_len(NotifyKind::StandardCnp, ipv6, 0));
    if !ipv6 {
        bytes[24] = 0;
        bytes[25] = 0;
    }
    let n = bytes.len();
    bytes[n - 4..].fill(0);
    bytes
}

fn bytes_to_bits<const N: usize>(bytes: &[u8]) -> Bits<N> {
    let mut v = Bits::<N>::default();
    for (i, w) in bytes.chunks(8).enumerate() {
        let mut b = [0u8; 8];
        b[..w.len()].copy_from_slice(w);
        v = v | (bit_cast::<N, 64>(bits::<64>(u64::from_le_bytes(b))) << (64 * i as u64));
    }
    v
}

#[derive(LogicBlock)]
pub struct NotifyBuilder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub job_valid: Signal<In, Bit>,
    pub job_ready: Signal<Out, Bit>,
    /// [`NotifyKind`].
    pub job_kind: Signal<In, Bits<2>>,
    pub job_ipv6: Signal<In, Bit>,
    /// Destination and source MAC, lane order.
    pub job_dst_mac: Signal<In, Bits<48>>,
    pub job_src_mac: Signal<In, Bits<48>>,
    /// Source and destination IP, lane order, IPv4 as IPv4-mapped.
    pub job_src_ip: Signal<In, Bits<128>>,
    pub job_dst_ip: Signal<In, Bits<128>>,
    pub job_dscp: Signal<In, Bits<6>>,
    pub job_pkey: Signal<In, Bits<16>>,
    /// BTH DestQP (the QP at the sender).
    pub job_dqp: Signal<In, Bits<24>>,
    /// Long-haul body (12 bytes), lane order.
    pub job_body: Signal<In, Bits<96>>,
    /// ICMPv6 type of kind 2 (draft TBD1).
    pub job_icmp_type: Signal<In, Bits<8>>,
    /// NTP time of the timestamp object (seconds 63..32, fraction 31..0).
    pub job_timestamp: Signal<In, Bits<64>>,
    /// Kind 3: the IPv6 flow label.
    pub job_flow_label: Signal<In, Bits<20>>,
    /// Kind 0 only: a Rate Advice message ([`rate_advice_template`]) with
    /// BTH opcode `job_opcode`; `job_body` bytes 0..3 are its rate, bytes
    /// 4..11 its bytes 8..15 (DestQP, Source QP).
    pub job_rate_advice: Signal<In, Bit>,
    pub job_opcode: Signal<In, Bits<8>>,
    /// The frame is for wan_tx (RA-04's remote advice): it leaves on `w`
    /// instead of `m`.
    pub job_wan: Signal<In, Bit>,
    /// Extension objects: timestamp (bit 0), device id (1), path id (2).
    pub ext_enable: Signal<In, Bits<3>>,
    pub ext_class_num: Signal<In, Bits<8>>,
    /// Device identifier, lane order, and its length in bytes (0..16).
    pub ext_device_id: Signal<In, Bits<128>>,
    pub ext_device_id_len: Signal<In, Bits<5>>,
    /// Path identifier, lane order, and its length in bytes (0..8).
    pub ext_path_id: Signal<In, Bits<64>>,
    pub ext_path_id_len: Signal<In, Bits<4>>,
    /// The frames.
    pub m: AxisSource,
    /// The frames of `job_wan` jobs (toward wan_tx).
    pub w: AxisSource,
    /// High in the clock a frame's last beat leaves on `w`.
    pub w_sent: Signal<Out, Bit>,
    /// A beat is offered (on `m` or `w`, as the job's port says).
    out_valid: Signal<Local, Bit>,
    templates: Vec<Constant<Bits<1536>>>,
    all_lanes: Constant<Bits<64>>,
    /// Byte `k` of an identifier register (`0xFF << 8k`).
    dev_lane: Vec<Constant<Bits<128>>>,
    path_lane: Vec<Constant<Bits<64>>>,
    state: DFF<BuildState>,
    wan: DFF<Bit>,
    /// The output the frame in progress leaves on is ready.
    out_ready: Signal<Local, Bit>,
    frame_q: DFF<Bits<1536>>,
    /// The ICRC unit's input, registered: the beat of `frame_q` the next
    /// clock streams and its flags, set from the state machine's next step
    /// (no state decode in front of the unit's header parse).
    icrc_beat: DFF<Bits<512>>,
    icrc_go: DFF<Bit>,
    icrc_end: DFF<Bit>,
    icrc_keep: DFF<Bits<64>>,
    /// The job's ICRC field offset (frame length - 4), given to the ICRC
    /// unit with the job's IP version instead of its parsing them back.
    icrc_at: DFF<Bits<8>>,
    keep_last: DFF<Bits<64>>,
    three_beats: DFF<Bit>,
    ipv6: DFF<Bit>,
    longhaul: DFF<Bit>,
    icmpv6: DFF<Bit>,
    /// The job carries an extension structure; its checksum is due.
    ext_job: DFF<Bit>,
    ext_fresh: DFF<Bit>,
    ext_static_sum: DFF<Bits<16>>,
    ts_sum: DFF<Bits<18>>,
    /// Where the ICRC goes: 32-bit words after the tail start, and which
    /// tail start (0: byte 66, 1: 86, 2: 70, 3: 90).
    tail_word: DFF<Bits<4>>,
    tail_sel: DFF<Bits<2>>,
    ipv4_csum: Ipv4HeaderChecksum,
    icrc_unit: FrameIcrc,
    icmpv6_csum: Icmpv6Checksum,
    // Configuration pipeline: the inputs as last seen, stage B (objects
    // placed, byte sums), stage C (sum folded, lengths).
    cfg_seen: DFF<Bit>,
    cfg_enable: DFF<Bits<3>>,
    cfg_class: DFF<Bits<8>>,
    cfg_device: DFF<Bits<128>>,
    cfg_device_len: DFF<Bits<5>>,
    cfg_path: DFF<Bits<64>>,
    cfg_path_len: DFF<Bits<4>>,
    b_fresh: DFF<Bit>,
    b_ext: DFF<Bits<384>>,
    b_len: DFF<Bits<6>>,
    b_ts: DFF<Bit>,
    b_high: DFF<Bits<13>>,
    b_low: DFF<Bits<13>>,
    c_ext: DFF<Bits<384>>,
    c_len: DFF<Bits<6>>,
    c_ts: DFF<Bit>,
    c_sum: DFF<Bits<16>>,
    c_len56: DFF<Bits<8>>,
    c_len36: DFF<Bits<8>>,
    c_len16: DFF<Bits<8>>,
    // Combinational.
    cfg_changed: Signal<Local, Bit>,
    settled: Signal<Local, Bit>,
    dev_len: Signal<Local, Bits<5>>,
    dev_mask: Signal<Local, Bits<128>>,
    dev_bytes: Signal<Local, Bits<128>>,
    dev_size: Signal<Local, Bits<6>>,
    dev_len_byte: Signal<Local, Bits<8>>,
    dev_obj: Signal<Local, Bits<160>>,
    path_len: Signal<Local, Bits<4>>,
    path_mask: Signal<Local, Bits<64>>,
    path_bytes: Signal<Local, Bits<64>>,
    path_size: Signal<Local, Bits<6>>,
    path_len_byte: Signal<Local, Bits<8>>,
    path_obj: Signal<Local, Bits<96>>,
    path_at: Signal<Local, Bits<6>>,
    path_at_bits: Signal<Local, Bits<9>>,
    ext_end: Signal<Local, Bits<6>>,
    ext_static: Signal<Local, Bits<384>>,
    dev_even: Signal<Local, Bits<13>>,
    dev_odd: Signal<Local, Bits<13>>,
    path_even: Signal<Local, Bits<13>>,
    path_odd: Signal<Local, Bits<13>>,
    high_sum: Signal<Local, Bits<13>>,
    low_sum: Signal<Local, Bits<13>>,
    static_words: Signal<Local, Bits<21>>,
    static_fold: Signal<Local, Bits<17>>,
    static_fold2: Signal<Local, Bits<16>>,
    ts_lanes: Signal<Local, Bits<64>>,
    ext_frame: Signal<Local, Bits<384>>,
    ext_total: Signal<Local, Bits<19>>,
    ext_fold: Signal<Local, Bits<17>>,
    ext_fold2: Signal<Local, Bits<16>>,
    ext_csum: Signal<Local, Bits<16>>,
    ext_csum_lanes: Signal<Local, Bits<16>>,
    flen: Signal<Local, Bits<8>>,
    keep_shift: Signal<Local, Bits<7>>,
    icrc_shift: Signal<Local, Bits<9>>,
    standard_job: Signal<Local, Bit>,
    icmpv6_job: Signal<Local, Bit>,
    fcn_job: Signal<Local, Bit>,
    label_lanes: Signal<Local, Bits<24>>,
    pkey_lanes: Signal<Local, Bits<16>>,
    dqp_lanes: Signal<Local, Bits<24>>,
    tos_v4: Signal<Local, Bits<8>>,
    tc_v6: Signal<Local, Bits<16>>,
    frame_v4: Signal<Local, Bits<512>>,
    frame_v6: Signal<Local, Bits<512>>,
    checksum_lanes: Signal<Local, Bits<16>>,
    icmpv6_checksum_lanes: Signal<Local, Bits<16>>,
}

impl Default for NotifyBuilder {
    fn default() -> Self {
        // Index: kind * 2 + ipv6 (kind 2 over IPv4 uses index 0).
        let templates = [
            (NotifyKind::StandardCnp, false),
            (NotifyKind::StandardCnp, true),
            (NotifyKind::LonghaulRocev2, false),
            (NotifyKind::LonghaulRocev2, true),
            (NotifyKind::LonghaulIcmpv6, true),
            (NotifyKind::FastCnp, true),
        ]
        .iter()
        .map(|&(k, v6)| Constant::new(bytes_to_bits::<1536>(&template(k, v6))))
        .chain(
            [false, true]
                .iter()
                .map(|&v6| Constant::new(bytes_to_bits::<1536>(&rate_advice_template(v6)))),
        )
        .collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_kind: Default::default(),
            job_ipv6: Default::default(),
            job_dst_mac: Default::default(),
            job_src_mac: Default::default(),
            job_src_ip: Default::default(),
            job_dst_ip: Default::default(),
            job_dscp: Default::default(),
            job_pkey: Default::default(),
            job_dqp: Default::default(),
            job_body: Default::default(),
            job_flow_label: Default::default(),
            job_rate_advice: Default::default(),
            job_opcode: Default::default(),
            job_wan: Default::default(),
            job_icmp_type: Default::default(),
            job_timestamp: Default::default(),
            ext_enable: Default::default(),
            ext_class_num: Default::default(),
            ext_device_id: Default::default(),
            ext_device_id_len: Default::default(),
            ext_path_id: Default::default(),
            ext_path_id_len: Default::default(),
            m: Default::default(),
            w: Default::default(),
            w_sent: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            templates,
            all_lanes: Constant::new(bits::<64>(u64::MAX)),
            dev_lane: (0..16)
                .map(|k| Constant::new(bit_cast::<128, 8>(bits::<8>(0xFF)) << (8 * k)))
                .collect(),
            path_lane: (0..8)
                .map(|k| Constant::new(bit_cast::<64, 8>(bits::<8>(0xFF)) << (8 * k)))
                .collect(),
            state: Default::default(),
            wan: Default::default(),
            frame_q: Default::default(),
            icrc_beat: Default::default(),
            icrc_go: Default::default(),
            icrc_end: Default::default(),
            icrc_keep: Default::default(),
            icrc_at: Default::default(),
            keep_last: Default::default(),
            three_beats: Default::default(),
            ipv6: Default::default(),
            longhaul: Default::default(),
            icmpv6: Default::default(),
            ext_job: Default::default(),
            ext_fresh: Default::default(),
            ext_static_sum: Default::default(),
            ts_sum: Default::default(),
            tail_word: Default::default(),
            tail_sel: Default::default(),
            ipv4_csum: Default::default(),
            icrc_unit: Default::default(),
            icmpv6_csum: Default::default(),
            cfg_seen: Default::default(),
            cfg_enable: Default::default(),
            cfg_class: Default::default(),
            cfg_device: Default::default(),
            cfg_device_len: Default::default(),
            cfg_path: Default::default(),
            cfg_path_len: Default::default(),
            b_fresh: Default::default(),
            b_ext: Default::default(),
            b_len: Default::default(),
            b_ts: Default::default(),
            b_high: Default::default(),
            b_low: Default::default(),
            c_ext: Default::default(),
            c_len: Default::default(),
            c_ts: Default::default(),
            c_sum: Default::default(),
            c_len56: Default::default(),
            c_len36: Default::default(),
            c_len16: Default::default(),
            cfg_changed: Default::default(),
            settled: Default::default(),
            dev_len: Default::default(),
            dev_mask: Default::default(),
            dev_bytes: Default::default(),
            dev_size: Default::default(),
            dev_len_byte: Default::default(),
            dev_obj: Default::default(),
            path_len: Default::default(),
            path_mask: Default::default(),
            path_bytes: Default::default(),
            path_size: Default::default(),
            path_len_byte: Default::default(),
            path_obj: Default::default(),
            path_at: Default::default(),
            path_at_bits: Default::default(),
            ext_end: Default::default(),
            ext_static: Default::default(),
            dev_even: Default::default(),
            dev_odd: Default::default(),
            path_even: Default::default(),
            path_odd: Default::default(),
            high_sum: Default::default(),
            low_sum: Default::default(),
            static_words: Default::default(),
            static_fold: Default::default(),
            static_fold2: Default::default(),
            ts_lanes: Default::default(),
            ext_frame: Default::default(),
            ext_total: Default::default(),
            ext_fold: Default::default(),
            ext_fold2: Default::default(),
            ext_csum: Default::default(),
            ext_csum_lanes: Default::default(),
            flen: Default::default(),
            keep_shift: Default::default(),
            icrc_shift: Default::default(),
            standard_job: Default::default(),
            icmpv6_job: Default::default(),
            fcn_job: Default::default(),
            label_lanes: Default::default(),
            pkey_lanes: Default::default(),
            dqp_lanes: Default::default(),
            tos_v4: Default::default(),
            tc_v6: Default::default(),
            frame_v4: Default::default(),
            frame_v6: Default::default(),
            checksum_lanes: Default::default(),
            icmpv6_checksum_lanes: Default::default(),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum BuildState {
    Idle,
    /// Beats 0, 1 (and 2) through `FrameIcrc` (RoCEv2 kinds) or
    /// `Icmpv6Checksum` (kind 2), then its result.
    StreamBeat0,
    StreamBeat1,
    StreamBeat2,
    AwaitResult,
    Send0,
    Send1,
    Send2,
}

impl Logic for NotifyBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ipv4_csum, icrc_unit, icmpv6_csum);
        dff_setup!(
            self,
            clock,
            state,
            wan,
            frame_q,
            icrc_beat,
            icrc_go,
            icrc_end,
            icrc_keep,
            icrc_at,
            keep_last,
            three_beats,
            ipv6,
            longhaul,
            icmpv6,
            ext_job,
            ext_fresh,
            ext_static_sum,
            ts_sum,
            tail_word,
            tail_sel,
            cfg_seen,
            cfg_enable,
            cfg_class,
            cfg_device,
            cfg_device_len,
            cfg_path,
            cfg_path_len,
            b_fresh,
            b_ext,
            b_len,
            b_ts,
            b_high,
            b_low,
            c_ext,
            c_len,
            c_ts,
            c_sum,
            c_len56,
            c_len36,
            c_len16
        );
        self.ipv4_csum.reset.next = self.reset.val();
        self.icrc_unit.reset.next = self.reset.val();
        self.icmpv6_csum.reset.next = self.reset.val();

        // Configuration pipeline (the extension structure without the
        // timestamp's value), recomputed only when an input changed, so
        // that a simulator skips it on other clocks.
        self.cfg_seen.d.next = true;
        self.cfg_enable.d.next = self.ext_enable.val();
        self.cfg_class.d.next = self.ext_class_num.val();
        self.cfg_device.d.next = self.ext_device_id.val();
        self.cfg_device_len.d.next = self.ext_device_id_len.val();
        self.cfg_path.d.next = self.ext_path_id.val();
        self.cfg_path_len.d.next = self.ext_path_id_len.val();
        self.cfg_changed.next = !self.cfg_seen.q.val()
            | (self.cfg_enable.q.val() != self.ext_enable.val())
            | (self.cfg_class.q.val() != self.ext_class_num.val())
            | (self.cfg_device.q.val() != self.ext_device_id.val())
            | (self.cfg_device_len.q.val() != self.ext_device_id_len.val())
            | (self.cfg_path.q.val() != self.ext_path_id.val())
            | (self.cfg_path_len.q.val() != self.ext_path_id_len.val());
        self.b_fresh.d.next = self.cfg_changed.val();
        self.settled.next = !self.cfg_changed.val() & !self.b_fresh.q.val();
        self.dev_len.next = 0.into();
        self.dev_mask.next = 0.into();
        self.dev_bytes.next = 0.into();
        self.dev_size.next = 0.into();
        self.dev_len_byte.next = 0.into();
        self.dev_obj.next = 0.into();
        self.path_len.next = 0.into();
        self.path_mask.next = 0.into();
        self.path_bytes.next = 0.into();
        self.path_size.next = 0.into();
        self.path_len_byte.next = 0.into();
        self.path_obj.next = 0.into();
        self.path_at.next = 0.into();
        self.path_at_bits.next = 0.into();
        self.ext_end.next = 0.into();
        self.ext_static.next = 0.into();
        self.dev_even.next = 0.into();
        self.dev_odd.next = 0.into();
        self.path_even.next = 0.into();
        self.path_odd.next = 0.into();
        self.high_sum.next = 0.into();
        self.low_sum.next = 0.into();
        if self.cfg_changed.val() {
            // Identifier bytes past their length are zero (the objects'
            // padding); lengths above the registers' bytes are capped.
            self.dev_len.next = self.ext_device_id_len.val();
            if self.ext_device_id_len.val() > 16 {
                self.dev_len.next = 16.into();
            }
            // The bytes below the length, each by a compare (no shifter:
            // Yosys would share one with the job clock's lane shift and
            // put the job's state in front of these sums).
            for k in 0..16 {
                if self.dev_len.val().index() > k {
                    self.dev_mask.next = self.dev_mask.val() | self.dev_lane[k].val();
                }
            }
            self.dev_bytes.next = self.ext_device_id.val() & self.dev_mask.val();
            self.path_len.next = self.ext_path_id_len.val();
            if self.ext_path_id_len.val() > 8 {
                self.path_len.next = 8.into();
            }
            for k in 0..8 {
                if self.path_len.val().index() > k {
                    self.path_mask.next = self.path_mask.val() | self.path_lane[k].val();
                }
            }
            self.path_bytes.next = self.ext_path_id.val() & self.path_mask.val();
            // Objects in lane order: Length (high byte 0), Class-Num,
            // C-Type, payload; sizes padded to four bytes.
            self.dev_size.next = bit_cast::<6, 5>((self.dev_len.val() + 3) & 0x1C) + bits::<6>(4);
            self.path_size.next = bit_cast::<6, 4>((self.path_len.val() + 3) & 0xC) + bits::<6>(4);
            self.dev_len_byte.next = bit_cast::<8, 5>(self.dev_len.val()) + bits::<8>(4);
            self.path_len_byte.next = bit_cast::<8, 4>(self.path_len.val()) + bits::<8>(4);
            self.dev_obj.next = (bit_cast::<160, 8>(self.dev_len_byte.val()) << 8)
                | (bit_cast::<160, 8>(self.ext_class_num.val()) << 16)
                | (bits::<160>(2) << 24)
                | (bit_cast::<160, 128>(self.dev_bytes.val()) << 32);
            self.path_obj.next = (bit_cast::<96, 8>(self.path_len_byte.val()) << 8)
                | (bit_cast::<96, 8>(self.ext_class_num.val()) << 16)
                | (bits::<96>(3) << 24)
                | (bit_cast::<96, 64>(self.path_bytes.val()) << 32);
            // The header (version 2), the timestamp object's header
            // (length 12, C-Type 1), then the identifiers.
            self.ext_static.next = bits::<384>(0x20);
            self.path_at.next = 4.into();
            if self.ext_enable.val().get_bit(0) {
                self.ext_static.next = self.ext_static.val()
                    | (bits::<384>(0x0C00) << 32)
                    | (bit_cast::<384, 8>(self.ext_class_num.val()) << 48)
                    | (bits::<384>(1) << 56);
                self.path_at.next = 16.into();
            }
            if self.ext_enable.val().get_bit(1) {
                if self.ext_enable.val().get_bit(0) {
                    self.ext_static.next =
                        self.ext_static.val() | (bit_cast::<384, 160>(self.dev_obj.val()) << 128);
                } else {
                    self.ext_static.next =
                        self.ext_static.val() | (bit_cast::<384, 160>(self.dev_obj.val()) << 32);
                }
                self.path_at.next = self.path_at.val() + self.dev_size.val();
            }
            self.path_at_bits.next = bit_cast::<9, 6>(self.path_at.val()) << 3;
            self.ext_end.next = self.path_at.val();
            if self.ext_enable.val().get_bit(2) {
                self.ext_static.next = self.ext_static.val()
                    | (bit_cast::<384, 96>(self.path_obj.val()) << self.path_at_bits.val());
                self.ext_end.next = self.path_at.val() + self.path_size.val();
            }
            if !self.ext_enable.val().any() {
                self.ext_static.next = 0.into();
                self.ext_end.next = 0.into();
            }
            // One's complement sum by byte parity: every object starts at
            // a multiple of four, so a payload byte at an even offset is
            // the high byte of its word wherever the object lands.
            self.dev_even.next = bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(0))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(16))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(32))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(48))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(64))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(80))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(96))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(112));
            self.dev_odd.next = bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(8))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(24))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(40))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(56))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(72))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(88))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(104))
                + bit_cast::<13, 8>(self.dev_bytes.val().get_bits::<8>(120));
            self.path_even.next = bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(0))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(16))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(32))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(48));
            self.path_odd.next = bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(8))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(24))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(40))
                + bit_cast::<13, 8>(self.path_bytes.val().get_bits::<8>(56));
            self.high_sum.next = bits::<13>(0x20);
            self.low_sum.next = 0.into();
            if self.ext_enable.val().get_bit(0) {
                self.high_sum.next =
                    self.high_sum.val() + bit_cast::<13, 8>(self.ext_class_num.val());
                self.low_sum.next = self.low_sum.val() + bits::<13>(13);
            }
            if self.ext_enable.val().get_bit(1) {
                self.high_sum.next = self.high_sum.val()
                    + bit_cast::<13, 8>(self.ext_class_num.val())
                    + self.dev_even.val();
                self.low_sum.next = self.low_sum.val()
                    + bit_cast::<13, 8>(self.dev_len_byte.val())
                    + bits::<13>(2)
                    + self.dev_odd.val();
            }
            if self.ext_enable.val().get_bit(2) {
                self.high_sum.next = self.high_sum.val()
                    + bit_cast::<13, 8>(self.ext_class_num.val())
                    + self.path_even.val();
                self.low_sum.next = self.low_sum.val()
                    + bit_cast::<13, 8>(self.path_len_byte.val())
                    + bits::<13>(3)
                    + self.path_odd.val();
            }
            self.b_ext.d.next = self.ext_static.val();
            self.b_len.d.next = self.ext_end.val();
            self.b_ts.d.next = self.ext_enable.val().get_bit(0);
            self.b_high.d.next = self.high_sum.val();
            self.b_low.d.next = self.low_sum.val();
        }
        self.static_words.next = 0.into();
        self.static_fold.next = 0.into();
        self.static_fold2.next = 0.into();
        if self.b_fresh.q.val() {
            self.static_words.next = (bit_cast::<21, 13>(self.b_high.q.val()) << 8)
                + bit_cast::<21, 13>(self.b_low.q.val());
            self.static_fold.next = bit_cast::<17, 16>(self.static_words.val().get_bits::<16>(0))
                + bit_cast::<17, 5>(self.static_words.val().get_bits::<5>(16));
            self.static_fold2.next = self.static_fold.val().get_bits::<16>(0)
                + bit_cast::<16, 1>(self.static_fold.val().get_bits::<1>(16));
            self.c_ext.d.next = self.b_ext.q.val();
            self.c_len.d.next = self.b_len.q.val();
            self.c_ts.d.next = self.b_ts.q.val();
            self.c_sum.d.next = self.static_fold2.val();
            self.c_len56.d.next = bit_cast::<8, 6>(self.b_len.q.val()) + bits::<8>(56);
            self.c_len36.d.next = bit_cast::<8, 6>(self.b_len.q.val()) + bits::<8>(36);
            self.c_len16.d.next = bit_cast::<8, 6>(self.b_len.q.val()) + bits::<8>(16);
        }

        // Kind 2 needs IPv6; over IPv4 it builds the standard CNP.
        self.icmpv6_job.next = (self.job_kind.val() == 2) & self.job_ipv6.val();
        self.standard_job.next =
            (self.job_kind.val() == 0) | ((self.job_kind.val() == 2) & !self.job_ipv6.val());
        self.fcn_job.next = self.job_kind.val() == 3;

        // The frame is composed into the held frame only while a job waits
        // in IDLE (taken or not: IDLE does not read the held frame), so
        // that a simulator skips the 1536-bit work on other clocks; the
        // wide parts are built in place, without wide locals to clear
        // every clock.
        self.pkey_lanes.next = 0.into();
        self.dqp_lanes.next = 0.into();
        self.tos_v4.next = 0.into();
        self.tc_v6.next = 0.into();
        self.frame_v4.next = 0.into();
        self.frame_v6.next = 0.into();
        self.label_lanes.next = 0.into();
        self.ts_lanes.next = 0.into();
        self.ext_frame.next = 0.into();
        self.flen.next = 0.into();
        self.keep_shift.next = 0.into();
        if self.job_valid.val() & (self.state.q.val() == BuildState::Idle) {
            // Variable fields in wire order. (Narrow results in their own
            // width: Verilog widens shifts inside wide expressions.)
            self.pkey_lanes.next = (self.job_pkey.val() >> 8) | (self.job_pkey.val() << 8);
            self.dqp_lanes.next = (self.job_dqp.val() >> 16)
                | (self.job_dqp.val() & 0xFF00)
                | (self.job_dqp.val() << 16);
            self.tos_v4.next = bit_cast::<8, 6>(self.job_dscp.val()) << 2;
            self.tc_v6.next = bit_cast::<16, 4>(self.job_dscp.val().get_bits::<4>(2))
                | (bit_cast::<16, 2>(self.job_dscp.val().get_bits::<2>(0)) << 14);
            // The extension structure: the configured part and, in its
            // first object, the timestamp (big-endian, bytes 8..15).
            self.ts_lanes.next = bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(56))
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(48)) << 8)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(40)) << 16)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(32)) << 24)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(24)) << 32)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(16)) << 40)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(8)) << 48)
                | (bit_cast::<64, 8>(self.job_timestamp.val().get_bits::<8>(0)) << 56);
            self.ext_frame.next = self.c_ext.q.val();
            if self.c_ts.q.val() {
                self.ext_frame.next =
                    self.ext_frame.val() | (bit_cast::<384, 64>(self.ts_lanes.val()) << 64);
            }
            // IPv4: MACs 0..11, TOS 15, addresses 26..33, P_Key 44..45,
            // DestQP 47..49, body 54..65.
            self.frame_v4.next = bit_cast::<512, 48>(self.job_dst_mac.val())
                | (bit_cast::<512, 48>(self.job_src_mac.val()) << 48)
                | (bit_cast::<512, 8>(self.tos_v4.val()) << 120)
                | (bit_cast::<512, 32>(self.job_src_ip.val().get_bits::<32>(96)) << 208)
                | (bit_cast::<512, 32>(self.job_dst_ip.val().get_bits::<32>(96)) << 240)
                | (bit_cast::<512, 16>(self.pkey_lanes.val()) << 352)
                | (bit_cast::<512, 24>(self.dqp_lanes.val()) << 376);
            // IPv6: traffic class 14..15, addresses 22..53; RoCEv2 kinds: P_Key
            // 64..65, DestQP 67..69, body 74..85; ICMPv6: type 54, body 58..69.
            self.frame_v6.next = bit_cast::<512, 48>(self.job_dst_mac.val())
                | (bit_cast::<512, 48>(self.job_src_mac.val()) << 48)
                | (bit_cast::<512, 16>(self.tc_v6.val()) << 112)
                | (bit_cast::<512, 128>(self.job_src_ip.val()) << 176)
                | (bit_cast::<512, 128>(self.job_dst_ip.val()) << 304);
            // Long-haul kinds: the length fields' low bytes (high bytes
            // stay 0: at most 56 + 48) and the extension after the body.
            if self.standard_job.val() & self.job_rate_advice.val() & (self.job_kind.val() == 0) {
                // RA-03: opcode 42 / 62, body 54..69 / 74..89 (version 1
                // from the template in bytes 4..7).
                if self.job_ipv6.val() {
                    self.frame_q.d.next = self.templates[7].val()
                        | bit_cast::<1536, 512>(self.frame_v6.val())
                        | (bit_cast::<1536, 8>(self.job_opcode.val()) << 496)
                        | (bit_cast::<1536, 16>(self.pkey_lanes.val()) << 512)
                        | (bit_cast::<1536, 24>(self.dqp_lanes.val()) << 536)
                        | (bit_cast::<1536, 32>(self.job_body.val().get_bits::<32>(0)) << 592)
                        | (bit_cast::<1536, 64>(self.job_body.val().get_bits::<64>(32)) << 656);
                    self.flen.next = 94.into();
                } else {
                    self.frame_q.d.next = self.templates[6].val()
                        | bit_cast::<1536, 512>(self.frame_v4.val())
                        | (bit_cast::<1536, 8>(self.job_opcode.val()) << 336)
                        | (bit_cast::<1536, 32>(self.job_body.val().get_bits::<32>(0)) << 432)
                        | (bit_cast::<1536, 64>(self.job_body.val().get_bits::<64>(32)) << 496);
                    self.flen.next = 74.into();
                }
            } else if self.standard_job.val() {
                if self.job_ipv6.val() {
                    // P_Key 64..65, DestQP 67..69.
                    self.frame_q.d.next = self.templates[1].val()
                        | bit_cast::<1536, 512>(self.frame_v6.val())
                        | (bit_cast::<1536, 16>(self.pkey_lanes.val()) << 512)
                        | (bit_cast::<1536, 24>(self.dqp_lanes.val()) << 536);
                    self.flen.next = 94.into();
                } else {
                    self.frame_q.d.next =
                        self.templates[0].val() | bit_cast::<1536, 512>(self.frame_v4.val());
                    self.flen.next = 74.into();
                }
            } else if self.fcn_job.val() {
                // Flow label in bytes 15 (low nibble), 16, 17; the UDP
                // datagram 54..65.
                self.label_lanes.next =
                    bit_cast::<24, 4>(self.job_flow_label.val().get_bits::<4>(16))
                        | (bit_cast::<24, 8>(self.job_flow_label.val().get_bits::<8>(8)) << 8)
                        | (bit_cast::<24, 8>(self.job_flow_label.val().get_bits::<8>(0)) << 16);
                self.frame_q.d.next = self.templates[5].val()
                    | bit_cast::<1536, 512>(self.frame_v6.val())
                    | (bit_cast::<1536, 24>(self.label_lanes.val()) << 120)
                    | (bit_cast::<1536, 96>(self.job_body.val()) << 432);
                self.flen.next = 66.into();
            } else if self.icmpv6_job.val() {
                // Payload length 19, type 54, body 58..69, extension 70.
                self.frame_q.d.next = self.templates[4].val()
                    | bit_cast::<1536, 512>(self.frame_v6.val())
                    | (bit_cast::<1536, 8>(self.c_len16.q.val()) << 152)
                    | (bit_cast::<1536, 8>(self.job_icmp_type.val()) << 432)
                    | (bit_cast::<1536, 96>(self.job_body.val()) << 464)
                    | (bit_cast::<1536, 384>(self.ext_frame.val()) << 560);
                self.flen.next = bit_cast::<8, 6>(self.c_len.q.val()) + bits::<8>(70);
            } else if self.job_ipv6.val() {
                // Payload length 19, UDP length 59, P_Key 64..65, DestQP
                // 67..69, body 74..85, extension 86.
                self.frame_q.d.next = self.templates[3].val()
                    | bit_cast::<1536, 512>(self.frame_v6.val())
                    | (bit_cast::<1536, 8>(self.c_len36.q.val()) << 152)
                    | (bit_cast::<1536, 8>(self.c_len36.q.val()) << 472)
                    | (bit_cast::<1536, 16>(self.pkey_lanes.val()) << 512)
                    | (bit_cast::<1536, 24>(self.dqp_lanes.val()) << 536)
                    | (bit_cast::<1536, 96>(self.job_body.val()) << 592)
                    | (bit_cast::<1536, 384>(self.ext_frame.val()) << 688);
                self.flen.next = bit_cast::<8, 6>(self.c_len.q.val()) + bits::<8>(90);
            } else {
                // Total length 17, UDP length 39, body 54..65, extension 66.
                self.frame_q.d.next = self.templates[2].val()
                    | bit_cast::<1536, 512>(self.frame_v4.val())
                    | (bit_cast::<1536, 8>(self.c_len56.q.val()) << 136)
                    | (bit_cast::<1536, 8>(self.c_len36.q.val()) << 312)
                    | (bit_cast::<1536, 96>(self.job_body.val()) << 432)
                    | (bit_cast::<1536, 384>(self.ext_frame.val()) << 528);
                self.flen.next = bit_cast::<8, 6>(self.c_len.q.val()) + bits::<8>(70);
            }
            // Lanes of the last beat: 64 - (length - 64) or 64 - (length - 128).
            self.keep_shift.next = bit_cast::<7, 8>(bits::<8>(128) - self.flen.val());
            if self.flen.val() > 128 {
                self.keep_shift.next = bit_cast::<7, 8>(bits::<8>(192) - self.flen.val());
            }
        }

        // The IPv4 header (bytes 14..33) through the checksum unit.
        self.ipv4_csum.header.next = self.frame_q.q.val().get_bits::<160>(112);
        self.ipv4_csum.valid.next =
            (self.state.q.val() == BuildState::StreamBeat0) & !self.icmpv6.q.val();
        self.checksum_lanes.next =
            (self.ipv4_csum.checksum.val() >> 8) | (self.ipv4_csum.checksum.val() << 8);

        // The held beats through FrameIcrc (RoCEv2 kinds).
        self.icrc_unit.tap.tdata.next = self.icrc_beat.q.val();
        self.icrc_unit.tap.tkeep.next = self.icrc_keep.q.val();
        self.icrc_unit.tap.tlast.next = self.icrc_end.q.val();
        self.icrc_unit.tap.tvalid.next = self.icrc_go.q.val();
        self.icrc_unit.tap.tready.next = true;
        self.icrc_unit.given.next = true;
        self.icrc_unit.given_ipv6.next = self.ipv6.q.val();
        self.icrc_unit.given_icrc_at.next = bit_cast::<16, 8>(self.icrc_at.q.val());

        // Or through Icmpv6Checksum (kind 2): the message starts at lane
        // 54, right after the IPv6 header; the pseudo-header's addresses
        // are those in beat 0 (bytes 22..37 and 38..53).
        self.icmpv6_csum.data.next = self.frame_q.q.val().get_bits::<512>(0);
        self.icmpv6_csum.keep.next = self.all_lanes.val();
        self.icmpv6_csum.valid.next = false;
        self.icmpv6_csum.first.next = false;
        self.icmpv6_csum.last.next = false;
        self.icmpv6_csum.start_lane.next = 54.into();
        self.icmpv6_csum.src_ip.next = self.frame_q.q.val().get_bits::<128>(176);
        self.icmpv6_csum.dst_ip.next = self.frame_q.q.val().get_bits::<128>(304);
        self.icmpv6_checksum_lanes.next =
            (self.icmpv6_csum.checksum.val() >> 8) | (self.icmpv6_csum.checksum.val() << 8);

        // The extension checksum: the configured part's folded sum plus
        // the timestamp's four words, folded, complemented.
        self.ext_fresh.d.next = false;
        self.ext_total.next = 0.into();
        self.ext_fold.next = 0.into();
        self.ext_fold2.next = 0.into();
        self.ext_csum.next = 0.into();
        self.ext_csum_lanes.next = 0.into();
        if self.ext_fresh.q.val() {
            self.ext_total.next = bit_cast::<19, 16>(self.ext_static_sum.q.val())
                + bit_cast::<19, 18>(self.ts_sum.q.val());
            self.ext_fold.next = bit_cast::<17, 16>(self.ext_total.val().get_bits::<16>(0))
                + bit_cast::<17, 3>(self.ext_total.val().get_bits::<3>(16));
            self.ext_fold2.next = self.ext_fold.val().get_bits::<16>(0)
                + bit_cast::<16, 1>(self.ext_fold.val().get_bits::<1>(16));
            self.ext_csum.next = !self.ext_fold2.val();
            self.ext_csum_lanes.next = (self.ext_csum.val() >> 8) | (self.ext_csum.val() << 8);
        }

        // The ICRC's place: `tail_word` words after the tail start.
        self.icrc_shift.next = bit_cast::<9, 4>(self.tail_word.q.val()) << 5;

        self.m.tdata.next = self.frame_q.q.val().get_bits::<512>(0);
        self.m.tkeep.next = self.all_lanes.val();
        self.m.tlast.next = false;
        self.m.tuser.next = false;
        self.out_valid.next = false;
        self.job_ready.next = false;
        self.out_ready.next = self.m.tready.val();
        if self.wan.q.val() {
            self.out_ready.next = self.w.tready.val();
        }

        match self.state.q.val() {
            BuildState::Idle => {
                // Not while the configuration pipeline moves: every frame
                // is built from one configuration.
                self.job_ready.next = self.settled.val();
                if self.job_valid.val() & self.settled.val() {
                    self.wan.d.next = self.job_wan.val();
                    self.ipv6.d.next = self.job_ipv6.val();
                    self.longhaul.d.next = !self.standard_job.val() & !self.icmpv6_job.val();
                    self.icmpv6.d.next = self.icmpv6_job.val();
                    self.three_beats.d.next = self.flen.val() > 128;
                    self.icrc_at.d.next = self.flen.val() - 4;
                    self.keep_last.d.next = self.all_lanes.val() >> self.keep_shift.val();
                    // The extension checksum goes in next clock.
                    self.ext_job.d.next = !self.standard_job.val() & self.c_len.q.val().any();
                    self.ext_fresh.d.next = !self.standard_job.val() & self.c_len.q.val().any();
                    self.ext_static_sum.d.next = self.c_sum.q.val();
                    self.ts_sum.d.next = 0.into();
                    if self.c_ts.q.val() {
                        self.ts_sum.d.next =
                            bit_cast::<18, 16>(self.job_timestamp.val().get_bits::<16>(0))
                                + bit_cast::<18, 16>(self.job_timestamp.val().get_bits::<16>(16))
                                + bit_cast::<18, 16>(self.job_timestamp.val().get_bits::<16>(32))
                                + bit_cast::<18, 16>(self.job_timestamp.val().get_bits::<16>(48));
                    }
                    // The ICRC: after the extension (RoCEv2 format) or
                    // after the 16 zero bytes (standard CNP).
                    self.tail_word.d.next = self.c_len.q.val().get_bits::<4>(2);
                    if self.standard_job.val() {
                        self.tail_word.d.next = 0.into();
                        if self.job_ipv6.val() {
                            self.tail_sel.d.next = 3.into();
                        } else {
                            self.tail_sel.d.next = 2.into();
                        }
                    } else if self.job_ipv6.val() {
                        self.tail_sel.d.next = 1.into();
                    } else {
                        self.tail_sel.d.next = 0.into();
                    }
                    // A Fast CNP is complete; ICMPv6 has no IPv4 header
                    // checksum.
                    if self.fcn_job.val() {
                        self.ipv6.d.next = true;
                        self.longhaul.d.next = false;
                        self.ext_job.d.next = false;
                        self.ext_fresh.d.next = false;
                        self.state.d.next = BuildState::Send0;
                    } else {
                        self.state.d.next = BuildState::StreamBeat0;
                    }
                }
            }
            BuildState::StreamBeat0 => {
                self.icmpv6_csum.valid.next = self.icmpv6.q.val();
                self.icmpv6_csum.first.next = true;
                self.state.d.next = BuildState::StreamBeat1;
            }
            BuildState::StreamBeat1 => {
                self.icmpv6_csum.data.next = self.frame_q.q.val().get_bits::<512>(512);
                self.icmpv6_csum.valid.next = self.icmpv6.q.val();
                if self.three_beats.q.val() {
                    self.state.d.next = BuildState::StreamBeat2;
                } else {
                    self.icmpv6_csum.keep.next = self.keep_last.q.val();
                    self.icmpv6_csum.last.next = true;
                    self.state.d.next = BuildState::AwaitResult;
                }
            }
            BuildState::StreamBeat2 => {
                // RoCEv2 only: ICMPv6 frames have at most 118 bytes.
                self.state.d.next = BuildState::AwaitResult;
            }
            BuildState::AwaitResult => {
                if self.icmpv6.q.val() {
                    // The ICMPv6 checksum: frame bytes 56..57.
                    if self.icmpv6_csum.checksum_valid.val() {
                        self.frame_q.d.next = self.frame_q.q.val()
                            | (bit_cast::<1536, 16>(self.icmpv6_checksum_lanes.val()) << 448);
                        self.state.d.next = BuildState::Send0;
                    }
                } else if self.icrc_unit.icrc_valid.val() {
                    // The ICRC at its tail start (bytes 66, 86, 70, 90)
                    // plus `tail_word` words.
                    if self.tail_sel.q.val() == 0 {
                        self.frame_q.d.next = self.frame_q.q.val()
                            | (bit_cast::<1536, 416>(
                                bit_cast::<416, 32>(self.icrc_unit.icrc.val())
                                    << self.icrc_shift.val(),
                            ) << 528);
                    } else if self.tail_sel.q.val() == 1 {
                        self.frame_q.d.next = self.frame_q.q.val()
                            | (bit_cast::<1536, 416>(
                                bit_cast::<416, 32>(self.icrc_unit.icrc.val())
                                    << self.icrc_shift.val(),
                            ) << 688);
                    } else if self.tail_sel.q.val() == 2 {
                        self.frame_q.d.next = self.frame_q.q.val()
                            | (bit_cast::<1536, 416>(
                                bit_cast::<416, 32>(self.icrc_unit.icrc.val())
                                    << self.icrc_shift.val(),
                            ) << 560);
                    } else {
                        self.frame_q.d.next = self.frame_q.q.val()
                            | (bit_cast::<1536, 416>(
                                bit_cast::<416, 32>(self.icrc_unit.icrc.val())
                                    << self.icrc_shift.val(),
                            ) << 720);
                    }
                    self.state.d.next = BuildState::Send0;
                }
            }
            BuildState::Send0 => {
                self.out_valid.next = true;
                if self.out_ready.val() {
                    self.state.d.next = BuildState::Send1;
                }
            }
            BuildState::Send1 => {
                self.m.tdata.next = self.frame_q.q.val().get_bits::<512>(512);
                self.out_valid.next = true;
                if !self.three_beats.q.val() {
                    self.m.tkeep.next = self.keep_last.q.val();
                    self.m.tlast.next = true;
                }
                if self.out_ready.val() {
                    if self.three_beats.q.val() {
                        self.state.d.next = BuildState::Send2;
                    } else {
                        self.state.d.next = BuildState::Idle;
                    }
                }
            }
            BuildState::Send2 => {
                self.m.tdata.next = self.frame_q.q.val().get_bits::<512>(1024);
                self.m.tkeep.next = self.keep_last.q.val();
                self.m.tlast.next = true;
                self.out_valid.next = true;
                if self.out_ready.val() {
                    self.state.d.next = BuildState::Idle;
                }
            }
        }
        // The extension checksum (in beat 1, before any beat 1 streams):
        // bytes 68..69 (RoCEv2 over IPv4), 88..89 (over IPv6), 72..73
        // (ICMPv6). The IPv4 checksum arrives three clocks later at the
        // earliest, so the two never meet.
        if self.ext_fresh.q.val() & self.ext_job.q.val() {
            if self.icmpv6.q.val() {
                self.frame_q.d.next =
                    self.frame_q.q.val() | (bit_cast::<1536, 16>(self.ext_csum_lanes.val()) << 576);
            } else if self.ipv6.q.val() {
                self.frame_q.d.next =
                    self.frame_q.q.val() | (bit_cast::<1536, 16>(self.ext_csum_lanes.val()) << 704);
            } else {
                self.frame_q.d.next =
                    self.frame_q.q.val() | (bit_cast::<1536, 16>(self.ext_csum_lanes.val()) << 544);
            }
        }
        // The IPv4 header checksum (bytes 24..25), three clocks after
        // StreamBeat0 handed the header in (the ICRC counts the field as
        // ones, so the beats stream meanwhile): long before the ICRC (seven
        // clocks after the last streamed beat), and after the extension
        // checksum, so no two writes of `frame_q` meet.
        if self.ipv4_csum.checksum_valid.val() & !self.ipv6.q.val() {
            self.frame_q.d.next =
                self.frame_q.q.val() | (bit_cast::<1536, 16>(self.checksum_lanes.val()) << 192);
        }
        // What the ICRC unit takes next clock (RoCEv2 kinds): beat 0 after
        // a job is taken, beat 1 after beat 0, beat 2 after beat 1 of a
        // three-beat frame, each from `frame_q` as it will be then.
        self.icrc_beat.d.next = self.frame_q.d.val().get_bits::<512>(0);
        self.icrc_go.d.next = false;
        self.icrc_end.d.next = false;
        self.icrc_keep.d.next = self.all_lanes.val();
        if (self.state.q.val() == BuildState::Idle)
            & self.job_valid.val()
            & self.settled.val()
            & !self.fcn_job.val()
        {
            self.icrc_go.d.next = !self.icmpv6_job.val();
        }
        if self.state.q.val() == BuildState::StreamBeat0 {
            self.icrc_beat.d.next = self.frame_q.d.val().get_bits::<512>(512);
            self.icrc_go.d.next = !self.icmpv6.q.val();
            if !self.three_beats.q.val() {
                self.icrc_end.d.next = true;
                self.icrc_keep.d.next = self.keep_last.q.val();
            }
        }
        if (self.state.q.val() == BuildState::StreamBeat1) & self.three_beats.q.val() {
            self.icrc_beat.d.next = self.frame_q.d.val().get_bits::<512>(1024);
            self.icrc_go.d.next = true;
            self.icrc_end.d.next = true;
            self.icrc_keep.d.next = self.keep_last.q.val();
        }
        // RA-04: a `job_wan` frame leaves on `w` instead.
        self.w.tdata.next = self.m.tdata.val();
        self.w.tkeep.next = self.m.tkeep.val();
        self.w.tlast.next = self.m.tlast.val();
        self.w.tuser.next = self.m.tuser.val();
        self.w.tvalid.next = self.out_valid.val() & self.wan.q.val();
        self.w_sent.next =
            self.out_valid.val() & self.wan.q.val() & self.w.tready.val() & self.m.tlast.val();
        self.m.tvalid.next = self.out_valid.val() & !self.wan.q.val();
        if self.reset.val() {
            self.state.d.next = BuildState::Idle;
            self.icrc_go.d.next = false;
            self.ext_fresh.d.next = false;
            self.cfg_seen.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_notify_builder_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<NotifyBuilder>("notify_builder");
    }

    #[test]
    fn lh_12_templates_have_the_documented_lengths_and_fixed_fields() {
        let t = template(NotifyKind::LonghaulRocev2, false);
        assert_eq!(&t[12..14], &[0x08, 0x00]);
        assert_eq!(
            &t[16..18],
            &[0, 0],
            "IPv4 total length: 56 + E, written by the block"
        );
        assert_eq!(
            &t[38..40],
            &[0, 0],
            "UDP length: 36 + E, written by the block"
        );
        assert_eq!(
            extension_offset(NotifyKind::LonghaulRocev2, false),
            Some(66)
        );
        assert_eq!(t[42], 0x81, "BTH opcode CNP");
        assert_eq!(t[43], 0x00);
        assert_eq!(t[46], 0x40 | 0x20, "BECN and the E bit");
        let t = template(NotifyKind::StandardCnp, true);
        assert_eq!(&t[12..14], &[0x86, 0xDD]);
        assert_eq!(t[62], 0x81);
        assert_eq!(t[66], 0x40, "BECN, no E bit");
        assert_eq!(&t[18..20], &[0, 40], "a standard CNP keeps its lengths");
        let t = template(NotifyKind::LonghaulRocev2, true);
        assert_eq!(&t[18..20], &[0, 0]);
        assert_eq!(&t[58..60], &[0, 0]);
    }

    #[test]
    fn lh_13_icmpv6_template_has_the_documented_layout() {
        let t = template(NotifyKind::LonghaulIcmpv6, true);
        assert_eq!(
            t.len(),
            70,
            "no padding: the 16-byte message is 4-byte aligned"
        );
        assert_eq!(&t[12..14], &[0x86, 0xDD]);
        assert_eq!(
            &t[18..20],
            &[0, 0],
            "payload length: 16 + E, written by the block"
        );
        assert_eq!(t[20], 58, "next header ICMPv6");
        assert_eq!(t[21], 64, "hop limit");
        assert!(
            t[54..].iter().all(|&b| b == 0),
            "type, code, checksum, body"
        );
        // Kind 2 over IPv4 (a caller error) builds the standard CNP.
        assert_eq!(
            template(NotifyKind::LonghaulIcmpv6, false),
            template(NotifyKind::StandardCnp, false)
        );
    }
}
