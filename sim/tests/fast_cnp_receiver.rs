//! The ingress PE's Fast CNP recogniser (`cngw_hdl::fcn::FastCnpReceiver`),
//! in the Verilog that ships, against a software reference (FCN-05,
//! FCN-06): Fast CNPs built by the packet crate (`FastCnp::to_frame`, with
//! and without an 802.1Q tag, the flow label copied into the IPv6 header or
//! not, Ethernet padding after them) are claimed at their first beat and
//! reported one clock after their last with the label, level and source the
//! packet crate reads back; frames for another address or port, IPv4,
//! other next headers, EtherTypes and tags are not claimed; bad or zero
//! UDP checksums, wrong lengths and truncated frames are claimed and
//! flagged; the source is checked against two domain prefixes of any
//! length. Random sequences of all of these run with random idle clocks and
//! random `tready` low (the tap only observes), and every clock's `claim`
//! and every pulse (its clock and its fields) are compared with the
//! reference.

use cngw_packet::checksum::{ones_complement_add, udp_checksum_ipv6};
use cngw_packet::fast_cnp::{FastCnp, DEFAULT_UDP_PORT};
use cngw_packet::{Envelope, Frame};
use cngw_sim::Unit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

/// The block's configuration inputs.
#[derive(Clone, Debug)]
struct Config {
    enable: bool,
    gw: Ipv6Addr,
    port: u16,
    /// (prefix, length in bits, valid) of the two domains.
    domains: [(Ipv6Addr, u8, bool); 2],
}

impl Config {
    fn new(gw: &str, port: u16) -> Config {
        Config {
            enable: true,
            gw: gw.parse().unwrap(),
            port,
            domains: [
                ("fd00:aaaa::".parse().unwrap(), 32, true),
                ("2001:db8:77::".parse().unwrap(), 48, true),
            ],
        }
    }

    fn apply(&self, unit: &mut Unit) {
        unit.set_u64("enable", self.enable as u64).unwrap();
        unit.set_bytes("gw_ipv6", &self.gw.octets()).unwrap();
        unit.set_u64("udp_port", self.port as u64).unwrap();
        for (i, (prefix, len, valid)) in self.domains.iter().enumerate() {
            unit.set_bytes(&format!("dom{i}_prefix"), &prefix.octets())
                .unwrap();
            unit.set_u64(&format!("dom{i}_len"), *len as u64).unwrap();
            unit.set_u64(&format!("dom{i}_valid"), *valid as u64)
                .unwrap();
        }
    }
}

/// A frame as the stream carries it: `len` bytes, and in `lanes` (a whole
/// number of beats) what every lane of its beats holds, past its end too.
#[derive(Clone, Debug)]
struct Wire {
    lanes: Vec<u8>,
    len: usize,
}

impl Wire {
    /// A frame whose last beat's unused lanes hold random bytes.
    fn new(frame: &[u8], rng: &mut StdRng) -> Wire {
        Wire::truncated(frame, frame.len(), rng)
    }

    /// The first `len` bytes of `frame` as a frame; the lanes after them
    /// still hold the rest of `frame` (as far as the last beat goes), then
    /// random bytes: a runt whose lanes look like the whole frame.
    fn truncated(frame: &[u8], len: usize, rng: &mut StdRng) -> Wire {
        let mut lanes = frame.to_vec();
        lanes.resize(len.div_ceil(64) * 64, 0);
        for b in lanes.iter_mut().skip(frame.len()) {
            *b = rng.gen();
        }
        Wire { lanes, len }
    }

    fn beats(&self) -> usize {
        self.len.div_ceil(64)
    }
}

/// A pulse's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Msg {
    src: [u8; 16],
    label: u32,
    level: u8,
    well_formed: bool,
    checksum_ok: bool,
    in_domain: bool,
}

/// Whether the first `len` bits (network order) of `a` and `prefix` are
/// equal; lengths above 128 act as 128.
fn prefix_match(a: [u8; 16], prefix: [u8; 16], len: u8) -> bool {
    let n = (len as u32).min(128);
    n == 0 || (u128::from_be_bytes(a) ^ u128::from_be_bytes(prefix)) >> (128 - n) == 0
}

/// One's complement sum of the IPv6 pseudo-header (the UDP length field as
/// upper-layer length) and a 12-byte UDP datagram, folded to 16 bits.
fn datagram_sum(src: &[u8], dst: &[u8], dg: &[u8]) -> u16 {
    let mut acc = ones_complement_add(0, src);
    acc = ones_complement_add(acc, dst);
    acc = ones_complement_add(acc, &[0, 0, dg[4], dg[5]]);
    acc = ones_complement_add(acc, &[0, 0, 0, 17]);
    acc = ones_complement_add(acc, dg);
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc as u16
}

/// The reference: whether the block claims the frame (from its first
/// beat's lanes) and the pulse it reports for it, as the block's
/// documentation defines them, from the lanes of the first two beats
/// (zero where the frame has no second beat).
fn reference(w: &Wire, cfg: &Config) -> (bool, Msg) {
    let mut img = [0u8; 128];
    img[..64].copy_from_slice(&w.lanes[..64]);
    if w.beats() >= 2 {
        img[64..].copy_from_slice(&w.lanes[64..128]);
    }
    let be16 = |i: usize| u16::from_be_bytes([img[i], img[i + 1]]);
    let o = if be16(12) == 0x8100 { 4 } else { 0 };
    let claim = cfg.enable
        && be16(12 + o) == 0x86DD
        && img[14 + o] >> 4 == 6
        && img[20 + o] == 17
        && img[38 + o..54 + o] == cfg.gw.octets()
        && be16(56 + o) == cfg.port;
    let src: [u8; 16] = img[22 + o..38 + o].try_into().unwrap();
    let dg = &img[54 + o..66 + o];
    let complete = w.len >= 66 + o;
    let payload = u32::from_be_bytes(dg[8..12].try_into().unwrap());
    let msg = Msg {
        src,
        label: payload >> 12,
        level: (payload >> 9 & 7) as u8,
        well_formed: be16(18 + o) == 12 && be16(58 + o) == 12 && complete,
        checksum_ok: complete
            && be16(60 + o) != 0
            && datagram_sum(&src, &img[38 + o..54 + o], dg) == 0xFFFF,
        in_domain: cfg
            .domains
            .iter()
            .any(|&(p, len, valid)| valid && prefix_match(src, p.octets(), len)),
    };
    (claim, msg)
}

/// What a run observed: per frame the `claim` seen while its first beat
/// was on the tap (checked constant), the clock its last beat was taken;
/// every pulse with its clock.
struct Run {
    claims: Vec<bool>,
    last_taken: Vec<u64>,
    pulses: Vec<(u64, Msg)>,
}

fn read_msg(unit: &mut Unit) -> Msg {
    let words = unit.get("msg_src").unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Msg {
        src: bytes[..16].try_into().unwrap(),
        label: unit.get_u64("msg_label").unwrap() as u32,
        level: unit.get_u64("msg_level").unwrap() as u8,
        well_formed: unit.get_u64("msg_well_formed").unwrap() == 1,
        checksum_ok: unit.get_u64("msg_checksum_ok").unwrap() == 1,
        in_domain: unit.get_u64("msg_in_domain").unwrap() == 1,
    }
}

/// Streams `frames` through a fresh unit with configuration `cfg`: before
/// each beat idle clocks with probability `idle` each (`tvalid` low,
/// random lanes), and `tready` low with probability `stall` in any clock
/// (the beat then stays on the tap, as AXI4-Stream requires). `claim` is
/// checked in every clock: low without `tvalid` (even with the next first
/// beat already on `tdata`) or past a first beat.
fn run(frames: &[Wire], cfg: &Config, idle: f64, stall: f64, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("fast_cnp_receiver").unwrap();
    cfg.apply(&mut unit);
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let mut claims = Vec::new();
    let mut last_taken = Vec::new();
    let mut pulses = Vec::new();
    let (mut frame, mut beat, mut tail) = (0, 0, 0);
    let mut presenting = false;
    while frame < frames.len() || tail < 4 {
        if frame == frames.len() {
            tail += 1;
        }
        if unit.get_u64("msg_valid").unwrap() == 1 {
            pulses.push((unit.cycle(), read_msg(&mut unit)));
        }
        if !presenting && frame < frames.len() && !rng.gen_bool(idle) {
            presenting = true;
        }
        let ready = !rng.gen_bool(stall);
        unit.set_u64("tready", ready as u64).unwrap();
        if presenting {
            let w = &frames[frame];
            let data = &w.lanes[64 * beat..64 * beat + 64];
            let n = (w.len - 64 * beat).min(64);
            let keep = if n == 64 { u64::MAX } else { (1 << n) - 1 };
            unit.set_bytes("tdata", data).unwrap();
            unit.set_u64("tkeep", keep).unwrap();
            unit.set_u64("tlast", (beat + 1 == w.beats()) as u64)
                .unwrap();
            unit.set_u64("tvalid", 1).unwrap();
            let claim = unit.get_u64("claim").unwrap() == 1;
            if beat == 0 {
                if claims.len() == frame {
                    claims.push(claim);
                }
                assert_eq!(claim, claims[frame], "frame {frame}: claim changed");
            } else {
                assert!(
                    !claim,
                    "frame {frame} beat {beat}: claim past the first beat"
                );
            }
            if ready {
                beat += 1;
                if beat == w.beats() {
                    last_taken.push(unit.cycle());
                    frame += 1;
                    beat = 0;
                    presenting = false;
                }
            }
        } else {
            // Random lanes, or the next frame's first beat not yet valid.
            let mut lanes: Vec<u8> = (0..64).map(|_| rng.gen()).collect();
            if frame < frames.len() && rng.gen_bool(0.5) {
                lanes.copy_from_slice(&frames[frame].lanes[..64]);
            }
            unit.set_bytes("tdata", &lanes).unwrap();
            unit.set_u64("tkeep", rng.gen()).unwrap();
            unit.set_u64("tlast", rng.gen_bool(0.5) as u64).unwrap();
            unit.set_u64("tvalid", 0).unwrap();
            assert_eq!(unit.get_u64("claim").unwrap(), 0, "claim without tvalid");
        }
        unit.step();
    }
    Run {
        claims,
        last_taken,
        pulses,
    }
}

/// Runs `frames` and checks every claim and pulse against the reference:
/// a pulse exactly one clock after each claimed frame's last beat, none
/// for the others. Returns the reference's (claim, message) per frame.
fn check(frames: &[Wire], cfg: &Config, idle: f64, stall: f64, seed: u64) -> Vec<(bool, Msg)> {
    let want: Vec<(bool, Msg)> = frames.iter().map(|w| reference(w, cfg)).collect();
    let r = run(frames, cfg, idle, stall, seed);
    let claims: Vec<bool> = want.iter().map(|(c, _)| *c).collect();
    for (i, (got, w)) in r.claims.iter().zip(&claims).enumerate() {
        assert_eq!(got, w, "frame {i} claim: {:02x?}", &frames[i].lanes[..64]);
    }
    let expected: Vec<(u64, Msg)> = want
        .iter()
        .zip(&r.last_taken)
        .filter(|((claim, _), _)| *claim)
        .map(|((_, m), t)| (t + 1, m.clone()))
        .collect();
    assert_eq!(
        r.pulses.len(),
        expected.len(),
        "one pulse per claimed frame"
    );
    for (i, (got, want)) in r.pulses.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "pulse {i} (clock, fields)");
    }
    want
}

/// A Fast CNP frame from the packet crate: `src` to `dst`, an 802.1Q tag
/// when `vlan`, the label in the IPv6 header too when `copy`.
#[allow(clippy::too_many_arguments)]
fn fast_cnp(
    src: Ipv6Addr,
    dst: Ipv6Addr,
    label: u32,
    level: u8,
    vlan: Option<u16>,
    copy: bool,
    sport: u16,
    dport: u16,
) -> Vec<u8> {
    let mut env = Envelope::ipv6(src, dst).with_dscp(46);
    if let Some(vid) = vlan {
        env = env.with_vlan(vid);
    }
    let mut f = FastCnp::new(label, level)
        .to_frame(&env, sport, dport)
        .to_bytes();
    if !copy {
        // The label only in the payload (IPv6 bytes 1..3).
        let ip = 14 + tag(&f);
        f[ip + 1] &= 0xF0;
        f[ip + 2] = 0;
        f[ip + 3] = 0;
    }
    f
}

/// Bytes of 802.1Q tag in front of the EtherType.
fn tag(f: &[u8]) -> usize {
    if f[12..14] == [0x81, 0x00] {
        4
    } else {
        0
    }
}

/// Rewrites the UDP checksum field of a Fast CNP frame to the correct
/// value for its (possibly altered) bytes, with the UDP length field as
/// the pseudo-header's length; 0 goes out as 0xFFFF.
fn fix_checksum(f: &mut [u8]) {
    let o = tag(f);
    f[60 + o] = 0;
    f[61 + o] = 0;
    let sum = datagram_sum(&f[22 + o..38 + o], &f[38 + o..54 + o], &f[54 + o..66 + o]);
    let c = match !sum {
        0 => 0xFFFF,
        c => c,
    };
    f[60 + o..62 + o].copy_from_slice(&c.to_be_bytes());
}

fn addr(rng: &mut StdRng) -> Ipv6Addr {
    Ipv6Addr::from(rng.gen::<u128>())
}

/// A source: in one of the domains (random bits after the prefix) or not.
fn source(rng: &mut StdRng, cfg: &Config) -> Ipv6Addr {
    let (p, len, _) = cfg.domains[rng.gen_range(0..2)];
    if rng.gen_bool(0.5) {
        let n = (len as u32).min(128);
        let keep = if n == 0 { 0 } else { u128::MAX << (128 - n) };
        Ipv6Addr::from(u128::from(p) & keep | rng.gen::<u128>() & !keep)
    } else {
        addr(rng)
    }
}

/// A random good Fast CNP for `cfg`, sometimes padded.
fn good(rng: &mut StdRng, cfg: &Config) -> Vec<u8> {
    let vlan = rng.gen_bool(0.4).then(|| rng.gen_range(0..4096));
    let src = source(rng, cfg);
    let mut f = fast_cnp(
        src,
        cfg.gw,
        rng.gen_range(0..1 << 20),
        rng.gen_range(0..8),
        vlan,
        rng.gen_bool(0.5),
        rng.gen(),
        cfg.port,
    );
    if rng.gen_bool(0.3) {
        let pad = rng.gen_range(1..200);
        f.extend((0..pad).map(|_| rng.gen::<u8>()));
    }
    f
}

/// The ways a frame can differ from a good Fast CNP for this PE.
const MUTATIONS: usize = 16;

/// A good Fast CNP changed by mutation `kind`; the frame may then be
/// claimed or not, well formed or not: the reference decides.
fn mutated(rng: &mut StdRng, cfg: &Config, kind: usize) -> Wire {
    let mut f = good(rng, cfg);
    let o = tag(&f);
    match kind {
        // Another destination address (one bit off) or port.
        0 => {
            let bit = rng.gen_range(0..128);
            f[38 + o + bit / 8] ^= 0x80 >> (bit % 8);
            fix_checksum(&mut f);
        }
        1 => {
            let port = cfg.port ^ (1 << rng.gen_range(0..16));
            f[56 + o..58 + o].copy_from_slice(&port.to_be_bytes());
            fix_checksum(&mut f);
        }
        // IPv4 (the Fast CNP over IPv4 to an address whose bytes are gw's).
        2 => {
            let g = cfg.gw.octets();
            let env = Envelope::ipv4(
                Ipv4Addr::from(rng.gen::<u32>()),
                Ipv4Addr::new(g[0], g[1], g[2], g[3]),
            );
            f = FastCnp::new(rng.gen(), rng.gen())
                .to_frame(&env, rng.gen(), cfg.port)
                .to_bytes();
        }
        // Next header not UDP.
        3 => {
            f[20 + o] = [6, 58, 0, 43, 44, 16, 18][rng.gen_range(0..7)];
        }
        // Another EtherType, a Q-in-Q tag pair, an 802.1ad tag, version 4.
        4 => {
            f[12 + o..14 + o].copy_from_slice(&[0x08, 0x00]);
        }
        5 => {
            let mut q = f[..12].to_vec();
            q.extend_from_slice(&[0x81, 0x00, 0x00, 0x07]);
            if o == 0 {
                q.extend_from_slice(&[0x81, 0x00, 0x00, 0x08]);
            }
            q.extend_from_slice(&f[12..]);
            f = q;
        }
        6 => {
            if o == 0 {
                let mut q = f[..12].to_vec();
                q.extend_from_slice(&[0x88, 0xA8, 0x00, 0x07]);
                q.extend_from_slice(&f[12..]);
                f = q;
            } else {
                f[12..14].copy_from_slice(&[0x88, 0xA8]);
            }
        }
        7 => {
            f[14 + o] = (f[14 + o] & 0x0F) | [0x40, 0x00, 0x70, 0xE0][rng.gen_range(0..4)];
        }
        // A byte of the source or the UDP datagram changed: checksum bad.
        8 => {
            let at = [22 + o + rng.gen_range(0..16), 54 + o + rng.gen_range(0..12)];
            let at = at[rng.gen_range(0..2)];
            if at != 56 + o && at != 57 + o {
                f[at] ^= rng.gen_range(1..=255);
            }
        }
        // Checksum 0 (no checksum: invalid over IPv6).
        9 => {
            f[60 + o] = 0;
            f[61 + o] = 0;
        }
        // UDP length 13 (checksum made to match it), or not matching.
        10 => {
            f[59 + o] = 13;
            if rng.gen_bool(0.5) {
                fix_checksum(&mut f);
            }
        }
        // IPv6 payload length not 12.
        11 => {
            let len = [0u16, 11, 13, 16, 1500][rng.gen_range(0..5)];
            f[18 + o..20 + o].copy_from_slice(&len.to_be_bytes());
        }
        // Reserved bits set: ignored (checksum made to match).
        12 => {
            f[64 + o] |= rng.gen_range(0..2);
            f[65 + o] = rng.gen();
            fix_checksum(&mut f);
        }
        // Truncated: 1..65 bytes (1..69 with a tag), lanes still holding
        // the rest of the frame.
        13 => {
            let len = rng.gen_range(1..66 + o);
            return Wire::truncated(&f, len, rng);
        }
        // Disabled is a configuration; here: a good frame.
        _ => {}
    }
    Wire::new(&f, rng)
}

/// FCN-05: Fast CNPs from the packet crate (IPv6 with and without an
/// 802.1Q tag, label copied into the IPv6 header or not, any source port,
/// Ethernet padding after the 66 or 70 bytes) are claimed at their first
/// beat; one clock after the last beat a pulse gives the outer source and
/// the label and level that `FastCnp::from_frame` reads, well formed with a
/// good checksum.
#[test]
fn fcn_05_claims_fast_cnps_and_reports_their_fields() {
    let mut rng = StdRng::seed_from_u64(5);
    let cfg = Config::new("fd00:e::1", DEFAULT_UDP_PORT);
    let mut frames = Vec::new();
    let mut packets = Vec::new();
    for i in 0..120 {
        let vlan = (i % 2 == 1).then_some(100 + i as u16);
        let label = [0, 1, 0xF_FFFF, 0x8_0001, rng.gen_range(0..1 << 20)][i % 5];
        let level = (i % 8) as u8;
        let mut f = fast_cnp(
            source(&mut rng, &cfg),
            cfg.gw,
            label,
            level,
            vlan,
            i % 4 < 2,
            rng.gen(),
            cfg.port,
        );
        // Padding: none, to the end of the second beat, 1 byte, into a
        // third beat.
        let pad = [0, 0, 64 - f.len() % 64, 1, 70, 130][i % 6];
        f.extend((0..pad).map(|_| rng.gen::<u8>()));
        // The packet crate reads back what it built.
        let parsed = FastCnp::from_frame(&Frame::parse(&f).unwrap(), cfg.port).unwrap();
        assert_eq!(parsed, FastCnp::new(label, level));
        let o = tag(&f);
        let src: Ipv6Addr = <[u8; 16]>::try_from(&f[22 + o..38 + o]).unwrap().into();
        let mut dg = f[54 + o..66 + o].to_vec();
        let sent = u16::from_be_bytes([dg[6], dg[7]]);
        dg[6] = 0;
        dg[7] = 0;
        assert_eq!(sent, udp_checksum_ipv6(src, cfg.gw, &dg));
        packets.push((src, parsed));
        frames.push(Wire::new(&f, &mut rng));
    }
    let want = check(&frames, &cfg, 0.0, 0.0, 1);
    for ((claim, m), (src, p)) in want.iter().zip(&packets) {
        assert!(claim);
        assert_eq!(m.src, src.octets());
        assert_eq!((m.label, m.level), (p.flow_label, p.congestion_level));
        assert!(m.well_formed && m.checksum_ok);
    }
    check(&frames, &cfg, 0.3, 0.3, 2);
}

/// FCN-05: frames that are not a Fast CNP for this PE are not claimed and
/// give no pulse: another destination (one bit off), another port, IPv4,
/// next header not UDP, another EtherType, two tags, an 802.1ad tag,
/// version not 6; and none at all with `enable` low.
#[test]
fn fcn_05_claims_nothing_else() {
    let mut rng = StdRng::seed_from_u64(50);
    let cfg = Config::new("2001:db8:1::fe", 6000);
    for kind in [0, 1, 2, 3, 4, 5, 6, 7] {
        let frames: Vec<Wire> = (0..40).map(|_| mutated(&mut rng, &cfg, kind)).collect();
        let want = check(&frames, &cfg, 0.2, 0.2, kind as u64);
        assert!(want.iter().all(|(c, _)| !c), "mutation {kind} claimed");
    }
    let frames: Vec<Wire> = (0..40)
        .map(|_| Wire::new(&good(&mut rng, &cfg), &mut rng))
        .collect();
    let off = Config {
        enable: false,
        ..cfg.clone()
    };
    let want = check(&frames, &off, 0.2, 0.2, 99);
    assert!(want.iter().all(|(c, _)| !c));
    assert!(check(&frames, &cfg, 0.2, 0.2, 98).iter().all(|(c, _)| *c));
}

/// FCN-05: claimed frames that are not good Fast CNPs are reported as such:
/// a changed byte (bad UDP checksum), checksum 0, UDP length 13, IPv6
/// payload length not 12, truncated frames of every length below 66 (70
/// with a tag; a 1-beat runt still gives its pulse); reserved bits are
/// ignored and padding is allowed.
#[test]
fn fcn_05_flags_bad_checksums_lengths_and_runts() {
    let mut rng = StdRng::seed_from_u64(51);
    let cfg = Config::new("fd00:e::1", DEFAULT_UDP_PORT);
    let mut frames = Vec::new();
    let mut expect = Vec::new();
    for vlan in [None, Some(9)] {
        let f = fast_cnp(
            "fd00:aaaa::5".parse().unwrap(),
            cfg.gw,
            0xABCDE,
            5,
            vlan,
            true,
            1234,
            cfg.port,
        );
        let o = tag(&f);
        // Every byte of the source and of the datagram but the port.
        for at in (22 + o..38 + o).chain(54 + o..56 + o).chain(58 + o..66 + o) {
            let mut g = f.clone();
            g[at] ^= 1 << (at % 8);
            frames.push(Wire::new(&g, &mut rng));
            // Well formed unless the UDP length changed.
            expect.push((at != 58 + o && at != 59 + o, false));
        }
        let mut zero = f.clone();
        zero[60 + o] = 0;
        zero[61 + o] = 0;
        frames.push(Wire::new(&zero, &mut rng));
        expect.push((true, false));
        let mut long = f.clone();
        long[59 + o] = 13;
        fix_checksum(&mut long);
        frames.push(Wire::new(&long, &mut rng));
        expect.push((false, true));
        let mut plen = f.clone();
        plen[19 + o] = 13;
        frames.push(Wire::new(&plen, &mut rng));
        expect.push((false, true));
        let mut reserved = f.clone();
        reserved[64 + o] |= 1;
        reserved[65 + o] = 0xA5;
        fix_checksum(&mut reserved);
        frames.push(Wire::new(&reserved, &mut rng));
        expect.push((true, true));
        for len in 1..66 + o {
            frames.push(Wire::truncated(&f, len, &mut rng));
            expect.push((false, false));
        }
        for pad in [1, 4, 50, 64, 200] {
            let mut p = f.clone();
            p.extend((0..pad).map(|_| rng.gen::<u8>()));
            frames.push(Wire::new(&p, &mut rng));
            expect.push((true, true));
        }
    }
    for seed in 0..3 {
        let (idle, stall) = [(0.0, 0.0), (0.3, 0.0), (0.2, 0.4)][seed];
        let want = check(&frames, &cfg, idle, stall, seed as u64);
        for (i, ((claim, m), (well_formed, checksum_ok))) in want.iter().zip(&expect).enumerate() {
            assert!(claim, "frame {i}");
            assert_eq!(
                (m.well_formed, m.checksum_ok),
                (*well_formed, *checksum_ok),
                "frame {i}"
            );
            if m.well_formed && m.checksum_ok {
                assert_eq!(m.label, 0xABCDE);
                assert_eq!(m.level, 5);
            }
        }
    }
}

/// FCN-05: runts of one beat that claim, back to back with no idle clock:
/// a pulse in every clock, each one clock after its frame; whole Fast CNPs
/// back to back likewise, one pulse per frame.
#[test]
fn fcn_05_back_to_back_frames_and_runts() {
    let mut rng = StdRng::seed_from_u64(52);
    let cfg = Config::new("fd00:e::1", DEFAULT_UDP_PORT);
    let f = fast_cnp(
        "fd00:aaaa::1".parse().unwrap(),
        cfg.gw,
        77,
        3,
        None,
        true,
        1,
        cfg.port,
    );
    let runts: Vec<Wire> = (0..30)
        .map(|i| Wire::truncated(&f, 58 + i % 6, &mut rng))
        .collect();
    let r = run(&runts, &cfg, 0.0, 0.0, 3);
    assert_eq!(r.pulses.len(), 30);
    for (i, (t, m)) in r.pulses.iter().enumerate() {
        assert_eq!(*t, r.last_taken[i] + 1);
        assert!(!m.well_formed && !m.checksum_ok);
        if i > 0 {
            assert_eq!(*t, r.pulses[i - 1].0 + 1, "a pulse every clock");
        }
    }
    check(&runts, &cfg, 0.0, 0.0, 4);
    let mut mixed: Vec<Wire> = Vec::new();
    for i in 0..60 {
        mixed.push(match i % 3 {
            0 => Wire::truncated(&f, 40, &mut rng),
            1 => Wire::new(&good(&mut rng, &cfg), &mut rng),
            _ => {
                let kind = rng.gen_range(0..MUTATIONS);
                mutated(&mut rng, &cfg, kind)
            }
        });
    }
    check(&mixed, &cfg, 0.0, 0.0, 5);
}

/// FCN-05: random sequences of good, mutated, truncated and padded frames
/// under random configurations, with random idle clocks and random
/// `tready` low: every claim and every pulse as the reference says.
#[test]
fn fcn_05_random_sequences_match_the_reference() {
    let mut rng = StdRng::seed_from_u64(53);
    let mut claimed = 0;
    let mut good_ones = 0;
    for round in 0..12 {
        let mut cfg = Config::new("::", rng.gen());
        cfg.gw = addr(&mut rng);
        cfg.enable = round != 5;
        for d in 0..2 {
            cfg.domains[d] = (
                addr(&mut rng),
                [0, 1, 8, 48, 64, 100, 127, 128, 200][rng.gen_range(0..9)],
                rng.gen_bool(0.8),
            );
        }
        let frames: Vec<Wire> = (0..300)
            .map(|_| {
                if rng.gen_bool(0.4) {
                    Wire::new(&good(&mut rng, &cfg), &mut rng)
                } else {
                    let kind = rng.gen_range(0..MUTATIONS);
                    mutated(&mut rng, &cfg, kind)
                }
            })
            .collect();
        let idle = [0.0, 0.1, 0.5][round % 3];
        let stall = [0.0, 0.3, 0.6][round / 3 % 3];
        let want = check(&frames, &cfg, idle, stall, round as u64);
        claimed += want.iter().filter(|(c, _)| *c).count();
        good_ones += want
            .iter()
            .filter(|(c, m)| *c && m.well_formed && m.checksum_ok)
            .count();
    }
    assert!(claimed > 1500 && good_ones > 1000, "{claimed} {good_ones}");
}

/// FCN-06: the source is in the domain when a valid prefix's first `len`
/// bits equal its own: length 0 matches everything, lengths above 128 act
/// as 128; a source one bit off inside the prefix is out, one bit off just
/// after it is in; an invalid prefix matches nothing.
#[test]
fn fcn_06_domain_prefixes_of_any_length() {
    let mut rng = StdRng::seed_from_u64(6);
    let p0: Ipv6Addr = "fd00:1234:5678:9abc:def0:1122:3344:5566".parse().unwrap();
    let p1: Ipv6Addr = "2001:db8:ffff:0:8000::1".parse().unwrap();
    let mut cases = 0;
    for len in [
        0u8, 1, 7, 8, 9, 48, 63, 64, 65, 120, 127, 128, 129, 200, 255,
    ] {
        for which in 0..2 {
            for valid in [true, false] {
                let mut cfg = Config::new("fd00:e::1", DEFAULT_UDP_PORT);
                let other = 1 - which;
                let prefix = [p0, p1][which];
                cfg.domains[which] = (prefix, len, valid);
                // The other prefix: valid, matching none of the sources.
                cfg.domains[other] = ("3fff:ffff:ffff::".parse().unwrap(), 48, true);
                let n = (len as u32).min(128);
                let base = u128::from(prefix);
                let mut sources = vec![(base, true)];
                if n > 0 {
                    // One bit off inside the prefix: its last and first bit.
                    sources.push((base ^ 1 << (128 - n), false));
                    sources.push((base ^ 1 << 127, false));
                }
                if n < 128 {
                    // Off just after it, and random bits after it.
                    sources.push((base ^ 1 << (127 - n), true));
                    let keep = if n == 0 { 0 } else { u128::MAX << (128 - n) };
                    sources.push((base & keep | rng.gen::<u128>() & !keep, true));
                }
                let frames: Vec<Wire> = sources
                    .iter()
                    .map(|&(s, _)| {
                        let f = fast_cnp(
                            Ipv6Addr::from(s),
                            cfg.gw,
                            1,
                            1,
                            rng.gen_bool(0.5).then_some(5),
                            true,
                            9,
                            cfg.port,
                        );
                        Wire::new(&f, &mut rng)
                    })
                    .collect();
                let want = check(&frames, &cfg, 0.1, 0.1, cases);
                for ((_, m), (s, inside)) in want.iter().zip(&sources) {
                    assert_eq!(
                        m.in_domain,
                        *inside && valid,
                        "len {len} prefix {which} valid {valid} source {}",
                        Ipv6Addr::from(*s)
                    );
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 200);
}

/// HW-01: the block's Verilog, as verilated here, lints clean with the
/// project's scoped waivers.
#[test]
fn hw_01_fast_cnp_receiver_lints_clean() {
    let design = cngw_hdl::units::unit_designs()
        .into_iter()
        .find(|(name, _)| *name == "fast_cnp_receiver")
        .expect("fast_cnp_receiver is a unit design")
        .1;
    cngw_hdl::verilog::lint_block("fast_cnp_receiver_unit", &design).unwrap();
}
