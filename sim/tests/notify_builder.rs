//! The notification frame builder, in the Verilog that ships, against the
//! packet crate (LH-12, LH-13): random standard CNPs and Long-haul CNPs in
//! RoCEv2 format over IPv4 and IPv6 and in ICMPv6 format (IPv6 only), taken
//! with random gaps and sent under random backpressure, equal byte for byte
//! to `Cnp`/`LonghaulRocev2`/`LonghaulIcmpv6` frames, and accepted by
//! scapy's RoCE layer (ICRC), IPv4 layer (checksum) and ICMPv6 checksum.
//! With extension objects (timestamp, device identifier of 0..16 bytes,
//! path identifier of 0..8 bytes, any Class-Num) the Long-haul frames carry
//! the RFC 4884 structure the packet crate builds; its checksum is checked
//! again here with a one's complement sum of our own and by scapy's
//! `ICMPExtension_Header`.

use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_packet::fast_cnp::FastCnp;
use cngw_packet::icmp_extension::{ExtensionStructure, LonghaulObject};
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_sim::Unit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `job_kind` values (`cngw_hdl::notify::NotifyKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    StandardCnp = 0,
    LonghaulRocev2 = 1,
    LonghaulIcmpv6 = 2,
    FastCnp = 3,
}

#[derive(Clone, Debug)]
struct Job {
    kind: Kind,
    src: IpAddr,
    dst: IpAddr,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    dscp: u8,
    pkey: u16,
    dqp: u32,
    body: LonghaulBody,
    icmp_type: u8,
    timestamp: u64,
    /// Kind 3: flow label, congestion level, UDP port, and whether the
    /// label is copied into the IPv6 header.
    fcn: (u32, u8, u16, bool),
}

/// The builder's extension configuration (`ext_*` inputs).
#[derive(Clone, Debug, Default, PartialEq)]
struct Ext {
    timestamp: bool,
    /// The device identifier object and the length input (may exceed 16:
    /// the block then sends 16 bytes).
    device: Option<(String, u8)>,
    path: Option<(Vec<u8>, u8)>,
    class_num: u8,
}

impl Ext {
    /// Sixteen device identifier bytes: `id`, then stale bytes (what a
    /// longer identifier written before leaves in the register), which
    /// the block must not send.
    fn device_bytes(&self) -> [u8; 16] {
        let mut b = stale_bytes::<16>();
        if let Some((id, _)) = &self.device {
            b[..id.len()].copy_from_slice(id.as_bytes());
        }
        b
    }

    /// Eight path identifier bytes: `id`, then stale bytes.
    fn path_bytes(&self) -> [u8; 8] {
        let mut b = stale_bytes::<8>();
        if let Some((id, _)) = &self.path {
            b[..id.len()].copy_from_slice(id);
        }
        b
    }

    /// The structure the packet crate builds for this configuration.
    fn structure(&self, timestamp: u64) -> Option<ExtensionStructure> {
        let mut objects = Vec::new();
        if self.timestamp {
            objects.push(LonghaulObject::Timestamp(timestamp));
        }
        if let Some((_, len)) = &self.device {
            let n = (*len as usize).min(16);
            objects.push(LonghaulObject::DeviceId(
                String::from_utf8(self.device_bytes()[..n].to_vec()).unwrap(),
            ));
        }
        if let Some((_, len)) = &self.path {
            let n = (*len as usize).min(8);
            objects.push(LonghaulObject::PathId(self.path_bytes()[..n].to_vec()));
        }
        (!objects.is_empty()).then(|| ExtensionStructure::from_longhaul(self.class_num, &objects))
    }
}

/// Register bytes past an identifier's length: non-zero, so a wrong length
/// mask shows in the frame and its checksum.
fn stale_bytes<const N: usize>() -> [u8; N] {
    std::array::from_fn(|i| 0xA5 ^ i as u8)
}

/// A UTF-8 string of exactly `n` bytes: ASCII letters and digits with some
/// two-byte characters (é, ß, Ω).
fn utf8_of_len(rng: &mut StdRng, n: usize) -> String {
    let mut s = String::new();
    while s.len() < n {
        if n - s.len() >= 2 && rng.gen_bool(0.3) {
            s.push(['é', 'ß', 'Ω'][rng.gen_range(0..3)]);
        } else {
            s.push(b"abcdefghijklmnopqrstuvwxyz0123456789-"[rng.gen_range(0..37)] as char);
        }
    }
    s
}

fn set_ext(unit: &mut Unit, ext: &Ext) {
    let enable = ext.timestamp as u64
        | (ext.device.is_some() as u64) << 1
        | (ext.path.is_some() as u64) << 2;
    unit.set_u64("ext_enable", enable).unwrap();
    unit.set_u64("ext_class_num", ext.class_num as u64).unwrap();
    unit.set_bytes("ext_device_id", &ext.device_bytes())
        .unwrap();
    unit.set_u64(
        "ext_device_id_len",
        ext.device.as_ref().map_or(0, |d| d.1) as u64,
    )
    .unwrap();
    unit.set_bytes("ext_path_id", &ext.path_bytes()).unwrap();
    unit.set_u64(
        "ext_path_id_len",
        ext.path.as_ref().map_or(0, |p| p.1) as u64,
    )
    .unwrap();
}

impl Job {
    /// A random job: IPv4 or IPv6, a kind the address family allows
    /// (`icmpv6`: whether IPv6 jobs may be kind 2), any ICMPv6 type.
    fn random(rng: &mut StdRng, icmpv6: bool) -> Job {
        let ipv6 = rng.gen_bool(0.5);
        let (src, dst) = if ipv6 {
            (
                IpAddr::V6(Ipv6Addr::from(rng.gen::<u128>())),
                IpAddr::V6(Ipv6Addr::from(rng.gen::<u128>())),
            )
        } else {
            (
                IpAddr::V4(Ipv4Addr::from(rng.gen::<u32>())),
                IpAddr::V4(Ipv4Addr::from(rng.gen::<u32>())),
            )
        };
        let action = [
            Action::Notify,
            Action::Pause,
            Action::RateReduce,
            Action::Resume,
        ][rng.gen_range(0..4)];
        let kind = if ipv6 && icmpv6 && rng.gen_bool(0.4) {
            Kind::LonghaulIcmpv6
        } else if rng.gen_bool(0.6) {
            Kind::LonghaulRocev2
        } else {
            Kind::StandardCnp
        };
        let (src_mac, dst_mac, dscp, pkey, dqp) = (
            rng.gen(),
            rng.gen(),
            rng.gen_range(0..64),
            rng.gen(),
            rng.gen_range(0..1 << 24),
        );
        Job {
            kind,
            src,
            dst,
            src_mac,
            dst_mac,
            dscp,
            pkey,
            dqp,
            body: LonghaulBody {
                congestion_level: rng.gen(),
                action,
                parameter: rng.gen(),
                source_qp: rng.gen_range(0..1 << 24),
                metric_type: rng.gen(),
                metric_value: rng.gen_range(0..1 << 24),
            },
            icmp_type: rng.gen(),
            timestamp: rng.gen(),
            // From the other fields: the other kinds' random stream stays.
            fcn: (
                dqp & 0xF_FFFF,
                (pkey & 7) as u8,
                pkey ^ 0x5A5A,
                dscp % 4 != 0,
            ),
        }
    }

    fn ipv6(&self) -> bool {
        self.src.is_ipv6()
    }

    /// The packet crate's frame for this job without extension objects.
    fn expected(&self) -> Vec<u8> {
        self.expected_with(&Ext::default())
    }

    /// The packet crate's frame for this job with the extension objects of
    /// `ext`: the reference. Kind 2 over IPv4 (a caller error) gives the
    /// standard CNP, as the block documents; a standard CNP has no objects.
    fn expected_with(&self, ext: &Ext) -> Vec<u8> {
        let cnp = LonghaulCnp {
            body: self.body,
            extension: ext.structure(self.timestamp),
        };
        let env = match (self.src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => Envelope::ipv4(s, d),
            (IpAddr::V6(s), IpAddr::V6(d)) => Envelope::ipv6(s, d),
            _ => unreachable!(),
        }
        .with_macs(self.src_mac, self.dst_mac)
        .with_dscp(self.dscp);
        match self.kind {
            Kind::FastCnp => {
                let (IpAddr::V6(s), IpAddr::V6(d)) = (self.src, self.dst) else {
                    unreachable!("Fast CNP jobs are IPv6")
                };
                let (label, level, port, copy) = self.fcn;
                let env = Envelope::ipv6(s, d)
                    .with_macs(self.src_mac, self.dst_mac)
                    .with_dscp(self.dscp);
                let mut f = FastCnp::new(label, level)
                    .to_frame(&env, port, port)
                    .to_bytes();
                if !copy {
                    // The label only in the payload: IPv6 bytes 1..3.
                    f[15] &= 0xF0;
                    f[16] = 0;
                    f[17] = 0;
                }
                f
            }
            Kind::LonghaulRocev2 => {
                let mut lh = LonghaulRocev2::new(self.dqp, cnp);
                lh.pkey = self.pkey;
                lh.to_frame(&env).to_bytes()
            }
            Kind::LonghaulIcmpv6 if self.ipv6() => {
                let mut lh = LonghaulIcmpv6::new(cnp);
                lh.icmp_type = self.icmp_type;
                lh.to_frame(&env).unwrap().to_bytes()
            }
            Kind::StandardCnp | Kind::LonghaulIcmpv6 => {
                let mut cnp = Cnp::new(self.dqp);
                cnp.pkey = self.pkey;
                cnp.to_frame(&env).to_bytes()
            }
        }
    }

    /// Whether the block builds an ICMPv6 frame for this job.
    fn builds_icmpv6(&self) -> bool {
        self.kind == Kind::LonghaulIcmpv6 && self.ipv6()
    }

    /// Where the extension structure starts in this job's frame (a
    /// Long-haul kind), from the draft's layouts: after the 12-byte body
    /// behind the BTH (IPv4: 14 + 20 + 8 + 12, IPv6: 14 + 40 + 8 + 12) or
    /// behind the 4-byte ICMPv6 header.
    fn extension_offset(&self) -> Option<usize> {
        match (self.kind, self.ipv6()) {
            (Kind::LonghaulRocev2, false) => Some(54 + 12),
            (Kind::LonghaulRocev2, true) => Some(74 + 12),
            (Kind::LonghaulIcmpv6, true) => Some(58 + 12),
            _ => None,
        }
    }
}

/// A 16-byte lane-order address (IPv4 as IPv4-mapped).
fn lanes(ip: IpAddr) -> [u8; 16] {
    match ip {
        IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        IpAddr::V6(a) => a.octets(),
    }
}

fn present(unit: &mut Unit, job: &Job) {
    unit.set_u64("job_kind", job.kind as u64).unwrap();
    unit.set_u64("job_ipv6", job.src.is_ipv6() as u64).unwrap();
    unit.set_bytes("job_dst_mac", &job.dst_mac).unwrap();
    unit.set_bytes("job_src_mac", &job.src_mac).unwrap();
    unit.set_bytes("job_src_ip", &lanes(job.src)).unwrap();
    unit.set_bytes("job_dst_ip", &lanes(job.dst)).unwrap();
    unit.set_u64("job_dscp", job.dscp as u64).unwrap();
    unit.set_u64("job_pkey", job.pkey as u64).unwrap();
    unit.set_u64("job_dqp", job.dqp as u64).unwrap();
    let mut body = Vec::new();
    job.body.write(&mut body);
    if job.kind == Kind::FastCnp {
        // The caller's UDP datagram, checksum included.
        body = job.expected()[54..66].to_vec();
    }
    unit.set_bytes("job_body", &body).unwrap();
    let (label, _, _, copy) = job.fcn;
    unit.set_u64("job_flow_label", if copy { label as u64 } else { 0 })
        .unwrap();
    unit.set_u64("job_icmp_type", job.icmp_type as u64).unwrap();
    unit.set_u64("job_timestamp", job.timestamp).unwrap();
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a run gives: the frames; per frame, the clock its job was taken,
/// the clocks from then to its first beat leaving, and the extension
/// configuration the inputs held when it was taken.
struct Run {
    frames: Vec<Vec<u8>>,
    taken_at: Vec<u64>,
    latency: Vec<u64>,
    ext: Vec<Ext>,
}

/// Runs `jobs` through the unit with random idle clocks between jobs
/// (`gap`) and random backpressure, without extension objects.
fn run(jobs: &[Job], gap: f64, backpressure: f64, seed: u64) -> Run {
    run_ext(jobs, gap, backpressure, seed, &mut |_, _| None)
}

/// [`run`] with an extension configuration: `ext(clock, rng)` may change
/// it before any clock (it starts as no objects).
fn run_ext(
    jobs: &[Job],
    gap: f64,
    backpressure: f64,
    seed: u64,
    ext: &mut dyn FnMut(u64, &mut StdRng) -> Option<Ext>,
) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("notify_builder").unwrap();
    let mut config = Ext::default();
    set_ext(&mut unit, &config);
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let mut exts = Vec::new();
    let mut next = 0;
    let mut frames = Vec::new();
    let mut current = Vec::new();
    let mut taken_at = Vec::new();
    let mut latency = Vec::new();
    let mut clocks = 0;
    while frames.len() < jobs.len() {
        clocks += 1;
        assert!(clocks < 100 * (jobs.len() as u64 + 1), "builder stalled");
        if let Some(e) = ext(unit.cycle(), &mut rng) {
            config = e;
            set_ext(&mut unit, &config);
        }
        let offer = next < jobs.len() && !rng.gen_bool(gap);
        if offer {
            present(&mut unit, &jobs[next]);
        }
        unit.set_u64("job_valid", offer as u64).unwrap();
        let ready = !rng.gen_bool(backpressure);
        unit.set_u64("m_tready", ready as u64).unwrap();
        if offer && unit.get_u64("job_ready").unwrap() == 1 {
            taken_at.push(unit.cycle());
            exts.push(config.clone());
            next += 1;
        }
        if ready && unit.get_u64("m_tvalid").unwrap() == 1 {
            assert_eq!(unit.get_u64("m_tuser").unwrap(), 0);
            let keep = unit.get_u64("m_tkeep").unwrap();
            let data = words_to_bytes(&unit.get("m_tdata").unwrap());
            let n = keep.trailing_ones() as usize;
            assert_eq!(keep, if n == 64 { u64::MAX } else { (1 << n) - 1 });
            if current.is_empty() {
                latency.push(unit.cycle() - taken_at[frames.len()]);
            }
            current.extend_from_slice(&data[..n]);
            if unit.get_u64("m_tlast").unwrap() == 1 {
                frames.push(std::mem::take(&mut current));
            }
        }
        unit.step();
    }
    Run {
        frames,
        taken_at,
        latency,
        ext: exts,
    }
}

fn assert_frames_equal(frames: &[Vec<u8>], jobs: &[Job]) {
    assert_eq!(frames.len(), jobs.len());
    for (i, (got, job)) in frames.iter().zip(jobs).enumerate() {
        assert_eq!(got, &job.expected(), "job {i}: {job:?}");
    }
}

#[test]
fn lh_12_notify_builder_frames_equal_the_packet_crate() {
    let mut rng = StdRng::seed_from_u64(12);
    let jobs: Vec<Job> = (0..200).map(|_| Job::random(&mut rng, false)).collect();
    let r = run(&jobs, 0.3, 0.3, 1);
    assert_frames_equal(&r.frames, &jobs);
}

#[test]
fn lh_12_notify_builder_latency_and_rate() {
    let mut rng = StdRng::seed_from_u64(13);
    let jobs: Vec<Job> = (0..20).map(|_| Job::random(&mut rng, false)).collect();
    let r = run(&jobs, 0.0, 0.0, 2);
    assert_eq!(r.frames.len(), 20);
    // Ten clocks from the job being taken to the first beat, as documented.
    assert!(r.latency.iter().all(|&l| l == 10), "{:?}", r.latency);
}

#[test]
fn lh_12_notify_builder_frames_pass_scapy() {
    let mut rng = StdRng::seed_from_u64(14);
    let jobs: Vec<Job> = (0..40).map(|_| Job::random(&mut rng, false)).collect();
    let r = run(&jobs, 0.0, 0.5, 3);
    let Some(dissected) = dissect(&r.frames) else {
        return;
    };
    for (f, job) in dissected.iter().zip(&jobs) {
        assert_checksums_ok(f);
        assert_eq!(get(f, "icrc_ok"), "True", "{job:?}");
        assert_eq!(
            get(f, "BTH.dqpn"),
            job.dqp.to_string(),
            "DestQP = the sender's QP"
        );
        assert_eq!(get(f, "BTH.opcode"), "129");
    }
}

/// Random jobs of every kind, ICMPv6 ones among the IPv6 jobs (any type
/// value), with gaps and backpressure, byte for byte as the packet crate.
#[test]
fn lh_13_notify_builder_icmpv6_frames_equal_the_packet_crate() {
    let mut rng = StdRng::seed_from_u64(130);
    let jobs: Vec<Job> = (0..300).map(|_| Job::random(&mut rng, true)).collect();
    let icmpv6 = jobs.iter().filter(|j| j.builds_icmpv6()).count();
    assert!(icmpv6 >= 40, "only {icmpv6} ICMPv6 jobs");
    let r = run(&jobs, 0.3, 0.3, 131);
    assert_frames_equal(&r.frames, &jobs);
}

/// Ten clocks from a job to its first beat, ICMPv6 (its checksum takes
/// seven) and RoCEv2 kinds alike; back to back, a job every twelve clocks.
#[test]
fn lh_13_notify_builder_latency_and_rate_per_kind() {
    let mut rng = StdRng::seed_from_u64(132);
    let jobs: Vec<Job> = (0..60).map(|_| Job::random(&mut rng, true)).collect();
    assert!(jobs.iter().filter(|j| j.builds_icmpv6()).count() >= 10);
    let r = run(&jobs, 0.0, 0.0, 133);
    assert_frames_equal(&r.frames, &jobs);
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(r.latency[i], 10, "job {i}: {job:?}");
        if i + 1 < jobs.len() {
            assert_eq!(r.taken_at[i + 1] - r.taken_at[i], 12, "job {i}");
        }
    }
}

/// Kind 2 with `job_ipv6` low is a caller error: the block builds the
/// IPv4 standard CNP of the job (P_Key and DestQP included), in ten clocks.
#[test]
fn lh_13_notify_builder_icmpv6_kind_over_ipv4_builds_the_standard_cnp() {
    let mut rng = StdRng::seed_from_u64(134);
    let jobs: Vec<Job> = (0..40)
        .map(|_| {
            let mut j = Job::random(&mut rng, true);
            if !j.ipv6() {
                j.kind = Kind::LonghaulIcmpv6;
            }
            j
        })
        .collect();
    assert!(jobs.iter().filter(|j| !j.ipv6()).count() >= 10);
    let r = run(&jobs, 0.0, 0.0, 135);
    assert_frames_equal(&r.frames, &jobs);
    for (i, job) in jobs.iter().enumerate() {
        if !job.ipv6() {
            let mut cnp = job.clone();
            cnp.kind = Kind::StandardCnp;
            assert_eq!(r.frames[i], cnp.expected(), "job {i}");
            assert_eq!(r.latency[i], 10, "job {i}");
        }
    }
}

/// scapy decodes the ICMPv6 frames as the draft's message: next header 58,
/// payload length 16, the job's type, code 0, the body, and a good ICMPv6
/// checksum (types 200 and 201, RFC 4443's private experimentation values,
/// which scapy does not decode as anything else).
#[test]
fn lh_13_notify_builder_icmpv6_frames_pass_scapy() {
    let mut rng = StdRng::seed_from_u64(136);
    let jobs: Vec<Job> = (0..80)
        .map(|_| {
            let mut j = Job::random(&mut rng, true);
            j.icmp_type = 200 + rng.gen_range(0..2);
            j
        })
        .collect();
    let icmpv6 = jobs.iter().filter(|j| j.builds_icmpv6()).count();
    assert!(icmpv6 >= 10, "only {icmpv6} ICMPv6 jobs");
    let r = run(&jobs, 0.2, 0.5, 137);
    let Some(dissected) = dissect(&r.frames) else {
        return;
    };
    for (f, job) in dissected.iter().zip(&jobs) {
        assert_checksums_ok(f);
        if job.builds_icmpv6() {
            assert_eq!(get(f, "icmpv6_chksum_ok"), "True", "{job:?}");
            assert_eq!(get(f, "IPv6.nh"), "58");
            assert_eq!(get(f, "IPv6.plen"), "16");
            assert_eq!(get(f, "IPv6.hlim"), "64");
            assert_eq!(get(f, "IPv6.fl"), "0");
            assert_eq!(get(f, "IPv6.tc"), (job.dscp << 2).to_string());
            assert_eq!(get(f, "ICMPv6Unknown.type"), job.icmp_type.to_string());
            assert_eq!(get(f, "ICMPv6Unknown.code"), "0");
            let mut body = Vec::new();
            job.body.write(&mut body);
            let hex: String = body.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(get(f, "ICMPv6Unknown.msgbody"), hex);
        } else {
            assert_eq!(get(f, "icrc_ok"), "True", "{job:?}");
        }
    }
}

/// The frame length without extension (the job's kind and family).
fn base_len(job: &Job) -> usize {
    match (job.kind, job.ipv6()) {
        (Kind::LonghaulRocev2, false) | (Kind::LonghaulIcmpv6, true) => 70,
        (Kind::LonghaulRocev2, true) => 90,
        (_, false) => 74,
        (_, true) => 94,
    }
}

/// The extension structure in `frame`, checked without the packet crate:
/// the IP, UDP and ICMPv6 lengths cover it; version 2, reserved zero; the
/// one's complement sum of its 16-bit words (checksum included) is 0xFFFF;
/// the objects are the enabled ones in C-Type order, each with the
/// configured Class-Num, its unpadded length, its payload and zero padding
/// to four bytes, and they fill the structure exactly. A standard CNP (and
/// a Long-haul CNP with no object enabled) has none.
fn check_extension(frame: &[u8], job: &Job, ext: &Ext) {
    let objects = ext.structure(job.timestamp).map(|e| e.objects.len());
    let Some(off) = job.extension_offset().filter(|_| objects.is_some()) else {
        assert_eq!(frame.len(), base_len(job), "no extension: {job:?}");
        return;
    };
    let e = frame.len() - base_len(job);
    assert!(e >= 8 && e.is_multiple_of(4), "extension of {e} bytes");
    let be16 = |at: usize| u16::from_be_bytes([frame[at], frame[at + 1]]) as usize;
    if job.ipv6() {
        assert_eq!(be16(18), frame.len() - 54, "IPv6 payload length");
        if job.kind == Kind::LonghaulRocev2 {
            assert_eq!(be16(58), frame.len() - 54, "UDP length");
        }
    } else {
        assert_eq!(be16(16), frame.len() - 14, "IPv4 total length");
        assert_eq!(be16(38), frame.len() - 34, "UDP length");
    }
    // The RoCEv2 format ends with the 4-byte ICRC after the structure.
    let end = if job.kind == Kind::LonghaulRocev2 {
        frame.len() - 4
    } else {
        frame.len()
    };
    let x = &frame[off..end];
    assert_eq!(x[0], 0x20, "version 2, reserved 0");
    assert_eq!(x[1], 0, "reserved");
    let mut sum: u32 = x
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(w[1]))
        .sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    assert_eq!(sum, 0xFFFF, "extension checksum: {x:02x?}");
    let mut want: Vec<(u8, Vec<u8>)> = Vec::new();
    if ext.timestamp {
        want.push((1, job.timestamp.to_be_bytes().to_vec()));
    }
    if let Some((_, len)) = &ext.device {
        want.push((2, ext.device_bytes()[..(*len as usize).min(16)].to_vec()));
    }
    if let Some((_, len)) = &ext.path {
        want.push((3, ext.path_bytes()[..(*len as usize).min(8)].to_vec()));
    }
    let mut at = 4;
    for (c_type, payload) in want {
        let length = u16::from_be_bytes([x[at], x[at + 1]]) as usize;
        assert_eq!(length, 4 + payload.len(), "object length (unpadded)");
        assert_eq!(x[at + 2], ext.class_num, "Class-Num");
        assert_eq!(x[at + 3], c_type, "C-Type");
        assert_eq!(&x[at + 4..at + length], payload.as_slice());
        let padded = length.div_ceil(4) * 4;
        assert!(
            x[at + length..at + padded].iter().all(|&b| b == 0),
            "padding"
        );
        at += padded;
    }
    assert_eq!(at, x.len(), "the objects fill the structure");
}

fn assert_frames_equal_with_ext(r: &Run, jobs: &[Job]) {
    assert_eq!(r.frames.len(), jobs.len());
    for (i, (got, job)) in r.frames.iter().zip(jobs).enumerate() {
        assert_eq!(
            got,
            &job.expected_with(&r.ext[i]),
            "job {i}: {job:?} {:?}",
            r.ext[i]
        );
        check_extension(got, job, &r.ext[i]);
    }
}

/// Every object combination with every device identifier length (0..16,
/// and lengths beyond 16 that send 16) and every path identifier length
/// (0..8, and beyond), any Class-Num, on random jobs of every kind over
/// IPv4 and IPv6, with gaps and backpressure; the configuration changes
/// while jobs are offered (the block waits for its pipeline): every frame
/// equals the packet crate's with the configuration in force when its job
/// was taken, passes the independent extension check and scapy (ICRC,
/// ICMPv6 checksum, and the extension checksum by `ICMPExtension_Header`).
#[test]
fn lh_12_lh_13_notify_builder_extension_objects_equal_the_packet_crate() {
    let mut frames = Vec::new();
    let mut checked = Vec::new();
    let mut combos = [0usize; 8];
    for device_len in 0..=16usize {
        for path_len in 0..=8usize {
            let seed = (device_len * 16 + path_len) as u64;
            let mut rng = StdRng::seed_from_u64(1200 + seed);
            // Types 200 and 201 (private experimentation), which scapy
            // leaves to ICMPv6Unknown.
            let jobs: Vec<Job> = (0..24)
                .map(|_| {
                    let mut j = Job::random(&mut rng, true);
                    j.icmp_type = 200 + rng.gen_range(0..2);
                    j
                })
                .collect();
            let mut combo = (device_len + path_len) % 8;
            let mut schedule = |clock: u64, rng: &mut StdRng| {
                if !clock.is_multiple_of(23) {
                    return None;
                }
                combo = (combo + 1) % 8;
                let device = utf8_of_len(rng, device_len);
                let path: Vec<u8> = (0..path_len).map(|_| rng.gen()).collect();
                let over = rng.gen_bool(0.25);
                Some(Ext {
                    timestamp: combo & 1 != 0,
                    device: (combo & 2 != 0).then(|| {
                        let len = if over && device_len == 16 {
                            31
                        } else {
                            device_len as u8
                        };
                        (device, len)
                    }),
                    path: (combo & 4 != 0).then(|| {
                        let len = if over && path_len == 8 {
                            15
                        } else {
                            path_len as u8
                        };
                        (path, len)
                    }),
                    class_num: rng.gen(),
                })
            };
            let r = run_ext(&jobs, 0.2, 0.3, 1300 + seed, &mut schedule);
            assert_frames_equal_with_ext(&r, &jobs);
            for (i, job) in jobs.iter().enumerate() {
                let e = &r.ext[i];
                if job.extension_offset().is_some() {
                    combos[e.timestamp as usize
                        | (e.device.is_some() as usize) << 1
                        | (e.path.is_some() as usize) << 2] += 1;
                }
                checked.push((job.clone(), e.clone()));
            }
            frames.extend(r.frames);
        }
    }
    assert!(
        combos.iter().all(|&n| n >= 40),
        "object combinations {combos:?}"
    );
    let Some(dissected) = dissect(&frames) else {
        return;
    };
    let mut with_ext = 0;
    for (f, (job, e)) in dissected.iter().zip(&checked) {
        assert_checksums_ok(f);
        if job.builds_icmpv6() {
            assert_eq!(get(f, "icmpv6_chksum_ok"), "True", "{job:?}");
        } else {
            assert_eq!(get(f, "icrc_ok"), "True", "{job:?}");
        }
        if job.extension_offset().is_some() && e.structure(0).is_some() {
            assert_eq!(get(f, "ext_chksum_ok"), "True", "{job:?} {e:?}");
            with_ext += 1;
        } else {
            assert!(!f.contains_key("ext_chksum_ok"), "{job:?} {e:?}");
        }
    }
    assert!(with_ext >= 1000, "{with_ext} frames with an extension");
}

/// The latency and rate with the largest extension (48 bytes: timestamp,
/// 16-byte device identifier, 8-byte path identifier) and a small one
/// (16 bytes: the timestamp alone): RoCEv2 over IPv4 ten clocks to the
/// first beat and a job every twelve; RoCEv2 over IPv6 the same, eleven
/// and fourteen when the frame needs a third beat (more than 38 bytes of
/// extension: 138 bytes); ICMPv6 ten and twelve (two beats: at most 118
/// bytes). The extension costs no
/// clock beyond the third beat.
#[test]
fn lh_12_lh_13_notify_builder_latency_and_rate_with_extension() {
    let full = Ext {
        timestamp: true,
        device: Some(("gw-paris-1.dc-01".to_string(), 16)),
        path: Some((vec![0x0a, 0x0b, 0x0c, 0x0d, 1, 2, 3, 4], 8)),
        class_num: 247,
    };
    let small = Ext {
        timestamp: true,
        ..Default::default()
    };
    for (ext, e_len) in [(full, 48), (small, 16)] {
        let mut rng = StdRng::seed_from_u64(140 + e_len);
        let jobs: Vec<Job> = (0..60).map(|_| Job::random(&mut rng, true)).collect();
        let mut config = Some(ext.clone());
        let r = run_ext(&jobs, 0.0, 0.0, 141, &mut |_, _| config.take());
        assert_frames_equal_with_ext(&r, &jobs);
        for (i, job) in jobs.iter().enumerate() {
            let len = r.frames[i].len();
            if job.extension_offset().is_some() {
                assert_eq!(len, base_len(job) + e_len as usize, "job {i}");
            }
            let (latency, period) = if !job.builds_icmpv6() && len > 128 {
                (11, 14)
            } else {
                (10, 12)
            };
            assert_eq!(r.latency[i], latency, "job {i}: {job:?} ({len} bytes)");
            if i + 1 < jobs.len() {
                assert_eq!(
                    r.taken_at[i + 1] - r.taken_at[i],
                    period,
                    "job {i} ({len} bytes)"
                );
            }
        }
        if e_len == 48 {
            assert!(r.frames.iter().any(|f| f.len() == 138), "three-beat frames");
        }
    }
}

/// FCN-03: Fast CNP jobs (kind 3: the caller's UDP datagram behind an IPv6
/// header with the flow label, or 0 where it is not copied) among the
/// other kinds, with gaps and backpressure: byte for byte the packet
/// crate's `FastCnp` frames, scapy accepts their UDP checksums, and a Fast
/// CNP's first beat leaves in the clock after its job is taken.
#[test]
fn fcn_03_notify_builder_fast_cnp_frames_equal_the_packet_crate() {
    let mut rng = StdRng::seed_from_u64(33);
    let jobs: Vec<Job> = (0..150)
        .map(|_| {
            let mut j = Job::random(&mut rng, true);
            if rng.gen_bool(0.5) {
                j.kind = Kind::FastCnp;
                j.src = IpAddr::V6(Ipv6Addr::from(rng.gen::<u128>()));
                j.dst = IpAddr::V6(Ipv6Addr::from(rng.gen::<u128>()));
            }
            j
        })
        .collect();
    let r = run(&jobs, 0.3, 0.3, 5);
    assert_frames_equal(&r.frames, &jobs);
    let quiet = run(&jobs, 0.0, 0.0, 6);
    for (job, latency) in jobs.iter().zip(&quiet.latency) {
        if job.kind == Kind::FastCnp {
            assert_eq!(*latency, 1, "{job:?}");
        }
    }
    let fcn: Vec<Vec<u8>> = r
        .frames
        .iter()
        .zip(&jobs)
        .filter(|(_, j)| j.kind == Kind::FastCnp)
        .map(|(f, _)| f.clone())
        .collect();
    assert!(fcn.len() > 50);
    if let Some(dissected) = dissect(&fcn) {
        for f in &dissected {
            assert_checksums_ok(f);
            assert_eq!(get(f, "udp_chksum_ok"), "True", "{f:?}");
        }
    }
}
