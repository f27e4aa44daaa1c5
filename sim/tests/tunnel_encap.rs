//! The ingress PE's tunnel encapsulation (`cngw_hdl::pe::TunnelEncap`) in
//! the Verilog that ships, against a software reference built from the
//! packet crate (`cngw_packet::vxlan::encapsulate`,
//! `cngw_packet::srh::encapsulate`) and `cngw_model::tunnel_ecn` (FCN-02,
//! PE-01): random IPv4 and IPv6 RoCEv2 frames (sizes 60..=4200, 802.1Q
//! tags, every ECN and DSCP, frames of the traffic generator) through
//! random tunnels (VXLAN, SRv6 with one or two SIDs, RFC 6040 normal and
//! compatibility mode, per-frame tunnel inputs that change between
//! commands), mixed with pass-through frames, trailers to trim, truncated
//! frames, non-IP frames and frames over the MTU, with random idle clocks
//! and backpressure; every output frame byte for byte, every pulse counted;
//! every cell of RFC 6040's encapsulation table; scapy's view of the
//! outer and inner headers; and the throughput, clock for clock.

use cngw_model::tunnel_ecn::{encapsulate, EncapMode};
use cngw_model::tunnel_encap::{encapsulate_frame, EncapConfig, EncapFate as Fate};
use cngw_packet::bth::opcode;
use cngw_packet::checksum::IPPROTO_UDP;
use cngw_packet::frame::L4;
use cngw_packet::traffic::{generate, TrafficConfig};
use cngw_packet::udp::UdpDatagram;
use cngw_packet::{Ecn, Envelope, MacAddr, RoceFrameBuilder, UdpChecksum};
use cngw_sim::{frame_to_beats, Beat, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

/// A frame's first output beat is on `m` three clocks after its first beat
/// (and command) are taken: the input register, then HeaderSplice's two.
const LATENCY: u64 = 3;

/// The tunnel inputs (`tun_*`), sampled with each command.
#[derive(Clone, Debug)]
struct Tunnel {
    srv6: bool,
    dst_mac: MacAddr,
    src_mac: MacAddr,
    src: Ipv6Addr,
    remote: Ipv6Addr,
    vni: u32,
    udp_base: u16,
    udp_mask: u16,
    hop_limit: u8,
    /// The SRv6 path in visiting order (one or two SIDs).
    sids: Vec<Ipv6Addr>,
    compat: bool,
    mtu: u16,
}

impl Tunnel {
    fn vxlan() -> Tunnel {
        Tunnel {
            srv6: false,
            dst_mac: [0x02, 0xaa, 0, 0, 0, 0x02],
            src_mac: [0x02, 0xaa, 0, 0, 0, 0x01],
            src: "2001:db8:1::1".parse().unwrap(),
            remote: "2001:db8:2::2".parse().unwrap(),
            vni: 0x12_3456,
            udp_base: 0xc000,
            udp_mask: 0x3fff,
            hop_limit: 64,
            sids: vec!["fc00:2::100".parse().unwrap()],
            compat: false,
            mtu: 9000,
        }
    }

    fn srv6(sids: usize) -> Tunnel {
        let mut t = Tunnel::vxlan();
        t.srv6 = true;
        t.sids = ["fc00:2::100", "fc00:3::200"][..sids]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        t
    }

    fn random(rng: &mut StdRng) -> Tunnel {
        let mut t = match rng.gen_range(0..3) {
            0 => Tunnel::vxlan(),
            n => Tunnel::srv6(n),
        };
        t.dst_mac = rng.gen();
        t.src_mac = rng.gen();
        t.src = Ipv6Addr::from(rng.gen::<u128>());
        t.remote = Ipv6Addr::from(rng.gen::<u128>());
        for s in t.sids.iter_mut() {
            *s = Ipv6Addr::from(rng.gen::<u128>());
        }
        t.vni = rng.gen_range(0..1 << 24);
        t.udp_base = rng.gen();
        t.udp_mask = rng.gen();
        t.hop_limit = rng.gen();
        t.compat = rng.gen_bool(0.3);
        t.mtu = if rng.gen_bool(0.2) { 1500 } else { 9000 };
        t
    }

    /// What the unit's inputs see when the command is offered.
    fn apply(&self, unit: &mut Unit) {
        unit.set_u64("tun_srv6", self.srv6 as u64).unwrap();
        unit.set_bytes("tun_dst_mac", &self.dst_mac).unwrap();
        unit.set_bytes("tun_src_mac", &self.src_mac).unwrap();
        unit.set_bytes("tun_src_ipv6", &self.src.octets()).unwrap();
        unit.set_bytes("tun_remote_ipv6", &self.remote.octets())
            .unwrap();
        unit.set_u64("tun_vni", self.vni as u64).unwrap();
        unit.set_u64("tun_udp_base", self.udp_base as u64).unwrap();
        unit.set_u64("tun_udp_mask", self.udp_mask as u64).unwrap();
        unit.set_u64("tun_hop_limit", self.hop_limit as u64)
            .unwrap();
        unit.set_bytes("tun_sid0", &self.sids[0].octets()).unwrap();
        let sid1 = self.sids.get(1).copied().unwrap_or(Ipv6Addr::UNSPECIFIED);
        unit.set_bytes("tun_sid1", &sid1.octets()).unwrap();
        unit.set_u64("tun_two_sids", (self.sids.len() == 2) as u64)
            .unwrap();
        unit.set_u64("tun_compat", self.compat as u64).unwrap();
        unit.set_u64("tun_mtu", self.mtu as u64).unwrap();
    }

    fn mode(&self) -> EncapMode {
        self.config().mode()
    }

    fn config(&self) -> EncapConfig {
        EncapConfig {
            srv6: self.srv6,
            dst_mac: self.dst_mac,
            src_mac: self.src_mac,
            src: self.src,
            remote: self.remote,
            vni: self.vni,
            udp_base: self.udp_base,
            udp_mask: self.udp_mask,
            hop_limit: self.hop_limit,
            sids: self.sids.clone(),
            compat: self.compat,
            mtu: self.mtu,
        }
    }
}

/// One frame and its command.
#[derive(Clone, Debug)]
struct Job {
    frame: Vec<u8>,
    /// `tuser` of the frame's last beat.
    user: bool,
    encap: bool,
    label: u32,
    tunnel: Tunnel,
}

impl Job {
    fn new(frame: Vec<u8>, tunnel: &Tunnel, label: u32) -> Job {
        Job {
            frame,
            user: false,
            encap: true,
            label,
            tunnel: tunnel.clone(),
        }
    }
}

/// Pulse counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    encapsulated: u64,
    passed: u64,
    dropped_not_ip: u64,
    dropped_mtu: u64,
    trimmed: u64,
    truncated: u64,
}

const PULSES: [&str; 6] = [
    "encapsulated",
    "passed",
    "dropped_not_ip",
    "dropped_mtu",
    "trimmed",
    "truncated",
];

impl Counts {
    fn add(&mut self, name: &str) {
        match name {
            "encapsulated" => self.encapsulated += 1,
            "passed" => self.passed += 1,
            "dropped_not_ip" => self.dropped_not_ip += 1,
            "dropped_mtu" => self.dropped_mtu += 1,
            "trimmed" => self.trimmed += 1,
            _ => self.truncated += 1,
        }
    }
}

/// What scapy should see of an inner IP frame (untagged or one 802.1Q
/// tag): IPv6, DSCP, ECN.
struct Inner {
    v6: bool,
    dscp: u8,
    ecn: Ecn,
}

fn inner(frame: &[u8]) -> Option<Inner> {
    let l2 = if frame[12..14] == [0x81, 0x00] {
        18
    } else {
        14
    };
    let ip = &frame[l2..];
    match ip[0] >> 4 {
        4 => Some(Inner {
            v6: false,
            dscp: ip[1] >> 2,
            ecn: Ecn::from_bits(ip[1]),
        }),
        6 => {
            let tc = (ip[0] << 4) | (ip[1] >> 4);
            Some(Inner {
                v6: true,
                dscp: tc >> 2,
                ecn: Ecn::from_bits(tc),
            })
        }
        _ => None,
    }
}

/// The reference (`cngw_model::tunnel_encap`, built from the packet
/// crate): the fate of a job, and whether it is trimmed or truncated.
fn expected(job: &Job) -> (Fate, bool, bool) {
    if !job.encap {
        let bytes = job.frame.clone();
        return (
            Fate::Sent {
                bytes,
                user: job.user,
            },
            false,
            false,
        );
    }
    let e = encapsulate_frame(&job.frame, job.user, job.label, &job.tunnel.config());
    (e.fate, e.trimmed, e.truncated)
}

fn expected_counts(jobs: &[Job]) -> Counts {
    let mut c = Counts::default();
    for j in jobs {
        let (fate, trimmed, truncated) = expected(j);
        match fate {
            Fate::Sent { .. } if j.encap => c.encapsulated += 1,
            Fate::Sent { .. } => c.passed += 1,
            Fate::DroppedNotIp => c.dropped_not_ip += 1,
            Fate::DroppedMtu => c.dropped_mtu += 1,
        }
        c.trimmed += trimmed as u64;
        c.truncated += truncated as u64;
    }
    c
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a run gives: the output frames with their last `tuser`, the pulse
/// counts, the clocks of the first and last input handshakes and of the
/// last output handshake, and the number of output beats.
struct Run {
    frames: Vec<(Vec<u8>, bool)>,
    counts: Counts,
    first_in: u64,
    last_in: u64,
    last_out: u64,
    out_beats: u64,
}

/// Random values on every command input: what the block sees while no
/// command is offered (it must not look).
fn noise_command(unit: &mut Unit, rng: &mut StdRng) {
    let t = Tunnel::random(rng);
    t.apply(unit);
    unit.set_u64("cmd_encap", rng.gen_range(0..2)).unwrap();
    unit.set_u64("cmd_label", rng.gen_range(0..1 << 20))
        .unwrap();
}

/// Drives `jobs` through a fresh unit: a beat or a command is offered on
/// a clock unless an idle draw (`idle`) says otherwise, then held until
/// taken; `m.tready` is low with probability `backpressure`. Checks the
/// pairing of commands and first beats, the output's packing and
/// stability, that `s.tready` and `cmd_ready` do not follow `m.tready`,
/// and that `empty_dropped` never rises.
fn run(jobs: &[Job], idle: f64, backpressure: f64, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("tunnel_encap").unwrap();
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let beats: Vec<Vec<Beat>> = jobs
        .iter()
        .map(|j| {
            let mut b = frame_to_beats(&j.frame, j.user);
            for beat in b.iter_mut() {
                // Noise outside tkeep, tuser on beats before the last.
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
    let expected_frames = jobs
        .iter()
        .filter(|j| matches!(expected(j).0, Fate::Sent { .. }))
        .count();
    let (mut f, mut b, mut c) = (0usize, 0usize, 0usize);
    let (mut beat_offered, mut cmd_offered) = (false, false);
    let mut frames = Vec::new();
    let mut current = Vec::new();
    let mut counts = Counts::default();
    let mut held: Option<(Vec<u32>, u64, u64, u64)> = None;
    let (mut first_in, mut last_in, mut last_out, mut out_beats) = (None, 0, 0, 0);
    let mut clocks = 0u64;
    while frames.len() < expected_frames || f < jobs.len() {
        clocks += 1;
        assert!(
            clocks < 200 * (total_beats as u64 + 10),
            "stalled: {} frames out, frame {f} beat {b} in, command {c}",
            frames.len()
        );
        if f < jobs.len() && !beat_offered {
            beat_offered = !rng.gen_bool(idle);
        }
        if c < jobs.len() && !cmd_offered {
            cmd_offered = !rng.gen_bool(idle);
        }
        unit.drive_stream("s", beat_offered.then(|| &beats[f][b]))
            .unwrap();
        if cmd_offered {
            let job = &jobs[c];
            job.tunnel.apply(&mut unit);
            unit.set_u64("cmd_encap", job.encap as u64).unwrap();
            unit.set_u64("cmd_label", job.label as u64).unwrap();
        } else {
            noise_command(&mut unit, &mut rng);
        }
        unit.set_u64("cmd_valid", cmd_offered as u64).unwrap();
        unit.set_u64("m_tready", 0).unwrap();
        let (s_ready0, cmd_ready0) = (
            unit.get_u64("s_tready").unwrap(),
            unit.get_u64("cmd_ready").unwrap(),
        );
        let ready = !rng.gen_bool(backpressure);
        unit.set_u64("m_tready", ready as u64).unwrap();
        let s_ready = unit.get_u64("s_tready").unwrap();
        let cmd_ready = unit.get_u64("cmd_ready").unwrap();
        assert_eq!((s_ready, cmd_ready), (s_ready0, cmd_ready0));
        let beat_taken = beat_offered && s_ready == 1;
        let cmd_taken = cmd_offered && cmd_ready == 1;
        assert_eq!(
            cmd_taken,
            beat_taken && b == 0,
            "frame {f} beat {b}, command {c}"
        );
        if cmd_taken {
            assert_eq!(c, f);
            c += 1;
            cmd_offered = false;
        }
        if beat_taken {
            first_in.get_or_insert(unit.cycle());
            last_in = unit.cycle();
            b += 1;
            if b == beats[f].len() {
                b = 0;
                f += 1;
            }
            beat_offered = false;
        }
        for name in PULSES {
            if unit.get_u64(name).unwrap() == 1 {
                counts.add(name);
            }
        }
        assert_eq!(unit.get_u64("empty_dropped").unwrap(), 0);
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
                out_beats += 1;
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
    // Nothing more comes out; the last pulses arrive.
    unit.set_u64("m_tready", 1).unwrap();
    unit.set_u64("s_tvalid", 0).unwrap();
    unit.set_u64("cmd_valid", 0).unwrap();
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
        out_beats,
    }
}

fn assert_matches_reference(r: &Run, jobs: &[Job]) {
    let want: Vec<(Vec<u8>, bool)> = jobs
        .iter()
        .filter_map(|j| match expected(j).0 {
            Fate::Sent { bytes, user } => Some((bytes, user)),
            _ => None,
        })
        .collect();
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
    assert_eq!(r.counts, expected_counts(jobs), "pulse counts");
}

fn random_ecn(rng: &mut StdRng) -> Ecn {
    [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][rng.gen_range(0..4)]
}

/// A random RoCEv2 frame: IPv4 or IPv6, an 802.1Q tag or none, any ECN
/// and DSCP, payloads of 0..=4096 bytes (frames of 60..=4200 bytes; the
/// shortest are padded to 60).
fn random_roce(rng: &mut StdRng) -> Vec<u8> {
    let v6 = rng.gen_bool(0.5);
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
    let ops = [
        opcode::RC_SEND_ONLY,
        opcode::RC_RDMA_WRITE_ONLY,
        opcode::RC_RDMA_WRITE_MIDDLE,
        opcode::RC_ACKNOWLEDGE,
    ];
    let len = match rng.gen_range(0..5) {
        0 => rng.gen_range(0..16),
        1 => 4096,
        2 => rng.gen_range(0..=4096),
        _ => rng.gen_range(0..=1100),
    };
    b = b
        .ecn(random_ecn(rng))
        .dscp(rng.gen_range(0..64))
        .ttl(rng.gen())
        .opcode(ops[rng.gen_range(0..ops.len())])
        .dest_qp(rng.gen())
        .psn(rng.gen())
        .udp_src_port(rng.gen())
        .payload((0..len).map(|_| rng.gen()).collect());
    if rng.gen_bool(0.2) {
        b = b.vlan(rng.gen_range(1..4095));
    }
    b.build()
}

/// Frames of the traffic generator (CM, WRITE, SEND, ACK; IPv4 and IPv6,
/// with and without a tag), DC side.
fn generated_frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (seed, ipv6, vlan) in [(1, false, None), (2, true, None), (3, true, Some(7))] {
        let t = generate(&TrafficConfig {
            seed,
            flows: 2,
            messages_per_flow: 2,
            message_len: 5000,
            mtu: 4096,
            ipv6,
            vlan,
            ..TrafficConfig::default()
        });
        out.extend(t.dc_side.into_iter().map(|(_, f)| f));
    }
    out
}

/// A frame the block cannot size: not IPv4/IPv6, a version that does not
/// match the EtherType, IPv4 total length below 20, QinQ, or a runt.
fn non_ip_frame(rng: &mut StdRng) -> Vec<u8> {
    let mut f: Vec<u8> = (0..rng.gen_range(60..200)).map(|_| rng.gen()).collect();
    match rng.gen_range(0..6) {
        0 => f[12..14].copy_from_slice(&[0x08, 0x06]),
        1 => {
            f[12..14].copy_from_slice(&[0x08, 0x00]);
            f[14] = 0x65;
        }
        2 => {
            f[12..14].copy_from_slice(&[0x86, 0xdd]);
            f[14] = 0x45;
        }
        3 => {
            f[12..14].copy_from_slice(&[0x08, 0x00]);
            f[14] = 0x45;
            f[16..18].copy_from_slice(&[0, rng.gen_range(0..20)]);
        }
        4 => {
            f[12..18].copy_from_slice(&[0x88, 0xa8, 0, 5, 0x81, 0x00]);
            f[22..24].copy_from_slice(&[0x08, 0x00]);
            f[24] = 0x45;
        }
        _ => {
            // An IPv4 frame cut before its total length.
            let mut r = random_roce(rng);
            r[12..14].copy_from_slice(&[0x08, 0x00]);
            r.truncate(rng.gen_range(1..18));
            return r;
        }
    }
    f
}

/// Random jobs: RoCEv2 frames through random tunnels, with pass-through
/// frames, trailers, truncated frames and non-IP frames among them.
fn random_jobs(rng: &mut StdRng, count: usize) -> Vec<Job> {
    let generated = generated_frames();
    (0..count)
        .map(|i| {
            let tunnel = Tunnel::random(rng);
            let mut frame = if i % 7 == 3 {
                generated[rng.gen_range(0..generated.len())].clone()
            } else {
                random_roce(rng)
            };
            let mut encap = true;
            match rng.gen_range(0..20) {
                0 | 1 => encap = false,
                2 | 3 => {
                    // A trailer: within the last beat, or beats of it.
                    let n = if rng.gen_bool(0.5) {
                        rng.gen_range(1..8)
                    } else {
                        rng.gen_range(1..200)
                    };
                    frame.extend((0..n).map(|_| rng.gen::<u8>()));
                }
                4 => {
                    let keep = frame.len();
                    frame.truncate(rng.gen_range(24..keep));
                }
                5 => frame = non_ip_frame(rng),
                _ => {}
            }
            Job {
                frame,
                user: rng.gen_bool(0.1),
                encap,
                label: rng.gen_range(0..1 << 20),
                tunnel,
            }
        })
        .collect()
}

/// FCN-02, PE-01: random RoCEv2 frames through random tunnels with random
/// idle clocks and backpressure, byte for byte as the packet crate builds
/// them, every pulse counted.
#[test]
fn fcn_02_pe_01_tunnel_encap_random_frames_equal_the_packet_crate() {
    let mut rng = StdRng::seed_from_u64(1201);
    let jobs = random_jobs(&mut rng, 600);
    let c = expected_counts(&jobs);
    println!("{c:?}");
    assert!(c.encapsulated > 300 && c.passed > 20 && c.trimmed > 20 && c.truncated > 10);
    assert!(c.dropped_not_ip > 10 && c.dropped_mtu > 10);
    for (idle, backpressure, seed) in [(0.3, 0.3, 1), (0.0, 0.0, 2), (0.1, 0.7, 3), (0.7, 0.1, 4)] {
        let r = run(&jobs, idle, backpressure, seed);
        assert_matches_reference(&r, &jobs);
    }
}

/// An IPv4 or IPv6 RoCEv2 frame with the given ECN.
fn roce_with_ecn(v6: bool, ecn: Ecn, dscp: u8, payload: usize) -> Vec<u8> {
    let b = if v6 {
        RoceFrameBuilder::ipv6(
            "fd00:dc::1".parse().unwrap(),
            "fd00:ace::1".parse().unwrap(),
        )
    } else {
        RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 2, 0, 1))
    };
    b.ecn(ecn)
        .dscp(dscp)
        .opcode(opcode::RC_RDMA_WRITE_ONLY)
        .payload_len(payload)
        .build()
}

/// The outer IPv6 traffic class of an encapsulated frame.
fn outer_tclass(frame: &[u8]) -> u8 {
    (frame[14] << 4) | (frame[15] >> 4)
}

/// PE-01: every cell of RFC 6040's encapsulation table (section 4.1, the
/// draft's "New IP in IP Encapsulation Behaviours"), through the RTL: each
/// inner ECN in normal and compatibility mode, VXLAN and SRv6, IPv4 and
/// IPv6 inner; the outer DSCP is the inner one and the inner header leaves
/// untouched.
#[test]
fn pe_01_tunnel_encap_every_cell_of_the_encapsulation_table() {
    let mut jobs = Vec::new();
    let mut cells = Vec::new();
    for tunnel in [Tunnel::vxlan(), Tunnel::srv6(1), Tunnel::srv6(2)] {
        for compat in [false, true] {
            for v6 in [false, true] {
                for ecn in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
                    let mut t = tunnel.clone();
                    t.compat = compat;
                    let dscp = 26 + jobs.len() as u8 % 8;
                    jobs.push(Job::new(roce_with_ecn(v6, ecn, dscp, 100), &t, 0x5_0000));
                    let want = encapsulate(ecn, t.mode());
                    // The table as RFC 6040 prints it.
                    let printed = if compat { Ecn::NotEct } else { ecn };
                    assert_eq!(want, printed);
                    cells.push((dscp, want, t.srv6, v6, jobs.last().unwrap().frame.clone()));
                }
            }
        }
    }
    let r = run(&jobs, 0.2, 0.2, 11);
    assert_matches_reference(&r, &jobs);
    for ((frame, _), (dscp, ecn, srv6, v6, inner)) in r.frames.iter().zip(&cells) {
        let tc = outer_tclass(frame);
        assert_eq!(tc & 3, ecn.bits(), "{srv6} {v6}");
        assert_eq!(tc >> 2, *dscp);
        // The inner IP packet leaves as it came.
        if *srv6 {
            let hlen = frame.len() - (inner.len() - 14);
            assert_eq!(&frame[hlen..], &inner[14..]);
        } else {
            assert_eq!(&frame[70..], &inner[..]);
        }
    }
}

/// FCN-02: scapy decodes the emitted frames as the packet crate meant
/// them: outer IPv6 (flow label, traffic class, payload length, next
/// header, hop limit, addresses), UDP to 4789 with checksum 0 and the
/// right length, VXLAN with the I flag and the VNI, or the SRH (next
/// header, length, Segments Left, Last Entry, the segment list reversed),
/// and inside the inner IPv4 header checksum and the RoCEv2 ICRC.
#[test]
fn fcn_02_tunnel_encap_frames_decode_in_scapy() {
    let mut rng = StdRng::seed_from_u64(1203);
    let mut jobs = Vec::new();
    for (i, tunnel) in [Tunnel::vxlan(), Tunnel::srv6(1), Tunnel::srv6(2)]
        .iter()
        .enumerate()
    {
        for k in 0..8 {
            let v6 = k % 2 == 1;
            let mut frame = roce_with_ecn(v6, random_ecn(&mut rng), 26, rng.gen_range(0..2000));
            if k == 4 {
                // Padding to trim: a 60-byte frame.
                frame =
                    RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 2, 0, 1))
                        .dscp(26)
                        .build();
                assert_eq!(frame.len(), 60);
            }
            let label = (i as u32) << 16 | k;
            jobs.push(Job::new(frame, tunnel, label));
        }
    }
    let r = run(&jobs, 0.1, 0.1, 13);
    assert_matches_reference(&r, &jobs);
    let frames: Vec<Vec<u8>> = r.frames.iter().map(|f| f.0.clone()).collect();
    let Some(dissected) = cngw_packet::scapy::dissect(&frames) else {
        return;
    };
    use cngw_packet::scapy::{assert_checksums_ok, get};
    for ((job, f), frame) in jobs.iter().zip(&dissected).zip(&frames) {
        let t = &job.tunnel;
        let inn = inner(&job.frame).unwrap();
        assert_checksums_ok(f);
        assert_eq!(get(f, "Ether.type"), "34525");
        assert_eq!(get(f, "IPv6.fl"), job.label.to_string());
        let tc = (inn.dscp << 2) | inn.ecn.bits();
        assert_eq!(get(f, "IPv6.tc"), tc.to_string());
        assert_eq!(get(f, "IPv6.hlim"), t.hop_limit.to_string());
        assert_eq!(get(f, "IPv6.src"), t.src.to_string());
        assert_eq!(get(f, "IPv6.plen"), (frame.len() - 54).to_string());
        if t.srv6 {
            assert_eq!(get(f, "IPv6.nh"), "43");
            assert_eq!(get(f, "IPv6.dst"), t.sids[0].to_string());
            let p = "IPv6ExtHdrSegmentRouting";
            let n = t.sids.len();
            assert_eq!(get(f, &format!("{p}.nh")), if inn.v6 { "41" } else { "4" });
            assert_eq!(get(f, &format!("{p}.len")), (2 * n).to_string());
            assert_eq!(get(f, &format!("{p}.type")), "4");
            assert_eq!(get(f, &format!("{p}.segleft")), (n - 1).to_string());
            assert_eq!(get(f, &format!("{p}.lastentry")), (n - 1).to_string());
            let list: Vec<String> = t.sids.iter().rev().map(|s| s.to_string()).collect();
            assert_eq!(get(f, &format!("{p}.addresses")), list.join(","));
            let inner_src = if inn.v6 { "IPv6_2.src" } else { "IP.src" };
            assert!(f.contains_key(inner_src), "{f:?}");
        } else {
            assert_eq!(get(f, "IPv6.nh"), "17");
            assert_eq!(get(f, "IPv6.dst"), t.remote.to_string());
            let sport = (t.udp_base & !t.udp_mask) | (job.label as u16 & t.udp_mask);
            assert_eq!(get(f, "UDP.sport"), sport.to_string());
            assert_eq!(get(f, "UDP.dport"), "4789");
            assert_eq!(get(f, "UDP.len"), (frame.len() - 54).to_string());
            assert_eq!(get(f, "UDP.chksum"), "0");
            assert_eq!(get(f, "VXLAN.flags"), "Instance");
            assert_eq!(get(f, "VXLAN.vni"), t.vni.to_string());
            assert_eq!(
                get(f, "Ether_2.type"),
                if inn.v6 { "34525" } else { "2048" }
            );
        }
        if !inn.v6 {
            assert_eq!(get(f, "ip_chksum_ok"), "True");
        }
        assert_eq!(get(f, "icrc_ok"), "True", "{f:?}");
    }
}

/// An IPv4 (or IPv6) UDP frame of exactly `size` bytes (no padding): the
/// block's input at the throughput sizes.
fn udp_frame(size: usize, v6: bool, vlan: bool) -> Vec<u8> {
    let mut env = if v6 {
        Envelope::ipv6(
            "fd00:dc::1".parse().unwrap(),
            "fd00:ace::1".parse().unwrap(),
        )
    } else {
        Envelope::ipv4(Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 2, 0, 1))
    };
    env = env.with_ecn(Ecn::Ect0);
    if vlan {
        env = env.with_vlan(5);
    }
    let overhead = 14 + 4 * vlan as usize + if v6 { 40 } else { 20 } + 8;
    let udp = UdpDatagram::new(0xc000, 4791, vec![0xa5; size - overhead]);
    let mut f = env.frame(IPPROTO_UDP, L4::Udp(udp));
    f.finalize(UdpChecksum::Zero);
    // No Ethernet padding: the frame ends with its IP packet.
    f.trailer.clear();
    let bytes = f.to_bytes();
    assert_eq!(bytes.len(), size);
    bytes
}

fn throughput_sizes() -> Vec<Vec<usize>> {
    let mut s: Vec<Vec<usize>> = [64, 65, 128, 1024, 4096].iter().map(|&n| vec![n]).collect();
    s.push(vec![64, 4096, 65, 1024, 128, 65, 64]);
    s
}

/// FCN-02: back-to-back frames of 64, 65, 128, 1024 and 4096 bytes (and
/// all of them mixed), no idle clocks, no backpressure: the output carries
/// one beat per clock from the first to the last, clocks = output beats +
/// 3, for VXLAN (70 bytes added), SRv6 with one SID (78 for 14) and two
/// (94 for 14), and SRv6 with a tagged inner frame (78 for 18).
#[test]
fn fcn_02_tunnel_encap_runs_at_line_rate() {
    let cases = [
        ("VXLAN", Tunnel::vxlan(), false),
        ("SRv6 1 SID", Tunnel::srv6(1), false),
        ("SRv6 2 SIDs", Tunnel::srv6(2), false),
        ("SRv6 1 SID, tagged inner", Tunnel::srv6(1), true),
    ];
    for (name, tunnel, vlan) in cases {
        for sizes in throughput_sizes() {
            let jobs: Vec<Job> = (0..16)
                .map(|i| {
                    // IPv4 and IPv6 alternate (IPv4 only behind a tag: a
                    // tagged IPv6 UDP frame has at least 66 bytes).
                    let v6 = i % 2 == 1 && !vlan;
                    let frame = udp_frame(sizes[i % sizes.len()], v6, vlan);
                    Job::new(frame, &tunnel, i as u32)
                })
                .collect();
            let r = run(&jobs, 0.0, 0.0, 21);
            assert_matches_reference(&r, &jobs);
            let clocks = r.last_out - r.first_in + 1;
            let in_beats: u64 = jobs.iter().map(|j| j.frame.len().div_ceil(64) as u64).sum();
            assert_eq!(clocks, r.out_beats + LATENCY, "{name} {sizes:?}");
            println!(
                "{name} {sizes:?} x16: {in_beats} input beats, {} output beats, {clocks} clocks \
                 (input taken over {} clocks)",
                r.out_beats,
                r.last_in - r.first_in + 1
            );
        }
    }
}

/// FCN-02: Ethernet padding and trailers are cut at the IP length, within
/// the last beat or beats after it (the cut beat waits for the input's
/// last beat, whose tuser it takes); a frame shorter than its IP length
/// leaves with what it has and tuser set; tuser passes on every frame.
#[test]
fn fcn_02_tunnel_encap_trims_padding_and_flags_truncated_frames() {
    let mut jobs = Vec::new();
    for tunnel in [Tunnel::vxlan(), Tunnel::srv6(1), Tunnel::srv6(2)] {
        for v6 in [false, true] {
            for vlan in [false, true] {
                let base = udp_frame(if v6 { 62 } else { 42 } + 4 * vlan as usize, v6, vlan);
                // Padded to 60 (IPv4: 18 bytes, 14 behind a tag).
                let mut padded = base.clone();
                padded.resize(padded.len().max(60), 0);
                jobs.push(Job::new(padded, &tunnel, 1));
                // Trailers of 1, 63, 64, 65 and 200 bytes; tuser on some.
                for (n, user) in [(1, false), (63, true), (64, false), (65, true), (200, true)] {
                    let mut f = udp_frame(200, v6, vlan);
                    f.extend(std::iter::repeat_n(0xee, n));
                    let mut j = Job::new(f, &tunnel, 2);
                    j.user = user;
                    jobs.push(j);
                }
                // Truncated at beat edges and inside beats.
                for cut in [24, 63, 64, 65, 128, 150] {
                    let mut f = udp_frame(300, v6, vlan);
                    f.truncate(cut);
                    jobs.push(Job::new(f, &tunnel, 3));
                }
                // tuser on an exact frame.
                let mut j = Job::new(udp_frame(129, v6, vlan), &tunnel, 4);
                j.user = true;
                jobs.push(j);
            }
        }
    }
    let c = expected_counts(&jobs);
    assert_eq!(c.truncated, 3 * 4 * 6);
    assert!(c.trimmed >= 3 * 4 * 5);
    for (idle, bp, seed) in [(0.0, 0.0, 31), (0.3, 0.3, 32)] {
        let r = run(&jobs, idle, bp, seed);
        assert_matches_reference(&r, &jobs);
    }
}

/// FCN-02: frames the block cannot size (ARP, QinQ, a version that does
/// not match the EtherType, IPv4 total length below 20, runts of 1..=23
/// bytes) are taken and dropped with `cmd_encap` 1 and pass unchanged with
/// `cmd_encap` 0; frames over the MTU are dropped, a frame exactly at the
/// MTU passes; tagged inner frames are sized behind the tag.
#[test]
fn fcn_02_tunnel_encap_drops_non_ip_and_oversized_frames() {
    let mut rng = StdRng::seed_from_u64(1206);
    let mut jobs = Vec::new();
    for tunnel in [Tunnel::vxlan(), Tunnel::srv6(1), Tunnel::srv6(2)] {
        for _ in 0..12 {
            let mut j = Job::new(non_ip_frame(&mut rng), &tunnel, 5);
            jobs.push(j.clone());
            j.encap = false;
            jobs.push(j);
        }
        for len in [1, 13, 14, 19, 20, 23] {
            jobs.push(Job::new(vec![0x45; len], &tunnel, 6));
        }
        for v6 in [false, true] {
            for vlan in [false, true] {
                // The frame whose outer IP packet is exactly the MTU, and
                // one byte more.
                let add = if tunnel.srv6 {
                    40 + 8 + 16 * tunnel.sids.len() - 14 - 4 * vlan as usize
                } else {
                    40 + 16
                };
                let mut t = tunnel.clone();
                t.mtu = 1500;
                let exact = 1500 - add;
                jobs.push(Job::new(udp_frame(exact, v6, vlan), &t, 7));
                jobs.push(Job::new(udp_frame(exact + 1, v6, vlan), &t, 8));
                t.mtu = 9000;
                jobs.push(Job::new(udp_frame(4200, v6, vlan), &t, 9));
                t.mtu = 4000;
                jobs.push(Job::new(udp_frame(4200, v6, vlan), &t, 10));
            }
        }
    }
    let c = expected_counts(&jobs);
    assert_eq!(c.dropped_mtu, 3 * 4 * 2);
    assert_eq!(c.dropped_not_ip, 3 * (12 + 6));
    for (idle, bp, seed) in [(0.0, 0.0, 41), (0.3, 0.3, 42)] {
        let r = run(&jobs, idle, bp, seed);
        assert_matches_reference(&r, &jobs);
    }
}
