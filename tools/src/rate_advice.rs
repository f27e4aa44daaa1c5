//! `cngw rate-advice status`: SCONE Rate Advice (RA-01..RA-03) through the
//! driver (`Device::rate_advice`): the port's advised rate, the law's
//! settings, the capable-sender prefixes, the policy caps and the counters.

use crate::cli::RateAdviceStatusArgs;
use crate::config::load;
use crate::device::{self, device_error, DeviceSpec};
use crate::flows::apply_config;
use crate::report::json_string;
use anyhow::Result;
use cngw_driver::RateAdviceState;
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
    out += "counters:\n";
    let c = s.counters;
    for (name, off, value) in [
        ("RA_SENT", offset::RA_SENT, c.sent),
        ("RA_HELD", offset::RA_HELD, c.held),
        ("RA_NO_SQP", offset::RA_NO_SQP, c.no_sqp),
        ("RA_QUEUE_DROPS", offset::RA_QUEUE_DROPS, c.queue_drops),
    ] {
        out += &format!("  {name:<16} {:>6} {value:>12}\n", format!("{off:#05x}"));
    }
    out
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
    let c = s.counters;
    format!(
        "{{\"tool\": \"cngw rate-advice status\", \"schema_version\": {JSON_SCHEMA_VERSION}, \
         \"enabled\": {}, \"law\": {}, \"header_bit\": {}, \"port_rate_mbps\": {}, \
         \"capacity_bytes_per_us\": {}, \
         \"ceiling_mbps\": {}, \"interval_us\": {}, \"alpha_q8\": {}, \"beta_q8\": {}, \
         \"t_over_d_q16\": {}, \"inv_dc_q32\": {}, \"min_mbps\": {}, \"flow_spacing_us\": {}, \
         \"opcode\": {}, \"capable\": [{}], \"policy\": [{}], \"counters\": {{\"sent\": {}, \
         \"held\": {}, \"no_sqp\": {}, \"queue_drops\": {}}}}}\n",
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
    use cngw_driver::{Prefix, RateAdviceCounters};

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
            counters: RateAdviceCounters {
                sent: 7,
                held: 3,
                no_sqp: 2,
                queue_drops: 1,
            },
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
             counters:\n  \
             RA_SENT           0x888            7\n  \
             RA_HELD           0x88c            3\n  \
             RA_NO_SQP         0x890            2\n  \
             RA_QUEUE_DROPS    0x894            1\n"
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
             \"mbps\": 20000}], \"counters\": {\"sent\": 7, \"held\": 3, \"no_sqp\": 2, \
             \"queue_drops\": 1}}\n"
        );
    }
}
