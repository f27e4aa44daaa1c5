//! The egress PE's tunnel decapsulation (`cngw_hdl::pe::TunnelDecap`) in
//! the Verilog that ships, against a software reference built from the
//! packet crate (`cngw_packet::vxlan`, `cngw_packet::srh`, the RFC 1624
//! checksum update of `cngw_packet::ipv4`) and `cngw_model::tunnel_ecn`
//! (PE-02, PE-06): VXLAN and SRv6 frames for this PE carrying random IPv4
//! and IPv6 RoCEv2 frames (tagged or not, every inner and outer ECN, sizes
//! up to 4096-byte payloads), non-IP and short inner frames, runts, and
//! frames that are not for the PE (other addresses, ports, Segments Left
//! above 0, long SRHs, tagged or IPv4 outer headers), with random idle
//! clocks and backpressure: every output frame byte for byte, every pulse
//! counted; every cell of both decapsulation tables; scapy's view of the
//! inner headers; and the throughput, clock for clock.

use cngw_model::tunnel_decap::{decapsulate_frame, DecapConfig};
use cngw_model::tunnel_ecn::{decapsulate, DecapTable};
use cngw_packet::bth::opcode;
use cngw_packet::checksum::IPPROTO_UDP;
use cngw_packet::frame::L4;
use cngw_packet::srh::SegmentRoutingHeader;
use cngw_packet::udp::UdpDatagram;
use cngw_packet::{
    srh, vxlan, Ecn, Envelope, Frame, IpHeader, IpPair, MacAddr, RoceFrameBuilder, UdpChecksum,
};
use cngw_sim::{frame_to_beats, Beat, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

/// A frame's first output beat is on `m` four clocks after its first beat
/// is taken: stages b and a, then HeaderSplice's two.
const LATENCY: u64 = 4;

/// The block's configuration inputs.
#[derive(Clone, Debug)]
struct Config {
    pe: Ipv6Addr,
    dst_mac: MacAddr,
    src_mac: MacAddr,
    pre_ecn: bool,
}

impl Config {
    fn new(pre_ecn: bool) -> Config {
        Config {
            pe: "2001:db8:2::2".parse().unwrap(),
            dst_mac: [0x02, 0xdc, 0, 0, 0, 0x10],
            src_mac: [0x02, 0xc6, 0, 0, 0, 0x01],
            pre_ecn,
        }
    }

    fn apply(&self, unit: &mut Unit) {
        unit.set_bytes("pe_ipv6", &self.pe.octets()).unwrap();
        unit.set_bytes("pe_dst_mac", &self.dst_mac).unwrap();
        unit.set_bytes("pe_src_mac", &self.src_mac).unwrap();
        unit.set_u64("pre_ecn", self.pre_ecn as u64).unwrap();
    }

    fn table(&self) -> DecapTable {
        if self.pre_ecn {
            DecapTable::PreEcn
        } else {
            DecapTable::Rfc6040
        }
    }
}

/// Pulse counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    decap_vxlan: u64,
    decap_srv6: u64,
    passed: u64,
    ecn_dropped: u64,
    light: u64,
    alarm: u64,
    runt_dropped: u64,
}

const PULSES: [&str; 7] = [
    "decap_vxlan",
    "decap_srv6",
    "passed",
    "ecn_dropped",
    "light",
    "alarm",
    "runt_dropped",
];

impl Counts {
    fn add(&mut self, name: &str) {
        match name {
            "decap_vxlan" => self.decap_vxlan += 1,
            "decap_srv6" => self.decap_srv6 += 1,
            "passed" => self.passed += 1,
            "ecn_dropped" => self.ecn_dropped += 1,
            "light" => self.light += 1,
            "alarm" => self.alarm += 1,
            _ => self.runt_dropped += 1,
        }
    }

    fn merge(&mut self, o: &Counts) {
        self.decap_vxlan += o.decap_vxlan;
        self.decap_srv6 += o.decap_srv6;
        self.passed += o.passed;
        self.ecn_dropped += o.ecn_dropped;
        self.light += o.light;
        self.alarm += o.alarm;
        self.runt_dropped += o.runt_dropped;
    }
}

/// One input frame.
#[derive(Clone, Debug)]
struct Job {
    frame: Vec<u8>,
    user: bool,
}

/// The reference: the output frame (bytes, tuser) or none, and the pulses
/// (`cngw_model::tunnel_decap`, which the gateway model uses too).
fn expected(job: &Job, cfg: &Config) -> (Option<(Vec<u8>, bool)>, Counts) {
    let d = decapsulate_frame(
        &job.frame,
        &DecapConfig {
            pe: cfg.pe,
            dst_mac: cfg.dst_mac,
            src_mac: cfg.src_mac,
            table: cfg.table(),
        },
    );
    let c = Counts {
        decap_vxlan: d.vxlan as u64,
        decap_srv6: d.srv6 as u64,
        passed: d.passed as u64,
        ecn_dropped: d.ecn_dropped as u64,
        light: d.light as u64,
        alarm: d.alarm as u64,
        runt_dropped: d.runt as u64,
    };
    (d.frame.map(|f| (f, job.user)), c)
}

fn expected_counts(jobs: &[Job], cfg: &Config) -> Counts {
    let mut c = Counts::default();
    for j in jobs {
        c.merge(&expected(j, cfg).1);
    }
    c
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a run gives: the output frames (bytes, last tuser), the pulse
/// counts, the clocks of the first and last input handshakes and of the
/// last output handshake, and the clocks an offered beat was not taken
/// (after the first was).
struct Run {
    frames: Vec<(Vec<u8>, bool)>,
    counts: Counts,
    first_in: u64,
    last_in: u64,
    last_out: u64,
    stalls: u64,
}

/// Drives `jobs` through a fresh unit with idle clocks on the input and
/// backpressure on the output; checks the output's packing and stability
/// and that `s.tready` does not follow `m.tready`.
fn run(jobs: &[Job], cfg: &Config, idle: f64, backpressure: f64, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("tunnel_decap").unwrap();
    cfg.apply(&mut unit);
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let beats: Vec<Vec<Beat>> = jobs
        .iter()
        .map(|j| {
            let mut b = frame_to_beats(&j.frame, j.user);
            for beat in b.iter_mut() {
                for lane in 0..64 {
                    if beat.keep >> lane & 1 == 0 {
                        beat.data[lane] = rng.gen();
                    }
                }
                if !beat.last {
                    beat.user = rng.gen_bool(0.3);
                }
            }
            b
        })
        .collect();
    let total_beats: usize = beats.iter().map(|b| b.len()).sum();
    let expected_frames = jobs.iter().filter(|j| expected(j, cfg).0.is_some()).count();
    let (mut f, mut b) = (0usize, 0usize);
    let mut offered = false;
    let mut frames = Vec::new();
    let mut current = Vec::new();
    let mut counts = Counts::default();
    let mut held: Option<(Vec<u32>, u64, u64, u64)> = None;
    let (mut first_in, mut last_in, mut last_out, mut stalls) = (None, 0, 0, 0);
    let mut clocks = 0u64;
    while frames.len() < expected_frames || f < jobs.len() {
        clocks += 1;
        assert!(
            clocks < 200 * (total_beats as u64 + 10),
            "stalled: {} frames out, frame {f} beat {b} in",
            frames.len()
        );
        if f < jobs.len() && !offered {
            offered = !rng.gen_bool(idle);
        }
        unit.drive_stream("s", offered.then(|| &beats[f][b]))
            .unwrap();
        unit.set_u64("m_tready", 0).unwrap();
        let s_ready0 = unit.get_u64("s_tready").unwrap();
        let ready = !rng.gen_bool(backpressure);
        unit.set_u64("m_tready", ready as u64).unwrap();
        let s_ready = unit.get_u64("s_tready").unwrap();
        assert_eq!(s_ready, s_ready0, "s.tready follows m.tready");
        if offered && s_ready == 1 {
            first_in.get_or_insert(unit.cycle());
            last_in = unit.cycle();
            b += 1;
            if b == beats[f].len() {
                b = 0;
                f += 1;
            }
            offered = false;
        } else if offered && first_in.is_some() {
            stalls += 1;
        }
        for name in PULSES {
            if unit.get_u64(name).unwrap() == 1 {
                counts.add(name);
            }
        }
        if unit.get_u64("m_tvalid").unwrap() == 1 {
            let data = unit.get("m_tdata").unwrap();
            let keep = unit.get_u64("m_tkeep").unwrap();
            let last = unit.get_u64("m_tlast").unwrap();
            let user = unit.get_u64("m_tuser").unwrap();
            if let Some(h) = &held {
                assert_eq!(
                    h,
                    &(data.clone(), keep, last, user),
                    "m changed before tready"
                );
            }
            held = (!ready).then(|| (data.clone(), keep, last, user));
            if ready {
                let n = keep.trailing_ones() as usize;
                assert!(n > 0, "empty beat");
                assert_eq!(keep, if n == 64 { u64::MAX } else { (1 << n) - 1 });
                assert!(n == 64 || last == 1, "partial beat before the last");
                assert!(user == 0 || last == 1, "tuser before the last beat");
                current.extend_from_slice(&words_to_bytes(&data)[..n]);
                if last == 1 {
                    frames.push((std::mem::take(&mut current), user == 1));
                }
                last_out = unit.cycle();
            }
        } else {
            assert!(held.is_none(), "m.tvalid fell before tready");
        }
        unit.step();
    }
    unit.set_u64("m_tready", 1).unwrap();
    unit.set_u64("s_tvalid", 0).unwrap();
    for _ in 0..10 {
        assert_eq!(unit.get_u64("m_tvalid").unwrap(), 0);
        for name in PULSES {
            if unit.get_u64(name).unwrap() == 1 {
                counts.add(name);
            }
        }
        unit.step();
    }
    Run {
        frames,
        counts,
        first_in: first_in.unwrap(),
        last_in,
        last_out,
        stalls,
    }
}

fn assert_matches_reference(r: &Run, jobs: &[Job], cfg: &Config) {
    let want: Vec<(Vec<u8>, bool)> = jobs.iter().filter_map(|j| expected(j, cfg).0).collect();
    assert_eq!(r.frames.len(), want.len());
    for (i, (got, want)) in r.frames.iter().zip(&want).enumerate() {
        assert_eq!(got.1, want.1, "tuser of output frame {i}");
        if got.0 != want.0 {
            let at = got.0.iter().zip(&want.0).position(|(a, b)| a != b);
            panic!(
                "output frame {i}: {} bytes, want {}; first difference at {at:?}\n\
                 got  {:02x?}\nwant {:02x?}",
                got.0.len(),
                want.0.len(),
                &got.0[..got.0.len().min(128)],
                &want.0[..want.0.len().min(128)]
            );
        }
    }
    assert_eq!(r.counts, expected_counts(jobs, cfg), "pulse counts");
}

const ALL_ECN: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce];

fn random_ecn(rng: &mut StdRng) -> Ecn {
    ALL_ECN[rng.gen_range(0..4)]
}

/// A random RoCEv2 frame (as in the encapsulation tests).
fn random_roce(rng: &mut StdRng, v6: bool, vlan: bool, ecn: Ecn) -> Vec<u8> {
    let mut b = if v6 {
        RoceFrameBuilder::ipv6(
            Ipv6Addr::from(rng.gen::<u128>()),
            Ipv6Addr::from(rng.gen::<u128>()),
        )
        .flow_label(rng.gen())
    } else {
        RoceFrameBuilder::ipv4(
            Ipv4Addr::from(rng.gen::<u32>()),
            Ipv4Addr::from(rng.gen::<u32>()),
        )
    };
    let len = match rng.gen_range(0..5) {
        0 => rng.gen_range(0..16),
        1 => 4096,
        2 => rng.gen_range(0..=4096),
        _ => rng.gen_range(0..=1100),
    };
    b = b
        .ecn(ecn)
        .dscp(rng.gen_range(0..64))
        .ttl(rng.gen())
        .opcode(opcode::RC_RDMA_WRITE_ONLY)
        .dest_qp(rng.gen())
        .psn(rng.gen())
        .payload((0..len).map(|_| rng.gen()).collect());
    if vlan {
        b = b.vlan(rng.gen_range(1..4095));
    }
    b.build()
}

/// The outer envelope of a tunnel frame for `cfg`'s PE.
fn outer_env(rng: &mut StdRng, cfg: &Config, ecn: Ecn) -> Envelope {
    Envelope::ipv6(Ipv6Addr::from(rng.gen::<u128>()), cfg.pe)
        .with_macs(rng.gen(), rng.gen())
        .with_dscp(rng.gen_range(0..64))
        .with_ecn(ecn)
        .with_ttl(rng.gen())
        .with_flow_label(rng.gen())
}

/// A VXLAN frame carrying `inner`, checked against the packet crate's
/// decapsulation.
fn vxlan_frame(rng: &mut StdRng, env: &Envelope, inner: &[u8]) -> Vec<u8> {
    let f = vxlan::encapsulate(
        env,
        rng.gen(),
        rng.gen_range(0..1 << 24),
        inner,
        UdpChecksum::Zero,
    );
    assert_eq!(vxlan::decapsulate(&f).unwrap().1, inner);
    f.to_bytes()
}

/// An SRv6 frame as it arrives at a segment: `segments` in list order
/// (Segment List[0], the last segment, first), Segments Left `sl` (the
/// destination is Segment List[sl]), next header `nh`, `tlvs` after the
/// list; checked against the packet crate.
fn srv6_frame(
    env: &Envelope,
    segments: &[Ipv6Addr],
    sl: u8,
    nh: u8,
    tlvs: Vec<u8>,
    inner: &[u8],
) -> Vec<u8> {
    let IpPair::V6 { src, .. } = env.ip else {
        unreachable!()
    };
    let mut e = env.clone();
    e.ip = IpPair::V6 {
        src,
        dst: segments[sl as usize],
    };
    let mut frame = e.frame(43, L4::Other(inner.to_vec()));
    let plain = tlvs.is_empty();
    let h = SegmentRoutingHeader {
        segments_left: sl,
        last_entry: segments.len() as u8 - 1,
        flags: 0,
        tag: 0,
        segments: segments.to_vec(),
        tlvs,
    };
    if let IpHeader::V6(ip) = &mut frame.ip.header {
        ip.ext_headers = vec![h.to_ext_header(nh)];
    }
    frame.finalize(UdpChecksum::Keep);
    let (got, next, carried) = srh::decapsulate(&frame).unwrap();
    assert_eq!((got, next, carried.as_slice()), (h, nh, inner));
    if segments.len() == 1 && sl == 0 && plain {
        let path = [segments[0]];
        assert_eq!(srh::encapsulate(env, &path, nh, inner).unwrap(), frame);
    }
    frame.to_bytes()
}

/// The IP packet of a frame (its padding and Ethernet header removed).
fn ip_packet(frame: &[u8]) -> Vec<u8> {
    Frame::parse(frame).unwrap().ip.to_bytes()
}

/// A random frame for the decapsulator: tunnel frames for the PE (most),
/// with every inner and outer ECN, and frames that are not.
fn random_job(rng: &mut StdRng, cfg: &Config) -> Job {
    let v6 = rng.gen_bool(0.5);
    let (vlan, inner_ecn, outer_ecn) = (rng.gen_bool(0.2), random_ecn(rng), random_ecn(rng));
    let inner = random_roce(rng, v6, vlan, inner_ecn);
    let env = outer_env(rng, cfg, outer_ecn);
    let frame = match rng.gen_range(0..20) {
        0..=6 => vxlan_frame(rng, &env, &inner),
        7..=9 => {
            let nh = if v6 { 41 } else { 4 };
            srv6_frame(&env, &[cfg.pe], 0, nh, vec![], &ip_packet(&inner))
        }
        10 | 11 => {
            let nh = if v6 { 41 } else { 4 };
            let first = Ipv6Addr::from(rng.gen::<u128>());
            srv6_frame(&env, &[cfg.pe, first], 0, nh, vec![], &ip_packet(&inner))
        }
        12 => {
            // One SID and an 8-byte TLV (Pad1s): Hdr Ext Len 3.
            let nh = if v6 { 41 } else { 4 };
            srv6_frame(&env, &[cfg.pe], 0, nh, vec![0; 8], &ip_packet(&inner))
        }
        13 => {
            // Non-IP (ARP) or short inner frames.
            let mut arp = inner[..14].to_vec();
            arp[12..14].copy_from_slice(&[0x08, 0x06]);
            arp.extend((0..rng.gen_range(28..100)).map(|_| rng.gen::<u8>()));
            let short = inner[..rng.gen_range(14..30)].to_vec();
            let payload = if rng.gen_bool(0.5) { arp } else { short };
            vxlan_frame(rng, &env, &payload)
        }
        14 => inner,
        15 => {
            // Not for this PE: another destination, another port.
            let mut f = vxlan_frame(rng, &env, &inner);
            if rng.gen_bool(0.5) {
                f[53] ^= 1;
            } else {
                f[57] ^= 1;
            }
            f
        }
        16 => {
            // On its way to a later segment (Segments Left 1).
            let nh = if v6 { 41 } else { 4 };
            let last = Ipv6Addr::from(rng.gen::<u128>());
            srv6_frame(&env, &[last, cfg.pe], 1, nh, vec![], &ip_packet(&inner))
        }
        17 => {
            // Three SIDs (Hdr Ext Len 6), or an Ethernet payload (143).
            let nh = if v6 { 41 } else { 4 };
            if rng.gen_bool(0.5) {
                let s = [cfg.pe, rng.gen::<u128>().into(), rng.gen::<u128>().into()];
                srv6_frame(&env, &s, 0, nh, vec![], &ip_packet(&inner))
            } else {
                srv6_frame(&env, &[cfg.pe], 0, 143, vec![], &inner)
            }
        }
        18 => {
            // A tagged outer header.
            let tagged = env.clone().with_vlan(9);
            vxlan_frame(rng, &tagged, &inner)
        }
        _ => {
            // A runt: the outer headers and at most a few bytes more.
            let mut f = vxlan_frame(rng, &env, &inner);
            if rng.gen_bool(0.5) {
                f = srv6_frame(&env, &[cfg.pe], 0, 4, vec![], &ip_packet(&inner));
            }
            f.truncate(rng.gen_range(64..=80));
            f
        }
    };
    Job {
        frame,
        user: rng.gen_bool(0.1),
    }
}

/// PE-02, PE-06: random tunnel and other frames through the decapsulator
/// with random idle clocks and backpressure, under both tables, byte for
/// byte as the reference, every pulse counted.
#[test]
fn pe_02_pe_06_tunnel_decap_random_frames_equal_the_reference() {
    for pre_ecn in [false, true] {
        let cfg = Config::new(pre_ecn);
        let mut rng = StdRng::seed_from_u64(1301 + pre_ecn as u64);
        let jobs: Vec<Job> = (0..600).map(|_| random_job(&mut rng, &cfg)).collect();
        let c = expected_counts(&jobs, &cfg);
        println!("pre_ecn {pre_ecn}: {c:?}");
        assert!(c.decap_vxlan > 150 && c.decap_srv6 > 100 && c.passed > 100);
        assert!(c.ecn_dropped > 5 && c.alarm > 30 && c.runt_dropped > 5);
        assert_eq!(c.light > 20, pre_ecn);
        for (idle, backpressure, seed) in
            [(0.3, 0.3, 1), (0.0, 0.0, 2), (0.1, 0.7, 3), (0.7, 0.1, 4)]
        {
            let r = run(&jobs, &cfg, idle, backpressure, seed);
            assert_matches_reference(&r, &jobs, &cfg);
        }
    }
}

/// A tunnel frame for every inner x outer ECN combination: VXLAN and SRv6
/// (one SID), IPv4 and IPv6 inner. Returns (job, tunnel, inner, outer).
fn every_cell(cfg: &Config, seed: u64) -> Vec<(Job, bool, Ecn, Ecn, bool)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cells = Vec::new();
    for srv6 in [false, true] {
        for v6 in [false, true] {
            for inner_ecn in ALL_ECN {
                for outer_ecn in ALL_ECN {
                    let inner = RoceFrameBuilder::ipv4(
                        Ipv4Addr::new(10, 2, 0, 1),
                        Ipv4Addr::new(10, 1, 0, rng.gen()),
                    );
                    let inner = if v6 {
                        RoceFrameBuilder::ipv6(
                            "fd00:ace::1".parse().unwrap(),
                            "fd00:dc::1".parse().unwrap(),
                        )
                    } else {
                        inner
                    }
                    .ecn(inner_ecn)
                    .dscp(26)
                    .opcode(opcode::RC_SEND_ONLY)
                    .payload_len(rng.gen_range(0..300))
                    .build();
                    let env = outer_env(&mut rng, cfg, outer_ecn);
                    let frame = if srv6 {
                        let nh = if v6 { 41 } else { 4 };
                        srv6_frame(&env, &[cfg.pe], 0, nh, vec![], &ip_packet(&inner))
                    } else {
                        vxlan_frame(&mut rng, &env, &inner)
                    };
                    let job = Job { frame, user: false };
                    cells.push((job, srv6, inner_ecn, outer_ecn, v6));
                }
            }
        }
    }
    cells
}

/// The tables as the documents print them (RFC 6040 section 4.2; the
/// draft's "New IP in IP Decapsulation Behaviour"): rows inner Not-ECT,
/// ECT(0), ECT(1), CE; columns outer likewise; `-` drop, `!` alarm, `L`
/// light.
fn printed(table: DecapTable) -> [[&'static str; 4]; 4] {
    match table {
        DecapTable::Rfc6040 => [
            ["00", "00!", "00!", "-!"],
            ["10", "10", "01", "11"],
            ["01", "01!", "01", "11"],
            ["11", "11", "11!", "11"],
        ],
        DecapTable::PreEcn => [
            ["00", "00!", "00!", "-!"],
            ["10", "10", "10L", "11"],
            ["01", "01!", "01L", "11"],
            ["11", "11", "11!", "11"],
        ],
    }
}

/// The inner ECN of a decapsulated frame, read from its bytes.
fn inner_ecn_of(frame: &[u8]) -> Ecn {
    let f = Frame::parse(frame).unwrap();
    f.verify_checksums().unwrap();
    f.ip.header.ecn()
}

/// PE-02, PE-06: every cell of RFC 6040's decapsulation table and of the
/// draft's, through the RTL, VXLAN and SRv6, IPv4 and IPv6 inner: the
/// inner ECN leaving (IPv4 checksum verified), the drop, and one `alarm`
/// and `light` pulse per cell that has the flag.
#[test]
fn pe_02_pe_06_tunnel_decap_every_cell_of_both_tables() {
    let idx = |e: Ecn| ALL_ECN.iter().position(|&x| x == e).unwrap();
    for pre_ecn in [false, true] {
        let cfg = Config::new(pre_ecn);
        let cells = every_cell(&cfg, 1310);
        let jobs: Vec<Job> = cells.iter().map(|c| c.0.clone()).collect();
        let r = run(&jobs, &cfg, 0.2, 0.2, 1311);
        assert_matches_reference(&r, &jobs, &cfg);
        let table = printed(cfg.table());
        let mut out = r.frames.iter();
        let (mut alarms, mut lights) = (0, 0);
        for (_, srv6, inner, outer, v6) in &cells {
            let cell = table[idx(*inner)][idx(*outer)];
            alarms += cell.contains('!') as u64;
            lights += cell.contains('L') as u64;
            if cell.starts_with('-') {
                continue;
            }
            let (frame, _) = out.next().unwrap();
            let bits = u8::from_str_radix(&cell[..2], 2).unwrap();
            assert_eq!(
                inner_ecn_of(frame).bits(),
                bits,
                "{:?} srv6 {srv6} v6 {v6}: inner {inner:?} outer {outer:?}",
                cfg.table()
            );
        }
        assert!(out.next().is_none());
        assert_eq!(r.counts.alarm, alarms);
        assert_eq!(r.counts.light, lights);
        assert_eq!(r.counts.ecn_dropped, 4);
        assert_eq!(alarms, 4 * 5);
        assert_eq!(lights, if pre_ecn { 4 * 2 } else { 0 });
    }
}

/// PE-02: scapy reads the decapsulated frames: the inner Ethernet header
/// (for SRv6 the configured MACs and the EtherType of the SRH's next
/// header), the inner IPv4 header checksum after an ECN rewrite, the
/// RoCEv2 ICRC (which masks ECN), and the ECN the table gives.
#[test]
fn pe_02_tunnel_decap_frames_decode_in_scapy() {
    let cfg = Config::new(false);
    let cells = every_cell(&cfg, 1320);
    let jobs: Vec<Job> = cells.iter().map(|c| c.0.clone()).collect();
    let r = run(&jobs, &cfg, 0.1, 0.1, 1321);
    assert_matches_reference(&r, &jobs, &cfg);
    let kept: Vec<_> = cells
        .iter()
        .filter(|c| decapsulate(c.2, c.3, cfg.table()).inner.is_some())
        .collect();
    let frames: Vec<Vec<u8>> = r.frames.iter().map(|f| f.0.clone()).collect();
    assert_eq!(frames.len(), kept.len());
    let Some(dissected) = cngw_packet::scapy::dissect(&frames) else {
        return;
    };
    use cngw_packet::scapy::{assert_checksums_ok, get};
    let mac = |m: &MacAddr| {
        m.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    for (f, (_, srv6, inner, outer, v6)) in dissected.iter().zip(kept) {
        assert_checksums_ok(f);
        assert_eq!(get(f, "icrc_ok"), "True", "{f:?}");
        let ecn = decapsulate(*inner, *outer, cfg.table()).inner.unwrap();
        if *v6 {
            assert_eq!(get(f, "Ether.type"), "34525");
            let tc: u8 = get(f, "IPv6.tc").parse().unwrap();
            assert_eq!(tc & 3, ecn.bits());
            assert_eq!(tc >> 2, 26);
        } else {
            assert_eq!(get(f, "Ether.type"), "2048");
            assert_eq!(get(f, "ip_chksum_ok"), "True");
            let tos: u8 = get(f, "IP.tos").parse().unwrap();
            assert_eq!(tos & 3, ecn.bits());
            assert_eq!(tos >> 2, 26);
        }
        if *srv6 {
            assert_eq!(get(f, "Ether.dst"), mac(&cfg.dst_mac));
            assert_eq!(get(f, "Ether.src"), mac(&cfg.src_mac));
        }
        assert!(!f.contains_key("VXLAN.vni") && !f.contains_key("IPv6_2.src"));
    }
}

/// An IPv4 or IPv6 UDP frame of exactly `size` bytes.
fn udp_frame(size: usize, v6: bool) -> Vec<u8> {
    let env = if v6 {
        Envelope::ipv6(
            "fd00:ace::1".parse().unwrap(),
            "fd00:dc::1".parse().unwrap(),
        )
    } else {
        Envelope::ipv4(Ipv4Addr::new(10, 2, 0, 1), Ipv4Addr::new(10, 1, 0, 1))
    }
    .with_ecn(Ecn::Ect0);
    let overhead = 14 + if v6 { 40 } else { 20 } + 8;
    let udp = UdpDatagram::new(0xc000, 4791, vec![0x5a; size - overhead]);
    let mut f = env.frame(IPPROTO_UDP, L4::Udp(udp));
    f.finalize(UdpChecksum::Zero);
    f.trailer.clear();
    let bytes = f.to_bytes();
    assert_eq!(bytes.len(), size);
    bytes
}

/// HeaderSplice's flush beat: whether a frame of `size` bytes with header
/// `len` and drop `drop` ends with an output beat of no input beat.
fn flush(size: usize, len: usize, drop: usize) -> u64 {
    let q = (len as i64 - drop as i64).div_euclid(64);
    let out = (size + len - drop).div_ceil(64) as i64;
    (out - size.div_ceil(64) as i64 - q) as u64
}

/// PE-02: back-to-back VXLAN and SRv6 frames whose inner frames have 64,
/// 65, 128, 1024 and 4096 bytes (and all mixed), no idle clocks, no
/// backpressure: the input is never held, one beat per clock, and
/// clocks = input beats + 4 (+1 when the last frame ends with a flush
/// beat).
#[test]
fn pe_02_tunnel_decap_runs_at_line_rate() {
    let cfg = Config::new(true);
    let mut rng = StdRng::seed_from_u64(1330);
    let sizes_list: Vec<Vec<usize>> = [64, 65, 128, 1024, 4096]
        .iter()
        .map(|&n| vec![n])
        .chain([vec![64, 4096, 65, 1024, 128, 65, 64]])
        .collect();
    for (name, srv6) in [("VXLAN", false), ("SRv6", true)] {
        for sizes in &sizes_list {
            let jobs: Vec<Job> = (0..16)
                .map(|i| {
                    let v6 = i % 2 == 1;
                    let inner = udp_frame(sizes[i % sizes.len()], v6);
                    let env = outer_env(&mut rng, &cfg, Ecn::Ect1);
                    let frame = if srv6 {
                        let nh = if v6 { 41 } else { 4 };
                        srv6_frame(&env, &[cfg.pe], 0, nh, vec![], &ip_packet(&inner))
                    } else {
                        vxlan_frame(&mut rng, &env, &inner)
                    };
                    Job { frame, user: false }
                })
                .collect();
            let r = run(&jobs, &cfg, 0.0, 0.0, 1331);
            assert_matches_reference(&r, &jobs, &cfg);
            assert_eq!(r.counts.light, 16);
            let in_beats: u64 = jobs.iter().map(|j| j.frame.len().div_ceil(64) as u64).sum();
            let out_beats: u64 = r.frames.iter().map(|f| f.0.len().div_ceil(64) as u64).sum();
            assert_eq!(r.stalls, 0, "{name} {sizes:?}");
            assert_eq!(r.last_in - r.first_in + 1, in_beats);
            let last = jobs.last().unwrap().frame.len();
            let (len, drop) = if srv6 { (14, 78) } else { (0, 70) };
            let clocks = r.last_out - r.first_in + 1;
            assert_eq!(
                clocks,
                in_beats + LATENCY + flush(last, len, drop),
                "{name} {sizes:?}"
            );
            println!(
                "{name} inner {sizes:?} x16: {in_beats} input beats, {out_beats} output beats, \
                 {clocks} clocks"
            );
        }
    }
}

/// PE-02: a stream mixing decapsulated and passed frames, no idle clocks,
/// no backpressure: a passed frame right after a decapsulated one that
/// ends with HeaderSplice's flush beat waits exactly one clock for it;
/// after any other frame it follows at once. VXLAN and SRv6 (two SIDs), inner frames
/// of 64..=300 bytes (flush beat or not), passed frames of 64..=300 bytes:
/// clocks = input beats + 4 + those waits, and the input is held at most
/// once per wait.
#[test]
fn pe_02_tunnel_decap_mixed_stream_costs_one_clock_per_flush_before_a_passed_frame() {
    let cfg = Config::new(true);
    let mut rng = StdRng::seed_from_u64(1340);
    for (name, srv6) in [("VXLAN", false), ("SRv6", true)] {
        // SRv6 with two SIDs (94 bytes off, 14 on): one SID takes exactly
        // a beat off and never ends with a flush beat.
        let (len, drop) = if srv6 { (14, 94) } else { (0, 70) };
        let other: Ipv6Addr = "fd00:b::7".parse().unwrap();
        let mut jobs = Vec::new();
        let mut waits = 0;
        let mut prev_flush = false;
        for i in 0..60 {
            let decap = i % 3 != 2;
            let frame = if decap {
                let v6 = rng.gen_bool(0.5);
                let inner = udp_frame(rng.gen_range(64..=300), v6);
                let env = outer_env(&mut rng, &cfg, Ecn::Ect1);
                let frame = if srv6 {
                    let nh = if v6 { 41 } else { 4 };
                    srv6_frame(&env, &[cfg.pe, other], 0, nh, vec![], &ip_packet(&inner))
                } else {
                    vxlan_frame(&mut rng, &env, &inner)
                };
                prev_flush = flush(frame.len(), len, drop) == 1;
                frame
            } else {
                // Not a tunnel to this PE: passed unchanged.
                waits += prev_flush as u64;
                prev_flush = false;
                udp_frame(rng.gen_range(64..=300), rng.gen_bool(0.5))
            };
            jobs.push(Job { frame, user: false });
        }
        assert!(
            waits > 3,
            "{name}: the stream has passed frames after flush beats"
        );
        let r = run(&jobs, &cfg, 0.0, 0.0, 1341);
        assert_matches_reference(&r, &jobs, &cfg);
        let in_beats: u64 = jobs.iter().map(|j| j.frame.len().div_ceil(64) as u64).sum();
        // The last frame is a passed one: no flush at the end.
        assert_eq!(
            r.last_out - r.first_in + 1,
            in_beats + LATENCY + waits,
            "{name}"
        );
        // The wait reaches the input only for passed frames too long for
        // the block's registers to absorb it (measured: four beats and up).
        assert!(r.stalls <= waits, "{name}: {} input stalls", r.stalls);
        println!(
            "{name}: {} frames, {in_beats} input beats, {waits} waits, {} input stalls",
            jobs.len(),
            r.stalls
        );
    }
}

/// PE-02: runts (VXLAN frames of 64..=70 bytes, SRv6 of 64..=78: nothing
/// leaves, one `runt_dropped` each), inner frames cut before their IP
/// header ends (decapsulated without ECN processing), non-IP inner frames,
/// tagged inner frames, tuser carried, and frames that only look like
/// tunnels (IPv4 outer, a tagged outer header, other addresses, ports,
/// Segments Left 1, long SRHs, frames under 64 bytes) passing unchanged.
#[test]
fn pe_02_tunnel_decap_edge_cases() {
    let cfg = Config::new(false);
    let mut rng = StdRng::seed_from_u64(1340);
    let mut jobs = Vec::new();
    let push = |jobs: &mut Vec<Job>, frame: Vec<u8>, user: bool| jobs.push(Job { frame, user });
    for v6 in [false, true] {
        for vlan in [false, true] {
            let inner = random_roce(&mut rng, v6, vlan, Ecn::Ect0);
            let nh = if v6 { 41 } else { 4 };
            // CE outside: the inner ECN is rewritten (when there is one).
            let env = outer_env(&mut rng, &cfg, Ecn::Ce);
            let vx = vxlan_frame(&mut rng, &env, &inner);
            let sr = srv6_frame(&env, &[cfg.pe], 0, nh, vec![], &ip_packet(&inner));
            for n in [64, 65, 69, 70] {
                push(&mut jobs, vx[..n].to_vec(), true);
            }
            for n in [64, 70, 77, 78] {
                push(&mut jobs, sr[..n].to_vec(), false);
            }
            // One byte past the outer headers, and cuts inside the inner
            // IP header (its checksum bytes missing: no rewrite).
            for n in [71, 95, 96, 97, 100] {
                push(&mut jobs, vx[..n].to_vec(), n == 96);
            }
            for n in [79, 89, 90, 91, 100] {
                push(&mut jobs, sr[..n].to_vec(), n == 90);
            }
            push(&mut jobs, vx.clone(), true);
            push(&mut jobs, sr.clone(), true);
            // Lookalikes.
            push(&mut jobs, vx[..63].to_vec(), false);
            let tagged = env.clone().with_vlan(3);
            push(&mut jobs, vxlan_frame(&mut rng, &tagged, &inner), false);
            let v4_outer = Envelope::ipv4(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2));
            push(&mut jobs, vxlan_frame(&mut rng, &v4_outer, &inner), false);
            let mut other = vx.clone();
            other[40] ^= 0x80;
            push(&mut jobs, other, false);
            let mut port = vx.clone();
            port[56] = 0x17;
            push(&mut jobs, port, false);
            let later = Ipv6Addr::from(rng.gen::<u128>());
            let sl1 = srv6_frame(&env, &[later, cfg.pe], 1, nh, vec![], &ip_packet(&inner));
            push(&mut jobs, sl1, false);
            // One SID and 24 bytes of TLVs: Hdr Ext Len 5, over 40 bytes.
            let long = srv6_frame(&env, &[cfg.pe], 0, nh, vec![0; 24], &ip_packet(&inner));
            push(&mut jobs, long, false);
        }
        // Non-IP inner frames: decapsulated, no ECN processing.
        let env = outer_env(&mut rng, &cfg, Ecn::Ce);
        let mut arp = vec![0xffu8; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.extend((0..46).map(|_| rng.gen::<u8>()));
        push(&mut jobs, vxlan_frame(&mut rng, &env, &arp), false);
        // An IPv4 EtherType with a version-6 header and the reverse.
        let mut bad = random_roce(&mut rng, v6, false, Ecn::NotEct);
        bad[14] = if v6 { 0x45 } else { 0x60 };
        push(&mut jobs, vxlan_frame(&mut rng, &env, &bad), false);
    }
    let c = expected_counts(&jobs, &cfg);
    println!("{c:?}");
    assert_eq!(c.runt_dropped, 4 * 8);
    assert_eq!(c.ecn_dropped, 0);
    for (idle, bp, seed) in [(0.0, 0.0, 1341), (0.3, 0.3, 1342)] {
        let r = run(&jobs, &cfg, idle, bp, seed);
        assert_matches_reference(&r, &jobs, &cfg);
    }
}
