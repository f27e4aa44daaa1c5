//! `cngw flows [add|del|lookup]`: the flow table (LH-01) through the driver's
//! typed API (`cngw_driver::flows`).

use crate::cli::{FlowKeyArgs, FlowsArgs, FlowsCommand};
use crate::config::{load, plan_size};
use crate::device::{self, device_error, AnyDevice, DeviceSpec};
use crate::report::json_string;
use anyhow::{bail, Context, Result};
use cngw_driver::config::{apply as apply_plan, Config};
use cngw_driver::flows::{flow_key, key_addr, key_text, FlowEntry, FlowKey};
use std::path::Path;

/// Version of the JSON output; bumped when a field changes meaning or goes.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// What the command asks for, checked before the device is opened.
enum Request {
    List { json: bool },
    Add { key: FlowKey, sqp: u32 },
    Del { key: FlowKey },
    Lookup { key: FlowKey, json: bool },
}

fn key_of(args: &FlowKeyArgs) -> Result<FlowKey> {
    flow_key(args.src, args.dst, args.dqp).map_err(|e| anyhow::anyhow!("{e}; nothing written"))
}

fn request(args: &FlowsArgs) -> Result<Request> {
    if args.json
        && matches!(
            args.command,
            Some(FlowsCommand::Add { .. } | FlowsCommand::Del { .. })
        )
    {
        bail!(
            "--json applies to the list and to `flows lookup`, not to add or del; nothing written"
        );
    }
    Ok(match &args.command {
        None => Request::List { json: args.json },
        Some(FlowsCommand::Add { key, sqp }) => Request::Add {
            key: key_of(key)?,
            sqp: *sqp,
        },
        Some(FlowsCommand::Del { key }) => Request::Del { key: key_of(key)? },
        Some(FlowsCommand::Lookup { key }) => Request::Lookup {
            key: key_of(key)?,
            json: args.json,
        },
    })
}

fn kind(entry: &FlowEntry) -> &'static str {
    if entry.pinned {
        "static"
    } else {
        "learned"
    }
}

fn sqp_text(entry: &FlowEntry) -> String {
    entry.sqp.map_or("-".to_string(), |q| q.to_string())
}

/// One flow as a JSON object (the `FLOW` of the schema in `cngw flows --help`).
pub fn flow_json(key: &FlowKey, entry: &FlowEntry) -> String {
    format!(
        "{{\"src\": {}, \"dst\": {}, \"dqp\": {}, \"sqp\": {}, \"kind\": {}}}",
        json_string(&key_addr(key.sip).to_string()),
        json_string(&key_addr(key.dip).to_string()),
        key.dqp,
        entry.sqp.map_or("null".to_string(), |q| q.to_string()),
        json_string(kind(entry))
    )
}

/// The table of `cngw flows`, sorted by source, destination, DQP.
pub fn flows_table(flows: &[(FlowKey, FlowEntry)]) -> String {
    let rows: Vec<[String; 5]> = flows
        .iter()
        .map(|(key, entry)| {
            [
                key_addr(key.sip).to_string(),
                key_addr(key.dip).to_string(),
                key.dqp.to_string(),
                sqp_text(entry),
                kind(entry).to_string(),
            ]
        })
        .collect();
    let header = ["SOURCE", "DESTINATION", "DQP", "SQP", "KIND"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: [&str; 5]| {
        format!(
            "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        )
    };
    let mut out = line(header);
    out.push('\n');
    for row in &rows {
        out.push_str(&line([&row[0], &row[1], &row[2], &row[3], &row[4]]));
        out.push('\n');
    }
    let statics = flows.iter().filter(|(_, e)| e.pinned).count();
    out.push_str(&format!(
        "{} flow(s): {statics} static, {} learned\n",
        flows.len(),
        flows.len() - statics
    ));
    out
}

/// The JSON of `cngw flows --json`.
pub fn flows_json(flows: &[(FlowKey, FlowEntry)]) -> String {
    let items: Vec<String> = flows
        .iter()
        .map(|(k, e)| format!("    {}", flow_json(k, e)))
        .collect();
    let list = if items.is_empty() {
        "[]".to_string()
    } else {
        format!("[\n{}\n  ]", items.join(",\n"))
    };
    format!(
        "{{\n  \"tool\": \"cngw flows\",\n  \"schema_version\": {JSON_SCHEMA_VERSION},\n  \"flows\": {list}\n}}\n"
    )
}

/// Applies `--config` before the command (its note goes to stderr: stdout may be JSON).
pub fn apply_config(dev: &mut AnyDevice<'_>, config: &Config, path: &Path) -> Result<()> {
    let plan = config
        .plan(dev)
        .with_context(|| format!("configuration {} rejected; nothing written", path.display()))?;
    crate::config::print_warnings(&plan);
    apply_plan(dev, &plan)
        .map_err(device_error)
        .with_context(|| format!("applying {} failed", path.display()))?;
    eprintln!("note: applied {}: {}", path.display(), plan_size(&plan));
    Ok(())
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &FlowsArgs) -> Result<()> {
    // Everything about the request is checked before the device is opened.
    let request = request(args)?;
    let config = args.config.as_deref().map(load).transpose()?;
    let mut dev = device::open(spec, verbose)?;
    if let (Some(config), Some(path)) = (&config, &args.config) {
        apply_config(&mut dev, config, path)?;
    }
    let fresh_sim = *spec == DeviceSpec::Sim && config.is_none();
    let mut table = dev.flow_table();
    match request {
        Request::List { json } => {
            let mut flows = table.list().map_err(device_error)?;
            flows.sort_by_key(|&(key, _)| key);
            if json {
                print!("{}", flows_json(&flows));
            } else {
                print!("{}", flows_table(&flows));
            }
            if fresh_sim {
                eprintln!(
                    "note: --device sim is a fresh simulator for this command only: its flow table \
                     starts empty (--config FILE puts static flows in first)"
                );
            }
        }
        Request::Lookup { key, json } => {
            let found = table.lookup(&key).map_err(device_error)?;
            if json {
                println!(
                    "{{\"tool\": \"cngw flows lookup\", \"schema_version\": {JSON_SCHEMA_VERSION}, \
                     \"found\": {}, \"flow\": {}}}",
                    found.is_some(),
                    found.map_or("null".to_string(), |e| flow_json(&key, &e))
                );
            } else {
                match found {
                    Some(entry) => println!(
                        "{}: SQP {}, {}",
                        key_text(&key),
                        sqp_text(&entry),
                        kind(&entry)
                    ),
                    None => println!("{}: not in the flow table", key_text(&key)),
                }
            }
            if fresh_sim {
                eprintln!(
                    "note: --device sim is a fresh simulator for this command only: its flow table \
                     starts empty (--config FILE puts static flows in first)"
                );
            }
        }
        Request::Add { key, sqp } => {
            let existed = table
                .insert_static(&key, sqp)
                .map_err(device_error)
                .with_context(|| format!("adding {} failed", key_text(&key)))?;
            let back = table.lookup(&key).map_err(device_error)?;
            let expected = FlowEntry {
                sqp: Some(sqp),
                pinned: true,
            };
            if back != Some(expected) {
                bail!(
                    "{} reads back as {back:?}, not a static entry with SQP {sqp}",
                    key_text(&key)
                );
            }
            let what = if existed {
                "updated (it was in the table)"
            } else {
                "inserted"
            };
            println!(
                "{what}: {} <- SQP {sqp}, static; reads back",
                key_text(&key)
            );
            if *spec == DeviceSpec::Sim {
                eprintln!(
                    "note: --device sim is a fresh simulator for this command only; the entry does not persist"
                );
            }
        }
        Request::Del { key } => {
            if !table.delete(&key).map_err(device_error)? {
                let hint = if fresh_sim {
                    " (--device sim starts with an empty table: --config FILE puts static flows in first)"
                } else {
                    ""
                };
                bail!(
                    "{} is not in the flow table; nothing deleted{hint}",
                    key_text(&key)
                );
            }
            println!("deleted {}", key_text(&key));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str, d: &str, q: u32) -> FlowKey {
        flow_key(s.parse().unwrap(), d.parse().unwrap(), q).unwrap()
    }

    #[test]
    fn lh_01_flows_table_and_json() {
        let flows = [
            (
                key("10.0.0.1", "10.0.0.4", 200),
                FlowEntry {
                    sqp: Some(100),
                    pinned: true,
                },
            ),
            (
                key("fd00::1", "fd00::4", 7),
                FlowEntry {
                    sqp: None,
                    pinned: false,
                },
            ),
        ];
        assert_eq!(
            flows_table(&flows),
            "SOURCE    DESTINATION  DQP  SQP  KIND\n\
             10.0.0.1  10.0.0.4     200  100  static\n\
             fd00::1   fd00::4        7    -  learned\n\
             2 flow(s): 1 static, 1 learned\n"
        );
        assert_eq!(
            flows_json(&flows),
            "{\n  \"tool\": \"cngw flows\",\n  \"schema_version\": 1,\n  \"flows\": [\n    \
             {\"src\": \"10.0.0.1\", \"dst\": \"10.0.0.4\", \"dqp\": 200, \"sqp\": 100, \"kind\": \"static\"},\n    \
             {\"src\": \"fd00::1\", \"dst\": \"fd00::4\", \"dqp\": 7, \"sqp\": null, \"kind\": \"learned\"}\n  ]\n}\n"
        );
        assert!(flows_json(&[]).contains("\"flows\": []"));
    }
}
