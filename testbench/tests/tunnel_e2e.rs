//! Issue 5 end to end: three gateways in the RTL simulation, clocked
//! together, play the three roles of draft-he-fcn-in-wan and
//! draft-hu-rtgwg-pre-ecn-wan.
//!
//! ```text
//!  senders --dc_rx--> [A ingress PE] --wan_tx--> [B congested WAN node] --wan_tx--> [C egress PE] --dc_tx--> receivers
//!     ^                  |     ^                      | dc_tx (Fast CNPs)                wan_rx
//!     +------dc_tx-------+     +--------wan_rx--------+
//!        (standard CNPs)
//! ```
//!
//! RoCEv2 senders (IPv4 and IPv6, ECT(0)) send to receivers behind C.
//! A encapsulates each frame (VXLAN to C, or SRv6 with C as the segment)
//! with its flow's label (FCN-01, FCN-02, PE-01). B's average queue sits
//! between T2 and Tmax: every ECN-capable outer packet is remarked ECT(1)
//! or CE (PE-03) and B sends Fast CNPs, light and severe, to the outer
//! source, A (FCN-03, PE-04). A takes them off its WAN input and sends the
//! flow's sender a standard CNP with the flow's source QP, learned as a
//! static flow-table entry (FCN-05). C decapsulates (PE-02): an outer CE
//! reaches the receiver as CE (the inner IPv4 checksum updated), a light
//! ECT(1) mark does not. Every frame the receivers get is the frame its
//! sender sent, but for that ECN; scapy checks every frame that leaves
//! the chain (inner checksums and ICRC, Fast CNP UDP checksums, CNP ICRC).
//!
//! PE-05 (the third test): B's average sits between T1 and T2, so B sends
//! only light Fast CNPs (levels 1..3) and remarks only ECT(1); A's shaper
//! is on, so A keeps them (no standard CNP reaches a sender) and slows the
//! flows they name at the tunnel entrance. Frames of different flows may
//! then leave A in another order than they came; each flow's order holds.

use cngw_driver::{Device, SimBus};
use cngw_model::Frame;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::parsed::{classify, FrameClass};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::Ecn;
use cngw_regmap::{
    fcn_control, fcn_rx_dom_control, feature, offset, pe_control, pe_shaper, tunnel_control,
};
use cngw_sim::{frame_to_beats, Beat, Gateway, InPort, OutPort};
use cngw_testbench::traffic::{ipv6_words, mac_words, RoceFlow};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const A_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const A_IP4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const B_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0x99);
const C_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const A_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xa, 0x01];
const B_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xc, 0x99];
const C_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xb, 0x01];
const SENDERS_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0xa0];
const RECEIVERS_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0xb0];
const T1: u32 = 20_000_000;
const T2: u32 = 60_000_000;
const TMAX: u32 = 100_000_000;

/// GW_MAC, GW_IPV6 (and GW_IPV4) of a gateway.
fn addresses(gw: &mut Gateway, mac: [u8; 6], ip6: Ipv6Addr) {
    let (hi, lo) = mac_words(mac);
    gw.csr_write(offset::GW_MAC_HI, hi).unwrap();
    gw.csr_write(offset::GW_MAC_LO, lo).unwrap();
    for (i, w) in ipv6_words(ip6).into_iter().enumerate() {
        gw.csr_write(offset::GW_IPV6_0 + 4 * i as u32, w).unwrap();
    }
}

/// The flows, each from a sender behind A to a receiver behind C.
fn flows() -> Vec<RoceFlow> {
    (0..6u32)
        .map(|i| {
            let (src, dst) = if i % 2 == 0 {
                (
                    IpAddr::V4(Ipv4Addr::new(10, 1, 0, 10 + i as u8)),
                    IpAddr::V4(Ipv4Addr::new(10, 2, 0, 1)),
                )
            } else {
                (
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 10 + i as u16)),
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1)),
                )
            };
            RoceFlow {
                src,
                dst,
                dqp: 0x300 + i,
                sqp: 0x100 + i,
            }
        })
        .collect()
}

/// A: ingress PE (encapsulation toward C, Fast CNP reception from B's
/// prefix, the flows' source QPs as static entries); with `shaped`, its
/// shaper (PE-05) on at B's clock: 16 clocks per microsecond, full rate
/// 1024 B/us (the line), cuts of 1/4, floor 128, +128 every 20 quiet us.
fn ingress_pe(srv6: bool, flows: &[RoceFlow], shaped: bool) -> Gateway {
    let mut a = Gateway::new();
    if shaped {
        for (off, v) in [
            (offset::CLOCKS_PER_US, 16),
            (offset::PE_SHAPER_RATE, 1024 | 128 << 16),
            (offset::PE_SHAPER_RECOVER, 20 | 128 << 16),
            (offset::PE_SHAPER_BURST, 4096),
            (
                offset::PE_SHAPER_CONTROL,
                pe_shaper::ENABLE | 2 << pe_shaper::CUT_SHIFT_LSB,
            ),
        ] {
            a.csr_write(off, v).unwrap();
        }
    }
    addresses(&mut a, A_MAC, A_IP6);
    a.csr_write(offset::GW_IPV4, u32::from(A_IP4)).unwrap();
    let (hi, lo) = mac_words(B_MAC);
    a.csr_write(offset::TUNNEL_NEXT_HOP_MAC_HI, hi).unwrap();
    a.csr_write(offset::TUNNEL_NEXT_HOP_MAC_LO, lo).unwrap();
    for (i, w) in ipv6_words(C_IP6).into_iter().enumerate() {
        a.csr_write(offset::TUNNEL_REMOTE_0 + 4 * i as u32, w)
            .unwrap();
        a.csr_write(offset::TUNNEL_SID0_0 + 4 * i as u32, w)
            .unwrap();
    }
    a.csr_write(offset::TUNNEL_VNI, 5000).unwrap();
    a.csr_write(offset::TUNNEL_UDP_SPORT, 0x3FFF_C000).unwrap();
    let (hi, lo) = mac_words(SENDERS_MAC);
    a.csr_write(offset::FCN_CNP_MAC_HI, hi).unwrap();
    a.csr_write(offset::FCN_CNP_MAC_LO, lo).unwrap();
    // B's prefix, fd00:c::/32.
    a.csr_write(offset::FCN_RX_DOM0_PREFIX_0, 0xfd00_000c)
        .unwrap();
    a.csr_write(
        offset::FCN_RX_DOM0_CONTROL,
        fcn_rx_dom_control::VALID | 32 << fcn_rx_dom_control::LEN_SHIFT,
    )
    .unwrap();
    a.csr_write(offset::FCN_RX_BUCKET_REFILL_CLOCKS, 40)
        .unwrap();
    a.csr_write(offset::FCN_CONTROL, fcn_control::INGRESS_PE)
        .unwrap();
    a.csr_write(offset::FEATURE_ENABLE, feature::FAST_CNP)
        .unwrap();
    {
        let mut dev = Device::open(SimBus::new(&mut a)).unwrap();
        let mut table = dev.flow_table();
        for f in flows {
            assert!(!table.insert_static(&f.key(), f.sqp).unwrap(), "a new flow");
        }
    }
    let mut control = tunnel_control::INGRESS_PE;
    if srv6 {
        control |= tunnel_control::SRV6;
    }
    a.csr_write(offset::TUNNEL_CONTROL, control).unwrap();
    a
}

/// B: the congested WAN node (two-threshold marking, Fast CNPs), its
/// average queue driven toward `depth`.
fn wan_node(depth: u32) -> Gateway {
    let mut b = Gateway::new();
    addresses(&mut b, B_MAC, B_IP6);
    for (off, v) in [
        (offset::CLOCKS_PER_US, 16),
        (offset::PE_T1_BYTES, T1),
        (offset::PE_T2_BYTES, T2),
        (offset::PE_TMAX_BYTES, TMAX),
        (offset::PORT0_AVG_WEIGHT_SHIFT, 1),
        (offset::PE_LFSR_SEED, 0xACE1),
        (offset::PE_CONTROL, pe_control::WAN_MARKING),
        (offset::FCN_BUCKET_REFILL_CLOCKS, 40),
        (offset::FCN_CONTROL, fcn_control::WAN_NODE),
        (offset::FEATURE_ENABLE, feature::FAST_CNP | feature::PRE_ECN),
    ] {
        b.csr_write(off, v).unwrap();
    }
    b.set_queue_depth(depth, true);
    b.step();
    b.set_queue_depth(depth, false);
    b
}

/// C: the egress PE (the draft's decapsulation table).
fn egress_pe() -> Gateway {
    let mut c = Gateway::new();
    addresses(&mut c, C_MAC, C_IP6);
    let (hi, lo) = mac_words(RECEIVERS_MAC);
    c.csr_write(offset::TUNNEL_DC_MAC_HI, hi).unwrap();
    c.csr_write(offset::TUNNEL_DC_MAC_LO, lo).unwrap();
    c.csr_write(offset::TUNNEL_CONTROL, tunnel_control::EGRESS_PE)
        .unwrap();
    c
}

/// Frames being assembled from beats on one link.
#[derive(Default)]
struct Link {
    current: Vec<u8>,
    frames: Vec<Frame>,
}

impl Link {
    fn take(&mut self, b: &Beat) {
        let n = b.keep.count_ones() as usize;
        self.current.extend_from_slice(&b.data[..n]);
        if b.last {
            self.frames.push(Frame {
                data: std::mem::take(&mut self.current),
                user: b.user,
            });
        }
    }
}

/// What crossed each link of a run.
struct Chain {
    /// A.wan_tx -> B.dc_rx: the tunnelled frames.
    tunnelled: Vec<Frame>,
    /// B.dc_tx -> A.wan_rx: Fast CNPs.
    fast_cnps: Vec<Frame>,
    /// B.wan_tx -> C.wan_rx.
    marked: Vec<Frame>,
    /// A.dc_tx -> senders: standard CNPs.
    cnps: Vec<Frame>,
    /// C.dc_tx -> receivers.
    received: Vec<Frame>,
    a: Gateway,
    b: Gateway,
    c: Gateway,
}

/// Clocks A, B and C together until `frames` went through and the chain
/// has been quiet for 300 clocks, with random backpressure at the
/// receivers and random idle clocks at the senders.
fn run(mut a: Gateway, mut b: Gateway, mut c: Gateway, frames: &[Vec<u8>], seed: u64) -> Chain {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pending: VecDeque<Beat> = frames
        .iter()
        .flat_map(|f| frame_to_beats(f, false))
        .collect();
    let (mut ab, mut ba, mut bc, mut a_dc, mut c_dc) = (
        Link::default(),
        Link::default(),
        Link::default(),
        Link::default(),
        Link::default(),
    );
    let mut quiet = 0;
    let mut clocks = 0u64;
    while quiet < 300 {
        clocks += 1;
        assert!(clocks < 400_000, "the chain stopped moving");
        let a_wan = a.output(OutPort::WanTx);
        let b_dc = b.output(OutPort::DcTx);
        let b_wan = b.output(OutPort::WanTx);
        let a_out = a.output(OutPort::DcTx);
        let c_out = c.output(OutPort::DcTx);
        assert!(
            c.output(OutPort::WanTx).is_none(),
            "C sends nothing to the WAN"
        );
        assert!(b.output(OutPort::WanTx).is_none() || b_wan.is_some());
        let offer = if rng.gen_bool(0.1) {
            None
        } else {
            pending.front()
        };
        a.drive(InPort::DcRx, offer);
        a.drive(InPort::WanRx, b_dc.as_ref());
        b.drive(InPort::DcRx, a_wan.as_ref());
        b.drive(InPort::WanRx, None);
        c.drive(InPort::WanRx, b_wan.as_ref());
        c.drive(InPort::DcRx, None);
        let a_in = a.ready(InPort::DcRx);
        let a_wan_in = a.ready(InPort::WanRx);
        let b_in = b.ready(InPort::DcRx);
        let c_in = c.ready(InPort::WanRx);
        let c_ready = !rng.gen_bool(0.2);
        a.set_ready(OutPort::WanTx, b_in);
        b.set_ready(OutPort::DcTx, a_wan_in);
        b.set_ready(OutPort::WanTx, c_in);
        a.set_ready(OutPort::DcTx, true);
        c.set_ready(OutPort::DcTx, c_ready);
        c.set_ready(OutPort::WanTx, true);
        let mut moved = false;
        if offer.is_some() && a_in {
            pending.pop_front();
            moved = true;
        }
        for (beat, ready, link) in [
            (&a_wan, b_in, &mut ab),
            (&b_dc, a_wan_in, &mut ba),
            (&b_wan, c_in, &mut bc),
            (&a_out, true, &mut a_dc),
            (&c_out, c_ready, &mut c_dc),
        ] {
            if let (Some(beat), true) = (beat, ready) {
                link.take(beat);
                moved = true;
            }
        }
        a.step();
        b.step();
        c.step();
        quiet = if moved || !pending.is_empty() {
            0
        } else {
            quiet + 1
        };
    }
    Chain {
        tunnelled: ab.frames,
        fast_cnps: ba.frames,
        marked: bc.frames,
        cnps: a_dc.frames,
        received: c_dc.frames,
        a,
        b,
        c,
    }
}

fn ecn_of(frame: &[u8]) -> Ecn {
    Ecn::from_bits(classify(frame).ecn)
}

/// The whole chain for one tunnel kind, IPv4 and IPv6 flows together;
/// `shaped`: B's queue between T1 and T2 and A's shaper on (PE-05).
fn chain(srv6: bool, seed: u64, shaped: bool) {
    let mut rng = StdRng::seed_from_u64(seed);
    let flows = flows();
    let sent: Vec<(usize, Vec<u8>)> = (0..360u32)
        .map(|i| {
            let f = rng.gen_range(0..flows.len());
            let payload = rng.gen_range(16..1400);
            (f, flows[f].frame((SENDERS_MAC, A_MAC), i, payload))
        })
        .collect();
    let frames: Vec<Vec<u8>> = sent.iter().map(|(_, d)| d.clone()).collect();
    let a = ingress_pe(srv6, &flows, shaped);
    let b = wan_node(if shaped { 40_000_000 } else { 80_000_000 });
    let c = egress_pe();
    let mut r = run(a, b, c, &frames, seed);
    let kind = if srv6 { "SRv6" } else { "VXLAN" };

    // The flow of each frame the receivers got, in their order: the
    // order of A's, B's and C's outputs (B and C keep it; A keeps it per
    // flow). Each flow's frames in the order its sender sent them.
    assert_eq!(r.received.len(), frames.len(), "{kind}: no frame lost");
    let order: Vec<usize> = r
        .received
        .iter()
        .map(|rx| {
            let key = FlowKey::of_header(&classify(&rx.data));
            flows
                .iter()
                .position(|f| f.key() == key)
                .expect("a flow's frame")
        })
        .collect();
    let mut per_flow: Vec<VecDeque<&Vec<u8>>> = vec![VecDeque::new(); flows.len()];
    for (f, d) in &sent {
        per_flow[*f].push_back(d);
    }
    let expected: Vec<&Vec<u8>> = order
        .iter()
        .map(|&f| per_flow[f].pop_front().expect("no more frames of the flow"))
        .collect();
    let reordered = expected
        .iter()
        .zip(&frames)
        .filter(|(e, f)| **e != *f)
        .count();
    eprintln!("{kind}: {reordered} frames left A in another place than they came");
    if !shaped {
        assert_eq!(reordered, 0, "without shaping A keeps the order");
    }

    // A: one label per flow, never 0, on every tunnelled frame.
    assert_eq!(
        r.tunnelled.len(),
        frames.len(),
        "{kind}: A sent every frame"
    );
    let mut label_of: BTreeMap<u32, usize> = BTreeMap::new();
    for (t, f) in r.tunnelled.iter().zip(&order) {
        let label = u32::from_be_bytes([0, t.data[15] & 0xf, t.data[16], t.data[17]]);
        assert_ne!(label, 0);
        assert_eq!(*label_of.entry(label).or_insert(*f), *f, "label {label}");
    }
    assert_eq!(label_of.len(), flows.len());

    // B: remarks every ECN-capable packet (above T2: CE with probability
    // 1/2, else ECT(1)) and tells A about the flows, light and severe.
    let reg = |gw: &mut Gateway, o| gw.csr_read(o).unwrap();
    let (ect1, ce) = (
        reg(&mut r.b, offset::PE_ECT1_MARKED),
        reg(&mut r.b, offset::PE_CE_MARKED),
    );
    let fcn_sent = reg(&mut r.b, offset::FCN_SENT);
    eprintln!(
        "{kind}: {} frames, B marked {ect1} ECT(1) and {ce} CE, sent {fcn_sent} Fast CNPs",
        frames.len()
    );
    assert_eq!(r.marked.len(), frames.len());
    if shaped {
        assert!(ce == 0 && ect1 > 50, "only light marks: {ce} CE");
    } else {
        assert!(ce > 50 && ect1 > 50, "both marks");
    }
    assert!(r.fast_cnps.len() > 20);
    assert_eq!(r.fast_cnps.len() as u32, fcn_sent);
    let mut levels = [0u32; 8];
    for f in &r.fast_cnps {
        let p = cngw_packet::Frame::parse(&f.data).unwrap();
        let body = &p.udp().unwrap().payload;
        let word = u32::from_be_bytes(body[..4].try_into().unwrap());
        let (label, level) = (word >> 12, (word >> 9) & 7);
        levels[level as usize] += 1;
        assert!(
            label_of.contains_key(&label),
            "a Fast CNP names label {label}"
        );
    }
    let light: u32 = levels[1..4].iter().sum();
    let severe: u32 = levels[4..].iter().sum();
    if shaped {
        assert!(
            light > 20 && severe == 0,
            "light Fast CNPs only: {levels:?}"
        );
    } else {
        assert!(
            light > 0 && severe > 0,
            "light and severe Fast CNPs: {levels:?}"
        );
    }

    // A: every Fast CNP taken in; a standard CNP per accepted one, to the
    // flow's sender and source QP.
    let a_rx = reg(&mut r.a, offset::FCN_RX_RECEIVED);
    let a_cnps = reg(&mut r.a, offset::FCN_RX_CNP_SENT);
    assert_eq!(a_rx, fcn_sent, "A took every Fast CNP off its WAN input");
    assert_eq!(reg(&mut r.a, offset::FCN_RX_UNKNOWN_LABEL), 0);
    assert_eq!(reg(&mut r.a, offset::FCN_RX_NO_SQP), 0);
    assert_eq!(reg(&mut r.a, offset::FCN_RX_OUT_OF_DOMAIN), 0);
    assert_eq!(r.cnps.len() as u32, a_cnps);
    if shaped {
        // PE-05: A keeps every light notification for its shaper.
        let taken = reg(&mut r.a, offset::PE_SHAPER_NOTES_TAKEN);
        let limited = reg(&mut r.a, offset::FCN_RX_RATE_LIMITED);
        let shaped_frames = reg(&mut r.a, offset::PE_SHAPER_SHAPED_FRAMES);
        eprintln!(
            "{kind}: A's shaper took {taken} notifications ({limited} rate-limited), \
             shaped {shaped_frames} frames"
        );
        assert_eq!(a_cnps, 0, "no CNP for a light notification");
        assert_eq!(
            taken + reg(&mut r.a, offset::PE_SHAPER_NOTES_DROPPED),
            a_rx - limited,
            "every accepted light notification reached the shaper"
        );
        assert!(taken > 20 && shaped_frames > 20);
    } else {
        assert!(a_cnps > 10, "{a_cnps} CNPs");
    }
    for cnp in &r.cnps {
        let h = classify(&cnp.data);
        assert_eq!(h.class, FrameClass::Roce);
        assert_eq!(h.opcode, 0x81);
        let flow = flows
            .iter()
            .find(|f| f.key().sip == u128::from_be_bytes(h.dst_ip))
            .expect("a CNP to a sender");
        assert_eq!(h.dest_qp, flow.sqp, "DestQP = the flow's source QP");
        let src: IpAddr = match flow.src {
            IpAddr::V4(_) => IpAddr::V4(A_IP4),
            IpAddr::V6(_) => IpAddr::V6(A_IP6),
        };
        let want = match src {
            IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
            IpAddr::V6(a) => a.octets(),
        };
        assert_eq!(h.src_ip, want);
        assert_eq!(cnp.data[..6], SENDERS_MAC);
    }

    // C: every frame reaches its receiver, CE copied in, ECT(1) not.
    let (mut got_ce, mut got_ect0) = (0, 0);
    for ((rx, tx), marked) in r.received.iter().zip(expected).zip(&r.marked) {
        let outer = Ecn::from_bits(if marked.data[12..14] == [0x86, 0xdd] {
            (marked.data[14] << 4) | (marked.data[15] >> 4)
        } else {
            unreachable!("outer IPv6")
        });
        let want = if outer == Ecn::Ce { Ecn::Ce } else { Ecn::Ect0 };
        assert_eq!(ecn_of(&rx.data), want);
        got_ce += (want == Ecn::Ce) as u32;
        got_ect0 += (want == Ecn::Ect0) as u32;
        let mut expect = tx.clone();
        cngw_model::ecn::set_ecn(&mut expect, want);
        if srv6 {
            // The Ethernet header is C's own.
            expect[..6].copy_from_slice(&RECEIVERS_MAC);
            expect[6..12].copy_from_slice(&C_MAC);
        }
        assert!(rx.data == expect, "{kind}: a received frame differs");
        assert!(!rx.user);
    }
    assert_eq!(got_ce, ce, "every CE mark reached the receiver");
    assert_eq!(
        reg(&mut r.c, offset::TUNNEL_LIGHT_MARKS),
        ect1,
        "every ECT(1) mark stayed in the WAN"
    );

    // scapy: what left the chain, and the Fast CNPs.
    let out: Vec<Vec<u8>> = r
        .received
        .iter()
        .chain(&r.cnps)
        .chain(&r.fast_cnps)
        .map(|f| f.data.clone())
        .collect();
    let Some(dissected) = dissect(&out) else {
        return;
    };
    let n_rx = r.received.len();
    for (i, f) in dissected.iter().enumerate() {
        assert_checksums_ok(f);
        if i < n_rx + r.cnps.len() {
            assert_eq!(get(f, "icrc_ok"), "True");
        } else {
            assert_eq!(get(f, "UDP.len"), "12");
            assert_ne!(get(f, "udp_chksum_ok"), "zero");
        }
    }
    eprintln!("{kind}: receivers got {got_ce} CE and {got_ect0} ECT(0); A sent {a_cnps} CNPs");
}

/// FCN-01..FCN-05, PE-01..PE-04, PE-02: the VXLAN tunnel.
#[test]
fn fcn_05_pe_02_three_gateways_vxlan() {
    chain(false, 1, false);
}

/// The same through an SRv6 tunnel (C's address as the one segment).
#[test]
fn fcn_05_pe_02_three_gateways_srv6() {
    chain(true, 2, false);
}

/// PE-05: a WAN node between T1 and T2 (light notifications only) and an
/// ingress PE that shapes instead of telling the senders; SRv6.
#[test]
fn pe_05_three_gateways_light_notifications_shape_at_the_ingress_pe() {
    chain(true, 3, true);
}
