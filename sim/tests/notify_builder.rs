//! The notification frame builder, in the Verilog that ships, against the
//! packet crate (LH-12, LH-13): random standard CNPs and Long-haul CNPs in
//! RoCEv2 format over IPv4 and IPv6 and in ICMPv6 format (IPv6 only), taken
//! with random gaps and sent under random backpressure, equal byte for byte
//! to `Cnp`/`LonghaulRocev2`/`LonghaulIcmpv6` frames, and accepted by
//! scapy's RoCE layer (ICRC), IPv4 layer (checksum) and ICMPv6 checksum.

use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
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
        Job {
            kind,
            src,
            dst,
            src_mac: rng.gen(),
            dst_mac: rng.gen(),
            dscp: rng.gen_range(0..64),
            pkey: rng.gen(),
            dqp: rng.gen_range(0..1 << 24),
            body: LonghaulBody {
                congestion_level: rng.gen(),
                action,
                parameter: rng.gen(),
                source_qp: rng.gen_range(0..1 << 24),
                metric_type: rng.gen(),
                metric_value: rng.gen_range(0..1 << 24),
            },
            icmp_type: rng.gen(),
        }
    }

    fn ipv6(&self) -> bool {
        self.src.is_ipv6()
    }

    /// The packet crate's frame for this job: the reference. Kind 2 over
    /// IPv4 (a caller error) gives the standard CNP, as the block documents.
    fn expected(&self) -> Vec<u8> {
        let env = match (self.src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => Envelope::ipv4(s, d),
            (IpAddr::V6(s), IpAddr::V6(d)) => Envelope::ipv6(s, d),
            _ => unreachable!(),
        }
        .with_macs(self.src_mac, self.dst_mac)
        .with_dscp(self.dscp);
        match self.kind {
            Kind::LonghaulRocev2 => {
                let mut lh = LonghaulRocev2::new(self.dqp, LonghaulCnp::new(self.body));
                lh.pkey = self.pkey;
                lh.to_frame(&env).to_bytes()
            }
            Kind::LonghaulIcmpv6 if self.ipv6() => {
                let mut lh = LonghaulIcmpv6::new(LonghaulCnp::new(self.body));
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
    unit.set_bytes("job_body", &body).unwrap();
    unit.set_u64("job_icmp_type", job.icmp_type as u64).unwrap();
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a run gives: the frames; per frame, the clock its job was taken
/// and the clocks from then to its first beat leaving.
struct Run {
    frames: Vec<Vec<u8>>,
    taken_at: Vec<u64>,
    latency: Vec<u64>,
}

/// Runs `jobs` through the unit with random idle clocks between jobs
/// (`gap`) and random backpressure.
fn run(jobs: &[Job], gap: f64, backpressure: f64, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("notify_builder").unwrap();
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let mut next = 0;
    let mut frames = Vec::new();
    let mut current = Vec::new();
    let mut taken_at = Vec::new();
    let mut latency = Vec::new();
    let mut clocks = 0;
    while frames.len() < jobs.len() {
        clocks += 1;
        assert!(clocks < 100 * (jobs.len() as u64 + 1), "builder stalled");
        let offer = next < jobs.len() && !rng.gen_bool(gap);
        if offer {
            present(&mut unit, &jobs[next]);
        }
        unit.set_u64("job_valid", offer as u64).unwrap();
        let ready = !rng.gen_bool(backpressure);
        unit.set_u64("m_tready", ready as u64).unwrap();
        if offer && unit.get_u64("job_ready").unwrap() == 1 {
            taken_at.push(unit.cycle());
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

/// Nine clocks from an ICMPv6 job to its first beat, ten for the RoCEv2
/// kinds; back to back, a job every eleven (ICMPv6) or twelve clocks.
#[test]
fn lh_13_notify_builder_latency_and_rate_per_kind() {
    let mut rng = StdRng::seed_from_u64(132);
    let jobs: Vec<Job> = (0..60).map(|_| Job::random(&mut rng, true)).collect();
    assert!(jobs.iter().filter(|j| j.builds_icmpv6()).count() >= 10);
    let r = run(&jobs, 0.0, 0.0, 133);
    assert_frames_equal(&r.frames, &jobs);
    for (i, job) in jobs.iter().enumerate() {
        let (latency, period) = if job.builds_icmpv6() {
            (9, 11)
        } else {
            (10, 12)
        };
        assert_eq!(r.latency[i], latency, "job {i}: {job:?}");
        if i + 1 < jobs.len() {
            assert_eq!(r.taken_at[i + 1] - r.taken_at[i], period, "job {i}");
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
