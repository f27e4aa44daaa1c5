//! The notification frame builder, in the Verilog that ships, against the
//! packet crate (LH-12): random standard CNPs and Long-haul CNPs in RoCEv2
//! format over IPv4 and IPv6, taken with random gaps and sent under random
//! backpressure, equal byte for byte to `Cnp`/`LonghaulRocev2` frames, and
//! accepted by scapy's RoCE layer (ICRC) and IPv4 layer (checksum).

use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_sim::Unit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[derive(Clone, Debug)]
struct Job {
    longhaul: bool,
    src: IpAddr,
    dst: IpAddr,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    dscp: u8,
    pkey: u16,
    dqp: u32,
    body: LonghaulBody,
}

impl Job {
    fn random(rng: &mut StdRng) -> Job {
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
        Job {
            longhaul: rng.gen_bool(0.6),
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
        }
    }

    /// The packet crate's frame for this job: the reference.
    fn expected(&self) -> Vec<u8> {
        let env = match (self.src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => Envelope::ipv4(s, d),
            (IpAddr::V6(s), IpAddr::V6(d)) => Envelope::ipv6(s, d),
            _ => unreachable!(),
        }
        .with_macs(self.src_mac, self.dst_mac)
        .with_dscp(self.dscp);
        if self.longhaul {
            let mut lh = LonghaulRocev2::new(self.dqp, LonghaulCnp::new(self.body));
            lh.pkey = self.pkey;
            lh.to_frame(&env).to_bytes()
        } else {
            let mut cnp = Cnp::new(self.dqp);
            cnp.pkey = self.pkey;
            cnp.to_frame(&env).to_bytes()
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
    unit.set_u64("job_kind", job.longhaul as u64).unwrap();
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
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs `jobs` through the unit; returns the frames and, per frame, the
/// clocks from the job being taken to its first beat leaving.
fn run(jobs: &[Job], gap: f64, backpressure: f64, seed: u64) -> (Vec<Vec<u8>>, Vec<u64>) {
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
    (frames, latency)
}

#[test]
fn lh_12_notify_builder_frames_equal_the_packet_crate() {
    let mut rng = StdRng::seed_from_u64(12);
    let jobs: Vec<Job> = (0..200).map(|_| Job::random(&mut rng)).collect();
    let (frames, _) = run(&jobs, 0.3, 0.3, 1);
    for (i, (got, job)) in frames.iter().zip(&jobs).enumerate() {
        assert_eq!(got, &job.expected(), "job {i}: {job:?}");
    }
}

#[test]
fn lh_12_notify_builder_latency_and_rate() {
    let mut rng = StdRng::seed_from_u64(13);
    let jobs: Vec<Job> = (0..20).map(|_| Job::random(&mut rng)).collect();
    let (frames, latency) = run(&jobs, 0.0, 0.0, 2);
    assert_eq!(frames.len(), 20);
    // Ten clocks from the job being taken to the first beat, as documented.
    assert!(latency.iter().all(|&l| l == 10), "{latency:?}");
}

#[test]
fn lh_12_notify_builder_frames_pass_scapy() {
    let mut rng = StdRng::seed_from_u64(14);
    let jobs: Vec<Job> = (0..40).map(|_| Job::random(&mut rng)).collect();
    let (frames, _) = run(&jobs, 0.0, 0.5, 3);
    let Some(dissected) = dissect(&frames) else {
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
