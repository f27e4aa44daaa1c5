//! PE-05 in the gateway: the ingress PE slows the flow a light Fast CNP
//! names, at the tunnel entrance, and moves it to the alternate SRv6 path
//! while its rate is low (draft-hu-rtgwg-pre-ecn-wan, "Ingress PE Action
//! upon T1").
//!
//! One gateway in the ingress-PE role (SRv6, one SID; the alternate path
//! two SIDs) carries three RoCEv2 flows from dc_rx, with random idle
//! clocks and random backpressure on wan_tx. A WAN node's Fast CNPs reach
//! its wan_rx: four light ones (level 2) for flow 1, eight microseconds
//! apart, and one severe one (level 5) for flow 2. The test checks, against
//! the reference model and scapy:
//! - no frame is lost and each flow's frames keep their order; every frame
//!   is the model's encapsulation on the primary or the alternate path
//!   (only flow 1 takes the alternate one, in one run: it leaves when its
//!   rate falls to `below` and comes back at `above`);
//! - the light notifications never become CNPs: the only standard CNP is
//!   the severe one's, the model's frame, to flow 2's sender and QP;
//! - the shaper took the four notifications (the model hands over the
//!   same four), its probe shows flow 1's slot at the rate the law gives
//!   (1024 -> 512 -> 256 -> 128 -> 64 bytes per microsecond) on the
//!   alternate path, and flow 1's bytes on wan_tx while at 64 B/us stay
//!   within rate x time + burst + one frame;
//! - the rate recovers when the notifications stop: the flow returns to
//!   the primary path, the slot is freed, and later frames of flow 1 take
//!   the fast path (the shaped-frame count no longer moves).

use cngw_driver::{label_location, Device, ShaperState, SimBus};
use cngw_model::flow_shaper::{window_bound, ShaperConfig};
use cngw_model::longhaul::Registers;
use cngw_model::tunnel_encap::{encapsulate_frame, EncapConfig, EncapFate};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::fast_cnp::FastCnp;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::parsed::classify;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::Envelope;
use cngw_regmap::{
    fcn_control, fcn_rx_dom_control, feature, flow_command, offset, pe_shaper, tunnel_control,
};
use cngw_sim::{frame_to_beats, Beat, Gateway};
use cngw_testbench::traffic::{ipv6_words, mac_words, RoceFlow};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const PE_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const PE_IP4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const WAN_NODE: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0x99);
const SID0: Ipv6Addr = Ipv6Addr::new(0xfc00, 0x2, 0, 0, 0, 0, 0, 0x100);
const ALT0: Ipv6Addr = Ipv6Addr::new(0xfc00, 0x7, 0, 0, 0, 0, 0, 0x700);
const ALT1: Ipv6Addr = Ipv6Addr::new(0xfc00, 0x8, 0, 0, 0, 0, 0, 0x800);
const PE_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xa, 0x01];
const NEXT_HOP: [u8; 6] = [0x02, 0, 0, 0, 0xe, 0x01];
const SENDERS_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0xa0];
const CLOCKS_PER_US: u64 = 16;
/// The shaper: full rate 1024 B/us (the line at 16 clocks per
/// microsecond), floor 64, each cut halves, +128 every 30 quiet us, a
/// 2 KiB bucket, the alternate path at 256 or below until 768 or above.
const MAX_RATE: u32 = 1024;
const MIN_RATE: u32 = 64;
const CUT_SHIFT: u32 = 1;
const RECOVER_US: u32 = 30;
const STEP: u32 = 128;
const BURST: u32 = 2048;
const ALT_BELOW: u32 = 256;
const ALT_ABOVE: u32 = 768;

/// The model's registers as the model crate's functions read them.
struct View<'a>(&'a GatewayModel);

impl Registers for View<'_> {
    fn reg(&self, offset: u32) -> u32 {
        self.0.read_register(offset).unwrap()
    }
}

fn flows() -> [RoceFlow; 3] {
    [
        RoceFlow {
            src: IpAddr::V4(Ipv4Addr::new(10, 1, 0, 11)),
            dst: IpAddr::V4(Ipv4Addr::new(10, 2, 0, 1)),
            dqp: 0x301,
            sqp: 0x101,
        },
        RoceFlow {
            src: IpAddr::V6(Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 12)),
            dst: IpAddr::V6(Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1)),
            dqp: 0x302,
            sqp: 0x102,
        },
        RoceFlow {
            src: IpAddr::V4(Ipv4Addr::new(10, 1, 0, 13)),
            dst: IpAddr::V4(Ipv4Addr::new(10, 2, 0, 1)),
            dqp: 0x303,
            sqp: 0x103,
        },
    ]
}

/// The ingress PE and its model: SRv6 tunnel, Fast CNP reception from the
/// WAN node's prefix, the flows as static entries with their source QPs,
/// the shaper on with the alternate path.
fn setup(flows: &[RoceFlow]) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let (mac_hi, mac_lo) = mac_words(PE_MAC);
    let (nh_hi, nh_lo) = mac_words(NEXT_HOP);
    let (cnp_hi, cnp_lo) = mac_words(SENDERS_MAC);
    let mut regs = vec![
        (offset::GW_MAC_HI, mac_hi),
        (offset::GW_MAC_LO, mac_lo),
        (offset::GW_IPV4, u32::from(PE_IP4)),
        (offset::TUNNEL_NEXT_HOP_MAC_HI, nh_hi),
        (offset::TUNNEL_NEXT_HOP_MAC_LO, nh_lo),
        (offset::FCN_CNP_MAC_HI, cnp_hi),
        (offset::FCN_CNP_MAC_LO, cnp_lo),
        (offset::CLOCKS_PER_US, CLOCKS_PER_US as u32),
        (offset::FCN_RX_DOM0_PREFIX_0, 0xfd00_000c),
        (
            offset::FCN_RX_DOM0_CONTROL,
            fcn_rx_dom_control::VALID | 32 << fcn_rx_dom_control::LEN_SHIFT,
        ),
        (offset::FCN_RX_BUCKET_REFILL_CLOCKS, 1),
        (offset::FCN_CONTROL, fcn_control::INGRESS_PE),
        (offset::FEATURE_ENABLE, feature::FAST_CNP),
        (offset::PE_SHAPER_RATE, MAX_RATE | MIN_RATE << 16),
        (offset::PE_SHAPER_RECOVER, RECOVER_US | STEP << 16),
        (offset::PE_SHAPER_BURST, BURST),
        (offset::PE_SHAPER_ALT, ALT_BELOW | ALT_ABOVE << 16),
        (
            offset::PE_SHAPER_CONTROL,
            pe_shaper::ENABLE
                | pe_shaper::ALT_ENABLE
                | pe_shaper::ALT_TWO_SIDS
                | CUT_SHIFT << pe_shaper::CUT_SHIFT_LSB,
        ),
    ];
    for (base, a) in [
        (offset::GW_IPV6_0, PE_IP6),
        (offset::TUNNEL_SID0_0, SID0),
        (offset::TUNNEL_ALT_SID0_0, ALT0),
        (offset::TUNNEL_ALT_SID1_0, ALT1),
    ] {
        for (i, w) in ipv6_words(a).into_iter().enumerate() {
            regs.push((base + 4 * i as u32, w));
        }
    }
    for (off, v) in regs {
        gw.csr_write(off, v).unwrap();
        assert!(m.write_register(off, v), "{off:#x}");
    }
    for f in flows {
        let key = f.key();
        let mut regs = vec![(offset::FLOW_DQP, key.dqp), (offset::FLOW_SQP, f.sqp)];
        for (k, w) in ipv6_words(Ipv6Addr::from(key.sip)).into_iter().enumerate() {
            regs.push((offset::FLOW_SIP_0 + 4 * k as u32, w));
        }
        for (k, w) in ipv6_words(Ipv6Addr::from(key.dip)).into_iter().enumerate() {
            regs.push((offset::FLOW_DIP_0 + 4 * k as u32, w));
        }
        regs.push((offset::FLOW_COMMAND, flow_command::INSERT_STATIC));
        for (off, v) in regs {
            gw.csr_write(off, v).unwrap();
            assert!(m.write_register(off, v), "{off:#x}");
        }
        gw.run(20);
    }
    let control = tunnel_control::INGRESS_PE | tunnel_control::SRV6;
    gw.csr_write(offset::TUNNEL_CONTROL, control).unwrap();
    assert!(m.write_register(offset::TUNNEL_CONTROL, control));
    (gw, m)
}

/// A Fast CNP from the WAN node to this PE.
fn fast_cnp(label: u32, level: u8) -> Vec<u8> {
    let env = Envelope::ipv6(WAN_NODE, PE_IP6).with_macs(NEXT_HOP, PE_MAC);
    FastCnp::new(label, level)
        .to_frame(&env, 0xC001, 49_791)
        .to_bytes()
}

/// Frames leaving one output: data, tuser, the clock of the last beat.
#[derive(Default)]
struct Collector {
    current: Vec<u8>,
    frames: Vec<(Frame, u64)>,
}

impl Collector {
    fn take(&mut self, b: &Beat, clock: u64) {
        self.current
            .extend_from_slice(&b.data[..b.keep.count_ones() as usize]);
        if b.last {
            let data = std::mem::take(&mut self.current);
            self.frames.push((Frame { data, user: b.user }, clock));
        }
    }
}

/// Holds the streams (nothing offered, nothing taken) while the driver
/// reads the shaper (its slots through the probe window) and resolves each
/// shaped flow's label to its flow-table entry.
fn pause_and_probe(gw: &mut Gateway) -> (ShaperState, Vec<Option<FlowKey>>) {
    gw.drive(InPort::DcRx, None);
    gw.drive(InPort::WanRx, None);
    gw.set_ready(OutPort::WanTx, false);
    gw.set_ready(OutPort::DcTx, false);
    let mut dev = Device::open(SimBus::new(gw)).unwrap();
    let state = dev.shaper().unwrap();
    let keys = state
        .slots
        .iter()
        .map(|s| {
            let place = label_location(s.label)?;
            let found = dev.flow_table().read_location(place).unwrap()?;
            Some(found.0)
        })
        .collect();
    (state, keys)
}

#[test]
fn pe_05_light_fast_cnps_shape_and_reroute_their_flow_at_the_ingress_pe() {
    let flows = flows();
    let (mut gw, mut m) = setup(&flows);
    let labels: Vec<u32> = flows
        .iter()
        .map(|f| m.flow_label(&f.key()).expect("a static flow has a label"))
        .collect();
    let mut rng = StdRng::seed_from_u64(5);
    // Part A: 300 frames of the three flows in turn; part B: 45 more once
    // flow 1 has recovered.
    let make = |rng: &mut StdRng, i: u32| {
        let f = i as usize % 3;
        (
            f,
            flows[f].frame((SENDERS_MAC, PE_MAC), i, rng.gen_range(200..1000)),
        )
    };
    let part_a: Vec<(usize, Vec<u8>)> = (0..300).map(|i| make(&mut rng, i)).collect();
    let part_b: Vec<(usize, Vec<u8>)> = (300..345).map(|i| make(&mut rng, i)).collect();

    let start = gw.cycle();
    // The Fast CNPs: severe for flow 2 at +200 clocks, light for flow 1
    // from +400, eight microseconds apart.
    let mut notes: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    notes.push_back((start + 200, fast_cnp(labels[1], 5)));
    for k in 0..4 {
        notes.push_back((start + 400 + k * 8 * CLOCKS_PER_US, fast_cnp(labels[0], 2)));
    }
    let all_notes: Vec<Vec<u8>> = notes.iter().map(|n| n.1.clone()).collect();
    let last_note_at = start + 400 + 3 * 8 * CLOCKS_PER_US;
    // While flow 1's rate is 64 B/us: from the probe to the first recovery
    // step, 30 us after the last notification.
    let probe_at = last_note_at + 40;
    let low_until = last_note_at + (RECOVER_US as u64 - 1) * CLOCKS_PER_US;
    // Eight recovery steps (64 -> 1024) take 240 us; part B starts after.
    let part_b_at = last_note_at + (8 * RECOVER_US as u64 + 20) * CLOCKS_PER_US;

    let mut dc: VecDeque<Beat> = part_a
        .iter()
        .flat_map(|(_, d)| frame_to_beats(d, false))
        .collect();
    let mut wan: VecDeque<Beat> = VecDeque::new();
    let (mut wan_tx, mut dc_tx) = (Collector::default(), Collector::default());
    let mut probes = Vec::new();
    let mut part_b_sent = false;
    // dc_rx beats taken while flow 1 is at 64 B/us, from the end of the
    // probe's pause.
    let mut dc_beats_low = 0u64;
    let mut low_from = u64::MAX;
    let mut quiet = 0;
    while quiet < 400 || !part_b_sent {
        let now = gw.cycle();
        assert!(now - start < 200_000, "the PE stopped moving");
        if !part_b_sent && now >= part_b_at {
            probes.push(pause_and_probe(&mut gw));
            dc.extend(part_b.iter().flat_map(|(_, d)| frame_to_beats(d, false)));
            part_b_sent = true;
            continue;
        }
        if probes.is_empty() && now >= probe_at {
            probes.push(pause_and_probe(&mut gw));
            low_from = gw.cycle();
            continue;
        }
        if wan.is_empty() && notes.front().is_some_and(|n| n.0 <= now) {
            wan.extend(frame_to_beats(&notes.pop_front().unwrap().1, false));
        }
        let offer = if rng.gen_bool(0.1) { None } else { dc.front() };
        gw.drive(InPort::DcRx, offer);
        gw.drive(InPort::WanRx, wan.front());
        let wan_ready = !rng.gen_bool(0.15);
        gw.set_ready(OutPort::WanTx, wan_ready);
        gw.set_ready(OutPort::DcTx, true);
        let mut moved = false;
        if offer.is_some() && gw.ready(InPort::DcRx) {
            dc.pop_front();
            moved = true;
            if now > low_from && now <= low_until {
                dc_beats_low += 1;
            }
        }
        if !wan.is_empty() && gw.ready(InPort::WanRx) {
            wan.pop_front();
            moved = true;
        }
        if let (Some(b), true) = (gw.output(OutPort::WanTx), wan_ready) {
            wan_tx.take(&b, now);
            moved = true;
        }
        if let Some(b) = gw.output(OutPort::DcTx) {
            dc_tx.take(&b, now);
            moved = true;
        }
        gw.step();
        let busy = moved || !dc.is_empty() || !wan.is_empty() || !notes.is_empty();
        quiet = if busy { 0 } else { quiet + 1 };
    }
    let reg = |gw: &mut Gateway, o| gw.csr_read(o).unwrap();

    // The model: every frame's encapsulation on either path, and the
    // notifications' fate.
    let sent: Vec<(usize, Vec<u8>)> = part_a.iter().chain(&part_b).cloned().collect();
    let mut want: Vec<VecDeque<(Vec<u8>, Vec<u8>)>> = vec![VecDeque::new(); 3];
    for (f, data) in &sent {
        let out = m.receive(InPort::DcRx, &Frame::new(data.clone()));
        assert_eq!(out.emitted.len(), 1);
        let primary = out.emitted[0].1.data.clone();
        let alt =
            match encapsulate_frame(data, false, labels[*f], &EncapConfig::alternate(&View(&m)))
                .fate
            {
                EncapFate::Sent { bytes, .. } => bytes,
                other => panic!("{other:?}"),
            };
        want[*f].push_back((primary, alt));
    }
    for n in &all_notes {
        let out = m.receive(InPort::WanRx, &Frame::new(n.clone()));
        assert!(out.emitted.is_empty(), "a Fast CNP to the PE stops there");
    }
    let light = m.take_light_notes();
    assert_eq!(light.len(), 4, "the model hands the shaper four notes");
    assert!(light.iter().all(|n| n.label == labels[0]));

    // Every frame, in order per flow, on one of its two paths.
    assert_eq!(wan_tx.frames.len(), sent.len(), "no frame lost");
    let label_flow: BTreeMap<u32, usize> =
        labels.iter().enumerate().map(|(i, &l)| (l, i)).collect();
    let mut paths: Vec<String> = vec![String::new(); 3];
    let mut low_window = (0u64, 0usize, 0usize); // bytes, frames, longest
    let mut f1_last_alt = None;
    for (frame, clock) in &wan_tx.frames {
        let d = &frame.data;
        assert!(!frame.user);
        let label = u32::from_be_bytes([0, d[15] & 0xf, d[16], d[17]]);
        let f = label_flow[&label];
        let (primary, alt) = want[f].pop_front().expect("a frame of the flow");
        // The frame as the shaper counted it (SRv6 carries the inner
        // packet: 78 outer bytes replace the 14 of its Ethernet header).
        let inner_len = primary.len() - 64;
        if *d == primary {
            paths[f].push('p');
        } else {
            assert!(*d == alt, "flow {f}: neither path's frame");
            paths[f].push('a');
            f1_last_alt = Some(*clock);
        }
        if f == 0 && *clock > low_from && *clock <= low_until {
            low_window.0 += inner_len as u64;
            low_window.1 += 1;
            low_window.2 = low_window.2.max(inner_len);
        }
    }
    eprintln!("paths: flow 1 {}", paths[0]);
    assert!(
        !paths[1].contains('a') && !paths[2].contains('a'),
        "only flow 1 moves"
    );
    let alt_run = paths[0].trim_start_matches('p').trim_end_matches('p');
    assert!(
        !alt_run.is_empty() && !alt_run.contains('p'),
        "flow 1 leaves the primary path once, in one run: {}",
        paths[0]
    );
    assert!(paths[0].ends_with("ppp"), "and comes back");
    assert!(f1_last_alt.unwrap() > last_note_at);

    // The probe after the fourth light notification: flow 1's slot at
    // 1024 cut four times by half, on the alternate path.
    // (Through the driver: one slot in use, its label resolved through the
    // flow table to flow 1.)
    let (st, keys) = &probes[0];
    let cfg = ShaperConfig::of_registers(&View(&m));
    let mut rate = cfg.first_rate();
    for _ in 1..4 {
        rate = cfg.cut(rate);
    }
    assert_eq!(rate, MIN_RATE);
    assert!(st.enabled && st.alt_enabled && st.alt_two_sids, "{st:?}");
    assert_eq!(
        (st.max_rate, st.min_rate, st.burst, st.cut_shift),
        (MAX_RATE, MIN_RATE, BURST, CUT_SHIFT)
    );
    assert_eq!(st.slots.len(), 1, "{st:?}");
    let p = st.slots[0];
    assert!(p.alt, "{p:?}");
    assert_eq!((p.label, p.rate), (labels[0], rate), "{p:?}");
    assert!(p.tokens <= BURST as i32, "{p:?}");
    assert_eq!(
        keys[0],
        Some(flows[0].key()),
        "the slot's label names flow 1's entry"
    );
    assert_eq!(st.counters.notes_taken, 4);
    let shaped_mid = st.counters.shaped_frames;
    assert!(shaped_mid > 0);
    // Flow 1's bytes while at 64 B/us (clocks after the probe's pause to
    // the first recovery step).
    let window = low_until - low_from;
    let refills = MIN_RATE as u64 * (window / CLOCKS_PER_US + 1);
    // (Plus one frame between the shaper and wan_tx, held by backpressure
    // from before the window.)
    let bound = window_bound(refills, BURST, low_window.2) + low_window.2 as u64;
    eprintln!(
        "flow 1 at 64 B/us: {} bytes in {} frames over {window} clocks (bound {bound}, line {})",
        low_window.0,
        low_window.1,
        window * 64
    );
    eprintln!("dc_rx took {dc_beats_low} beats in those {window} clocks");
    assert!(low_window.1 > 0, "flow 1 still moves");
    assert!(low_window.0 <= bound, "flow 1 held to its rate");

    // Recovered: the slot was free before part B, and part B's frames of
    // flow 1 took the fast path.
    let (st, _) = &probes[1];
    assert!(
        st.slots.is_empty(),
        "the slot is freed at full rate: {st:?}"
    );
    let shaped_before_b = st.counters.shaped_frames;
    assert_eq!(
        reg(&mut gw, offset::PE_SHAPER_SHAPED_FRAMES),
        shaped_before_b
    );
    let f1_frames = sent.iter().filter(|(f, _)| *f == 0).count() as u32;
    assert!(shaped_before_b > shaped_mid && shaped_before_b < f1_frames);
    assert_eq!(reg(&mut gw, offset::PE_SHAPER_NOTES_TAKEN), 4);
    assert_eq!(reg(&mut gw, offset::PE_SHAPER_NOTES_DROPPED), 0);
    assert_eq!(reg(&mut gw, offset::PE_SHAPER_REROUTES), 1);
    assert_eq!(reg(&mut gw, offset::PE_SHAPER_RETURNS), 1);

    // Light notifications are not translated; the severe one is.
    assert_eq!(reg(&mut gw, offset::FCN_RX_RECEIVED), 5);
    assert_eq!(reg(&mut gw, offset::FCN_RX_CNP_SENT), 1);
    let cnps: Vec<Vec<u8>> = dc_tx.frames.iter().map(|(f, _)| f.data.clone()).collect();
    let want_cnps: Vec<Vec<u8>> = m
        .take_ingress_cnps()
        .into_iter()
        .map(|n| n.frame.data)
        .collect();
    assert_eq!(cnps, want_cnps, "the CNP");
    assert_eq!(cnps.len(), 1);
    let h = classify(&cnps[0]);
    assert_eq!((h.opcode, h.dest_qp), (0x81, flows[1].sqp));
    assert_eq!(h.dst_ip, flows[1].key().sip.to_be_bytes());
    assert_eq!(
        reg(&mut gw, offset::TUNNEL_ENCAPSULATED),
        m.read_register(offset::TUNNEL_ENCAPSULATED).unwrap()
    );

    // scapy: the outer headers of both paths, every inner checksum and
    // ICRC, the CNP.
    let frames: Vec<Vec<u8>> = wan_tx
        .frames
        .iter()
        .map(|(f, _)| f.data.clone())
        .chain(cnps.iter().cloned())
        .collect();
    let Some(dissected) = dissect(&frames) else {
        return;
    };
    let srh = "IPv6ExtHdrSegmentRouting";
    for (f, data) in dissected.iter().zip(&frames) {
        assert_checksums_ok(f);
        assert_eq!(get(f, "icrc_ok"), "True");
        if data.len() > 100 && data[12..14] == [0x86, 0xdd] && data[20] == 43 {
            assert_eq!(get(f, "IPv6.src"), PE_IP6.to_string());
            if get(f, "IPv6.dst") == ALT0.to_string() {
                assert_eq!(get(f, &format!("{srh}.segleft")), "1");
                assert_eq!(
                    get(f, &format!("{srh}.addresses")),
                    format!("{ALT1},{ALT0}")
                );
            } else {
                assert_eq!(get(f, "IPv6.dst"), SID0.to_string());
                assert_eq!(get(f, &format!("{srh}.addresses")), SID0.to_string());
            }
        }
    }
}
