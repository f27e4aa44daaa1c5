//! `cngw shaper`: the ingress PE's per-flow shaper (PE-05) through the
//! driver (`cngw_driver::shaper`): its settings, the flows it shapes now
//! (each slot's label resolved to its flow-table entry) and its counters.

use crate::cli::ShaperArgs;
use crate::config::load;
use crate::device::{self, device_error, DeviceSpec};
use crate::flows::apply_config;
use crate::report::json_string;
use anyhow::{Context, Result};
use cngw_driver::flows::{key_addr, FlowKey};
use cngw_driver::{label_location, ShaperState};

/// Version of the JSON output; bumped when a field changes meaning or goes.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// Bytes per microsecond as Gb/s.
fn gbps(bytes_per_us: u32) -> String {
    format!("{:.2}", bytes_per_us as f64 * 8.0 / 1000.0)
}

fn flow_text(key: &Option<FlowKey>) -> String {
    match key {
        Some(k) => format!("{} -> {} DQP {}", key_addr(k.sip), key_addr(k.dip), k.dqp),
        None => "(no entry)".to_string(),
    }
}

/// The text of `cngw shaper`: settings, one row per shaped flow, counters.
pub fn shaper_text(s: &ShaperState, flows: &[Option<FlowKey>]) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    let mut out = format!(
        "shaper: {}; alternate path: {}{}\n",
        on(s.enabled),
        on(s.alt_enabled),
        if s.alt_enabled {
            format!(
                " (TUNNEL_ALT_SID*, {} SID{}) at {} Gb/s or below, back at {} Gb/s",
                if s.alt_two_sids { 2 } else { 1 },
                if s.alt_two_sids { "s" } else { "" },
                gbps(s.alt_below),
                gbps(s.alt_above)
            )
        } else {
            String::new()
        }
    );
    out.push_str(&format!(
        "rate {} to {} Gb/s ({} to {} bytes/us); each light notification cuts rate >> {}; \
         +{} Gb/s every {} quiet us; burst {} bytes\n",
        gbps(s.min_rate),
        gbps(s.max_rate),
        s.min_rate,
        s.max_rate,
        s.cut_shift,
        gbps(s.recover_step),
        s.recover_us,
        s.burst
    ));
    let rows: Vec<[String; 7]> = s
        .slots
        .iter()
        .zip(flows)
        .map(|(slot, key)| {
            [
                slot.slot.to_string(),
                slot.label.to_string(),
                flow_text(key),
                gbps(slot.rate),
                slot.tokens.to_string(),
                if slot.alt { "alternate" } else { "primary" }.to_string(),
                slot.waiting.to_string(),
            ]
        })
        .collect();
    let header = ["SLOT", "LABEL", "FLOW", "GBPS", "TOKENS", "PATH", "WAITING"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: [&str; 7]| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            // Text left, numbers right.
            let text = i == 2 || i == 5;
            if text {
                l.push_str(&format!("{cell:<w$}"));
            } else {
                l.push_str(&format!("{cell:>w$}"));
            }
            if i + 1 < cells.len() {
                l.push_str("  ");
            }
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(header));
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]]));
    }
    let c = s.counters;
    out.push_str(&format!(
        "{} flow(s) shaped; shaped frames {}, notifications taken {}, dropped (slots full) {}, \
         reroutes {}, returns {}\n",
        s.slots.len(),
        c.shaped_frames,
        c.notes_taken,
        c.notes_dropped,
        c.reroutes,
        c.returns
    ));
    out
}

/// The JSON of `cngw shaper --json`.
pub fn shaper_json(s: &ShaperState, flows: &[Option<FlowKey>]) -> String {
    let slots: Vec<String> = s
        .slots
        .iter()
        .zip(flows)
        .map(|(slot, key)| {
            let flow = match key {
                Some(k) => format!(
                    "{{\"src\": {}, \"dst\": {}, \"dqp\": {}}}",
                    json_string(&key_addr(k.sip).to_string()),
                    json_string(&key_addr(k.dip).to_string()),
                    k.dqp
                ),
                None => "null".to_string(),
            };
            format!(
                "    {{\"slot\": {}, \"label\": {}, \"flow\": {flow}, \"rate_bytes_per_us\": {}, \
                 \"tokens\": {}, \"alternate_path\": {}, \"waiting_frames\": {}}}",
                slot.slot, slot.label, slot.rate, slot.tokens, slot.alt, slot.waiting
            )
        })
        .collect();
    let list = if slots.is_empty() {
        "[]".to_string()
    } else {
        format!("[\n{}\n  ]", slots.join(",\n"))
    };
    let c = s.counters;
    format!(
        "{{\n  \"tool\": \"cngw shaper\",\n  \"schema_version\": {JSON_SCHEMA_VERSION},\n  \
         \"enabled\": {},\n  \"alternate_path\": {},\n  \"alternate_two_sids\": {},\n  \
         \"max_rate_bytes_per_us\": {},\n  \"min_rate_bytes_per_us\": {},\n  \"cut_shift\": {},\n  \
         \"recover_us\": {},\n  \"recover_step_bytes_per_us\": {},\n  \"burst_bytes\": {},\n  \
         \"alt_below_bytes_per_us\": {},\n  \"alt_above_bytes_per_us\": {},\n  \"slots\": {list},\n  \
         \"counters\": {{\"shaped_frames\": {}, \"notes_taken\": {}, \"notes_dropped\": {}, \
         \"reroutes\": {}, \"returns\": {}}}\n}}\n",
        s.enabled,
        s.alt_enabled,
        s.alt_two_sids,
        s.max_rate,
        s.min_rate,
        s.cut_shift,
        s.recover_us,
        s.recover_step,
        s.burst,
        s.alt_below,
        s.alt_above,
        c.shaped_frames,
        c.notes_taken,
        c.notes_dropped,
        c.reroutes,
        c.returns
    )
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &ShaperArgs) -> Result<()> {
    let config = args.config.as_deref().map(load).transpose()?;
    let mut dev = device::open(spec, verbose)?;
    if let (Some(config), Some(path)) = (&config, &args.config) {
        apply_config(&mut dev, config, path)?;
    }
    let state = dev
        .shaper()
        .map_err(device_error)
        .context("reading the shaper (PE_SHAPER_*) failed")?;
    let mut flows = Vec::new();
    for slot in &state.slots {
        let key = match label_location(slot.label) {
            Some(place) => dev
                .flow_table()
                .read_location(place)
                .map_err(device_error)?
                .map(|(k, _)| k),
            None => None,
        };
        flows.push(key);
    }
    if args.json {
        print!("{}", shaper_json(&state, &flows));
    } else {
        print!("{}", shaper_text(&state, &flows));
    }
    if *spec == DeviceSpec::Sim {
        eprintln!(
            "note: --device sim is a fresh simulator for this command only: no traffic has \
             crossed it, so no flow is shaped"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_driver::{ShaperCounters, ShaperSlot};

    fn state() -> ShaperState {
        ShaperState {
            enabled: true,
            alt_enabled: true,
            alt_two_sids: true,
            cut_shift: 3,
            max_rate: 12_500,
            min_rate: 1_250,
            recover_us: 55,
            recover_step: 1_250,
            burst: 65_536,
            alt_below: 6_250,
            alt_above: 10_000,
            slots: vec![
                ShaperSlot {
                    slot: 0,
                    label: 42,
                    rate: 5_000,
                    tokens: -1_500,
                    alt: true,
                    waiting: 3,
                },
                ShaperSlot {
                    slot: 5,
                    label: 16_390,
                    rate: 10_937,
                    tokens: 65_536,
                    alt: false,
                    waiting: 0,
                },
            ],
            counters: ShaperCounters {
                shaped_frames: 900,
                notes_taken: 12,
                notes_dropped: 1,
                reroutes: 2,
                returns: 1,
            },
        }
    }

    fn flows() -> Vec<Option<FlowKey>> {
        let v4 = |a: [u8; 4]| u128::from(std::net::Ipv4Addr::from(a).to_ipv6_mapped());
        vec![
            Some(FlowKey {
                sip: v4([10, 0, 0, 1]),
                dip: v4([10, 0, 0, 4]),
                dqp: 200,
            }),
            None,
        ]
    }

    #[test]
    fn pe_05_shaper_table_shows_settings_flows_and_counters() {
        let text = shaper_text(&state(), &flows());
        assert_eq!(
            text,
            "shaper: on; alternate path: on (TUNNEL_ALT_SID*, 2 SIDs) at 50.00 Gb/s or below, \
             back at 80.00 Gb/s\n\
             rate 10.00 to 100.00 Gb/s (1250 to 12500 bytes/us); each light notification cuts \
             rate >> 3; +10.00 Gb/s every 55 quiet us; burst 65536 bytes\n\
             SLOT  LABEL  FLOW                           GBPS  TOKENS  PATH       WAITING\n   \
             0     42  10.0.0.1 -> 10.0.0.4 DQP 200  40.00   -1500  alternate        3\n   \
             5  16390  (no entry)                    87.50   65536  primary          0\n\
             2 flow(s) shaped; shaped frames 900, notifications taken 12, dropped (slots full) 1, \
             reroutes 2, returns 1\n"
        );
    }

    #[test]
    fn pe_05_shaper_json_names_every_field() {
        let json = shaper_json(&state(), &flows());
        for needle in [
            "\"tool\": \"cngw shaper\"",
            "\"enabled\": true",
            "\"max_rate_bytes_per_us\": 12500",
            "{\"slot\": 0, \"label\": 42, \"flow\": {\"src\": \"10.0.0.1\", \"dst\": \"10.0.0.4\", \
             \"dqp\": 200}, \"rate_bytes_per_us\": 5000, \"tokens\": -1500, \"alternate_path\": \
             true, \"waiting_frames\": 3}",
            "\"flow\": null",
            "\"counters\": {\"shaped_frames\": 900, \"notes_taken\": 12, \"notes_dropped\": 1, \
             \"reroutes\": 2, \"returns\": 1}",
        ] {
            assert!(json.contains(needle), "{needle} in {json}");
        }
        let off = ShaperState {
            slots: Vec::new(),
            ..state()
        };
        assert!(shaper_json(&off, &[]).contains("\"slots\": [],"));
    }
}
