//! `cngw rate-advice status`: SCONE Rate Advice (RA-01..RA-04) through the
//! driver (`Device::rate_advice`): the port's advised rate, the law's
//! settings, the capable-sender prefixes, the policy caps, remote mode (the
//! data-centre port's advice, the peer gateways and their advice) and the
//! counters.

use crate::cli::RateAdviceStatusArgs;
use crate::config::load;
use crate::device::{self, device_error, DeviceSpec};
use crate::flows::apply_config;
use crate::report::json_string;
use anyhow::Result;
use cngw_driver::{RateAdviceState, RatePeerState};
use cngw_regmap::offset;

/// Version of the JSON output; bumped when a field changes meaning or goes.
pub const JSON_SCHEMA_VERSION: u32 = 1;

fn on(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// The text of `cngw rate-advice status`.
pub fn status_text(s: &RateAdviceState) -> String {
    let gbps = f64::from(s.capacity) * 8.0 / 1000.0;
    let mut out = format!(
        "rate advice: {} (FEATURE_ENABLE.rate_advice)\n",
        on(s.enabled)
    );
    out += &format!(
        "advice of the port: {} Mb/s (RA_PORT_RATE_MBPS)\n",
        s.port_rate_mbps
    );
    if s.law {
        out += &format!(
            "law: on (RCP every {} us); capacity {} bytes/us ({gbps:.2} Gb/s); the advice stays \
             within [{}, {}] Mb/s\n",
            s.interval_us,
            s.capacity,
            s.min_mbps,
            s.ceiling_mbps()
        );
    } else {
        out += &format!(
            "law: off; the advice is 8 C = {} Mb/s (capacity {} bytes/us, {gbps:.2} Gb/s), capped \
             by the policy entries\n",
            s.ceiling_mbps(),
            s.capacity
        );
    }
    out += &format!(
        "  T/d {}/65536 ({:.4}), 1/(d C) {}/2^32, alpha {}/256 ({:.3}), beta {}/256 ({:.3})\n",
        s.t_over_d_q16,
        f64::from(s.t_over_d_q16) / 65536.0,
        s.inv_dc_q32,
        s.alpha_q8,
        f64::from(s.alpha_q8) / 256.0,
        s.beta_q8,
        f64::from(s.beta_q8) / 256.0
    );
    out += &format!(
        "messages: BTH opcode {:#04x}; a changed advice at most once per {} us per flow\n",
        s.opcode, s.flow_spacing_us
    );
    if s.capable.is_empty() && !s.header_bit {
        out += "capable senders (RA-01): none (no sender is sent Rate Advice)\n";
    } else {
        out += "capable senders (RA-01):\n";
        for (i, p) in &s.capable {
            out += &format!("  {i}  {p}\n");
        }
        if s.header_bit {
            out += "  and the sender of every frame with the BTH capability bit \
                    (RA_CONTROL.header_bit)\n";
        }
    }
    if s.policy.is_empty() {
        out += "policy caps (RA-02): none\n";
    } else {
        out += "policy caps (RA-02):\n";
        let width = s
            .policy
            .iter()
            .map(|(_, p, _)| p.to_string().len())
            .max()
            .unwrap_or(0);
        for (i, p, mbps) in &s.policy {
            out += &format!("  {i}  {:<width$}  {mbps} Mb/s\n", p.to_string());
        }
    }
    out += &format!(
        "remote mode (RA-04): send {}, accept {} (RA_REMOTE_CONTROL)\n",
        on(s.remote_send),
        on(s.remote_accept)
    );
    out += &format!(
        "  advice of the data-centre port: {} Mb/s (RA_DC_PORT_RATE_MBPS); capacity {} bytes/us \
         ({:.2} Gb/s, ceiling {} Mb/s), 1/(d C) {}/2^32\n",
        s.dc_port_rate_mbps,
        s.dc_capacity,
        f64::from(s.dc_capacity) * 8.0 / 1000.0,
        s.dc_ceiling_mbps(),
        s.dc_inv_dc_q32
    );
    if s.remote_timeout_us == 0 {
        out += "  a peer's advice never lapses (RA_REMOTE_TIMEOUT_US 0)\n";
    } else {
        out += &format!(
            "  a peer's advice lapses {} us after its last message (RA_REMOTE_TIMEOUT_US)\n",
            s.remote_timeout_us
        );
    }
    for (i, p) in s.peers.iter().enumerate() {
        out += &format!("  peer {i}: {}\n", peer_text(p));
    }
    out += "counters:\n";
    let c = s.counters;
    for (name, off, value) in [
        ("RA_SENT", offset::RA_SENT, c.sent),
        ("RA_HELD", offset::RA_HELD, c.held),
        ("RA_NO_SQP", offset::RA_NO_SQP, c.no_sqp),
        ("RA_QUEUE_DROPS", offset::RA_QUEUE_DROPS, c.queue_drops),
        ("RA_REMOTE_SENT", offset::RA_REMOTE_SENT, c.remote_sent),
        (
            "RA_REMOTE_RECEIVED",
            offset::RA_REMOTE_RECEIVED,
            c.remote_received,
        ),
        (
            "RA_REMOTE_REFUSED",
            offset::RA_REMOTE_REFUSED,
            c.remote_refused,
        ),
    ] {
        out += &format!("  {name:<18} {:>6} {value:>12}\n", format!("{off:#05x}"));
    }
    out
}

/// One peer gateway slot of the text: its address, the prefix behind it
/// and the advice in force.
fn peer_text(p: &RatePeerState) -> String {
    let advice = if p.mbps == 0 {
        "no advice in force (none received, or lapsed)".to_string()
    } else {
        format!("advice in force {} Mb/s", p.mbps)
    };
    match &p.peer {
        Some(peer) => format!("{} in front of {}; {advice}", peer.address, peer.prefix),
        None if p.mbps == 0 => "not in use".to_string(),
        None => format!("not in use; {advice}"),
    }
}

/// The JSON of `cngw rate-advice status --json`.
pub fn status_json(s: &RateAdviceState) -> String {
    let capable: Vec<String> = s
        .capable
        .iter()
        .map(|(i, p)| {
            format!(
                "{{\"index\": {i}, \"prefix\": {}}}",
                json_string(&p.to_string())
            )
        })
        .collect();
    let policy: Vec<String> = s
        .policy
        .iter()
        .map(|(i, p, mbps)| {
            format!(
                "{{\"index\": {i}, \"prefix\": {}, \"mbps\": {mbps}}}",
                json_string(&p.to_string())
            )
        })
        .collect();
    let peers: Vec<String> = s
        .peers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (address, prefix) = match &p.peer {
                Some(peer) => (
                    json_string(&peer.address.to_string()),
                    json_string(&peer.prefix.to_string()),
                ),
                None => ("null".to_string(), "null".to_string()),
            };
            format!(
                "{{\"index\": {i}, \"valid\": {}, \"address\": {address}, \"prefix\": {prefix}, \
                 \"mbps\": {}}}",
                p.peer.is_some(),
                p.mbps
            )
        })
        .collect();
    let c = s.counters;
    let remote = format!(
        "{{\"send\": {}, \"accept\": {}, \"timeout_us\": {}, \"dc_port_rate_mbps\": {}, \
         \"dc_capacity_bytes_per_us\": {}, \"dc_ceiling_mbps\": {}, \"dc_inv_dc_q32\": {}, \
         \"peers\": [{}], \"counters\": {{\"sent\": {}, \"received\": {}, \"refused\": {}}}}}",
        s.remote_send,
        s.remote_accept,
        s.remote_timeout_us,
        s.dc_port_rate_mbps,
        s.dc_capacity,
        s.dc_ceiling_mbps(),
        s.dc_inv_dc_q32,
        peers.join(", "),
        c.remote_sent,
        c.remote_received,
        c.remote_refused
    );
    format!(
        "{{\"tool\": \"cngw rate-advice status\", \"schema_version\": {JSON_SCHEMA_VERSION}, \
         \"enabled\": {}, \"law\": {}, \"header_bit\": {}, \"port_rate_mbps\": {}, \
         \"capacity_bytes_per_us\": {}, \
         \"ceiling_mbps\": {}, \"interval_us\": {}, \"alpha_q8\": {}, \"beta_q8\": {}, \
         \"t_over_d_q16\": {}, \"inv_dc_q32\": {}, \"min_mbps\": {}, \"flow_spacing_us\": {}, \
         \"opcode\": {}, \"capable\": [{}], \"policy\": [{}], \"remote\": {remote}, \
         \"counters\": {{\"sent\": {}, \"held\": {}, \"no_sqp\": {}, \"queue_drops\": {}}}}}\n",
        s.enabled,
        s.law,
        s.header_bit,
        s.port_rate_mbps,
        s.capacity,
        s.ceiling_mbps(),
        s.interval_us,
        s.alpha_q8,
        s.beta_q8,
        s.t_over_d_q16,
        s.inv_dc_q32,
        s.min_mbps,
        s.flow_spacing_us,
        s.opcode,
        capable.join(", "),
        policy.join(", "),
        c.sent,
        c.held,
        c.no_sqp,
        c.queue_drops
    )
}

pub fn status(spec: &DeviceSpec, verbose: bool, args: &RateAdviceStatusArgs) -> Result<()> {
    // The configuration is read and parsed before the device is opened.
    let config = args.config.as_deref().map(load).transpose()?;
    let mut dev = device::open(spec, verbose)?;
    if let (Some(config), Some(path)) = (&config, &args.config) {
        apply_config(&mut dev, config, path)?;
    }
    let state = dev.rate_advice().map_err(device_error)?;
    if args.json {
        print!("{}", status_json(&state));
    } else {
        print!("{}", status_text(&state));
    }
    if *spec == DeviceSpec::Sim && config.is_none() {
        eprintln!(
            "note: --device sim is a fresh simulator for this command only: it shows the reset \
             state ([rate_advice] in --config FILE sets it up first)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_driver::{Prefix, RateAdviceCounters, RatePeer};

    fn state() -> RateAdviceState {
        RateAdviceState {
            enabled: true,
            law: true,
            header_bit: false,
            opcode: 0x1D,
            capacity: 12_500,
            interval_us: 1_000,
            alpha_q8: 102,
            beta_q8: 58,
            t_over_d_q16: 6_554,
            inv_dc_q32: 34,
            min_mbps: 100,
            flow_spacing_us: 1_000,
            port_rate_mbps: 42_000,
            capable: vec![(1, Prefix::parse("2001:db8::/32").unwrap())],
            policy: vec![(0, Prefix::parse("10.1.2.0/24").unwrap(), 20_000)],
            remote_send: false,
            remote_accept: false,
            remote_timeout_us: 10_000,
            dc_capacity: 12_500,
            dc_inv_dc_q32: 34,
            dc_port_rate_mbps: 100_000,
            peers: Default::default(),
            counters: RateAdviceCounters {
                sent: 7,
                held: 3,
                no_sqp: 2,
                queue_drops: 1,
                remote_sent: 0,
                remote_received: 0,
                remote_refused: 0,
            },
        }
    }

    /// A source gateway with both peers: an IPv4 one whose advice is in
    /// force, an IPv6 one whose advice lapsed.
    fn remote_state() -> RateAdviceState {
        RateAdviceState {
            remote_send: true,
            remote_accept: true,
            remote_timeout_us: 0,
            dc_capacity: 6_250,
            dc_inv_dc_q32: 69,
            dc_port_rate_mbps: 31_000,
            peers: [
                RatePeerState {
                    peer: Some(RatePeer {
                        address: "198.51.100.1".parse().unwrap(),
                        prefix: Prefix::parse("10.2.0.0/16").unwrap(),
                    }),
                    mbps: 25_000,
                },
                RatePeerState {
                    peer: Some(RatePeer {
                        address: "2001:db8::1".parse().unwrap(),
                        prefix: Prefix::parse("2001:db8:200::/40").unwrap(),
                    }),
                    mbps: 0,
                },
            ],
            counters: RateAdviceCounters {
                remote_sent: 11,
                remote_received: 5,
                remote_refused: 4,
                ..state().counters
            },
            ..state()
        }
    }

    #[test]
    fn ra_03_status_text_shows_settings_entries_and_counters() {
        let text = status_text(&state());
        assert_eq!(
            text,
            "rate advice: on (FEATURE_ENABLE.rate_advice)\n\
             advice of the port: 42000 Mb/s (RA_PORT_RATE_MBPS)\n\
             law: on (RCP every 1000 us); capacity 12500 bytes/us (100.00 Gb/s); the advice \
             stays within [100, 100000] Mb/s\n  \
             T/d 6554/65536 (0.1000), 1/(d C) 34/2^32, alpha 102/256 (0.398), beta 58/256 \
             (0.227)\n\
             messages: BTH opcode 0x1d; a changed advice at most once per 1000 us per flow\n\
             capable senders (RA-01):\n  1  2001:db8::/32\n\
             policy caps (RA-02):\n  0  10.1.2.0/24  20000 Mb/s\n\
             remote mode (RA-04): send off, accept off (RA_REMOTE_CONTROL)\n  \
             advice of the data-centre port: 100000 Mb/s (RA_DC_PORT_RATE_MBPS); capacity 12500 \
             bytes/us (100.00 Gb/s, ceiling 100000 Mb/s), 1/(d C) 34/2^32\n  \
             a peer's advice lapses 10000 us after its last message (RA_REMOTE_TIMEOUT_US)\n  \
             peer 0: not in use\n  \
             peer 1: not in use\n\
             counters:\n  \
             RA_SENT             0x888            7\n  \
             RA_HELD             0x88c            3\n  \
             RA_NO_SQP           0x890            2\n  \
             RA_QUEUE_DROPS      0x894            1\n  \
             RA_REMOTE_SENT      0x904            0\n  \
             RA_REMOTE_RECEIVED  0x908            0\n  \
             RA_REMOTE_REFUSED   0x90c            0\n"
        );
        let off = RateAdviceState {
            law: false,
            capable: Vec::new(),
            policy: Vec::new(),
            ..state()
        };
        let text = status_text(&off);
        assert!(
            text.contains("law: off; the advice is 8 C = 100000 Mb/s"),
            "{text}"
        );
        assert!(
            text.contains("capable senders (RA-01): none (no sender is sent Rate Advice)\n"),
            "{text}"
        );
        assert!(text.contains("policy caps (RA-02): none\n"), "{text}");
    }

    #[test]
    fn ra_03_status_json_names_every_field() {
        let json = status_json(&state());
        assert_eq!(
            json,
            "{\"tool\": \"cngw rate-advice status\", \"schema_version\": 1, \"enabled\": true, \
             \"law\": true, \"header_bit\": false, \"port_rate_mbps\": 42000, \
             \"capacity_bytes_per_us\": 12500, \
             \"ceiling_mbps\": 100000, \"interval_us\": 1000, \"alpha_q8\": 102, \"beta_q8\": 58, \
             \"t_over_d_q16\": 6554, \"inv_dc_q32\": 34, \"min_mbps\": 100, \
             \"flow_spacing_us\": 1000, \"opcode\": 29, \"capable\": [{\"index\": 1, \"prefix\": \
             \"2001:db8::/32\"}], \"policy\": [{\"index\": 0, \"prefix\": \"10.1.2.0/24\", \
             \"mbps\": 20000}], \"remote\": {\"send\": false, \"accept\": false, \"timeout_us\": \
             10000, \"dc_port_rate_mbps\": 100000, \"dc_capacity_bytes_per_us\": 12500, \
             \"dc_ceiling_mbps\": 100000, \"dc_inv_dc_q32\": 34, \"peers\": [{\"index\": 0, \
             \"valid\": false, \"address\": null, \"prefix\": null, \"mbps\": 0}, {\"index\": 1, \
             \"valid\": false, \"address\": null, \"prefix\": null, \"mbps\": 0}], \"counters\": \
             {\"sent\": 0, \"received\": 0, \"refused\": 0}}, \"counters\": {\"sent\": 7, \
             \"held\": 3, \"no_sqp\": 2, \"queue_drops\": 1}}\n"
        );
    }

    #[test]
    fn ra_04_status_text_shows_remote_mode_and_peers() {
        let text = status_text(&remote_state());
        for line in [
            "remote mode (RA-04): send on, accept on (RA_REMOTE_CONTROL)\n",
            "  advice of the data-centre port: 31000 Mb/s (RA_DC_PORT_RATE_MBPS); capacity 6250 \
             bytes/us (50.00 Gb/s, ceiling 50000 Mb/s), 1/(d C) 69/2^32\n",
            "  a peer's advice never lapses (RA_REMOTE_TIMEOUT_US 0)\n",
            "  peer 0: 198.51.100.1 in front of 10.2.0.0/16; advice in force 25000 Mb/s\n",
            "  peer 1: 2001:db8::1 in front of 2001:db8:200::/40; no advice in force (none \
             received, or lapsed)\n",
            "  RA_REMOTE_SENT      0x904           11\n",
            "  RA_REMOTE_RECEIVED  0x908            5\n",
            "  RA_REMOTE_REFUSED   0x90c            4\n",
        ] {
            assert!(text.contains(line), "{line:?} missing:\n{text}");
        }
        // The remote lines come after the policy caps, before the counters.
        let at = |needle: &str| text.find(needle).unwrap();
        assert!(at("policy caps") < at("remote mode") && at("peer 1:") < at("counters:"));
    }

    #[test]
    fn ra_04_status_json_shows_remote_mode_and_peers() {
        let json = status_json(&remote_state());
        let needle = "\"remote\": {\"send\": true, \"accept\": true, \"timeout_us\": 0, \
                      \"dc_port_rate_mbps\": 31000, \"dc_capacity_bytes_per_us\": 6250, \
                      \"dc_ceiling_mbps\": 50000, \"dc_inv_dc_q32\": 69, \"peers\": [{\"index\": \
                      0, \"valid\": true, \"address\": \"198.51.100.1\", \"prefix\": \
                      \"10.2.0.0/16\", \"mbps\": 25000}, {\"index\": 1, \"valid\": true, \
                      \"address\": \"2001:db8::1\", \"prefix\": \"2001:db8:200::/40\", \"mbps\": \
                      0}], \"counters\": {\"sent\": 11, \"received\": 5, \"refused\": 4}}, \
                      \"counters\": {\"sent\": 7, ";
        assert!(json.contains(needle), "{needle:?} missing:\n{json}");
    }
}
