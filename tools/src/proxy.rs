//! `cngw proxy`: the prefix -> proxy table (PX-03) through the driver
//! (`cngw_driver::proxy_table`): list, add, delete, look up, and program it
//! from PNC advertisements (`cngw_packet::pnc`).

use crate::cli::{PncProtocol, ProxyArgs, ProxyCommand};
use crate::config::load;
use crate::device::{self, device_error, AnyDevice, DeviceSpec};
use crate::flows::apply_config;
use crate::report::json_string;
use anyhow::{anyhow, Context, Result};
use cngw_driver::proxy_table::checked_prefix;
use cngw_driver::{Prefix, ProxyRoute};
use cngw_packet::pnc::{self, PncAdvertisement, PncCodes, Protocol};
use std::net::IpAddr;

/// Version of the JSON output; bumped when a field changes meaning or goes.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// A prefix of an advertisement as the driver's prefix type.
fn prefix_of(p: &pnc::Prefix) -> Prefix {
    Prefix {
        addr: p.addr,
        len: p.len,
    }
}

/// Prefixes and their proxies.
type Routes = Vec<(Prefix, IpAddr)>;
/// Prefixes left out, and why.
type Skipped = Vec<(Prefix, String)>;

/// What `import` programs: (prefix, proxy) pairs, and what it skips, why.
pub fn import_plan(ads: &[PncAdvertisement]) -> (Routes, Skipped) {
    let mut routes: Vec<(Prefix, IpAddr)> = Vec::new();
    let mut skipped = Vec::new();
    for ad in ads {
        let prefix = prefix_of(&ad.prefix);
        if !ad.pnc {
            skipped.push((prefix, "no PNC".to_string()));
            continue;
        }
        let Some(proxy) = ad.proxy else {
            skipped.push((
                prefix,
                "the advertisement does not name its originator (resolve it from the LSDB, then `cngw proxy add`)"
                    .to_string(),
            ));
            continue;
        };
        if proxy.is_ipv4() != prefix.addr.is_ipv4() {
            skipped.push((
                prefix,
                format!("proxy {proxy} is not of the prefix's family"),
            ));
            continue;
        }
        // A later advertisement of the same prefix replaces an earlier one.
        routes.retain(|(p, _)| *p != prefix);
        routes.push((prefix, proxy));
    }
    (routes, skipped)
}

pub fn table_text(routes: &[ProxyRoute]) -> String {
    if routes.is_empty() {
        return "prefix -> proxy table: empty\n".to_string();
    }
    let mut out = format!("{:>5}  {:<44} proxy\n", "entry", "prefix");
    for r in routes {
        out += &format!("{:>5}  {:<44} {}\n", r.index, r.prefix.to_string(), r.proxy);
    }
    out
}

fn entry_json(r: &ProxyRoute) -> String {
    format!(
        "{{\"index\": {}, \"prefix\": {}, \"proxy\": {}}}",
        r.index,
        json_string(&r.prefix.to_string()),
        json_string(&r.proxy.to_string())
    )
}

pub fn table_json(
    routes: &[ProxyRoute],
    lookup: Option<(IpAddr, Option<u32>)>,
    skipped: Option<&[(Prefix, String)]>,
) -> String {
    let entries: Vec<String> = routes.iter().map(entry_json).collect();
    let mut out = format!(
        "{{\"tool\": \"cngw proxy\", \"schema_version\": {JSON_SCHEMA_VERSION}, \"entries\": [{}]",
        entries.join(", ")
    );
    if let Some((addr, index)) = lookup {
        out += &format!(
            ", \"lookup\": {{\"addr\": {}, \"index\": {}}}",
            json_string(&addr.to_string()),
            index.map_or("null".to_string(), |i| i.to_string())
        );
    }
    if let Some(skipped) = skipped {
        let s: Vec<String> = skipped
            .iter()
            .map(|(p, why)| {
                format!(
                    "{{\"prefix\": {}, \"reason\": {}}}",
                    json_string(&p.to_string()),
                    json_string(why)
                )
            })
            .collect();
        out += &format!(", \"skipped\": [{}]", s.join(", "));
    }
    out + "}\n"
}

/// Everything the command will do, checked before the device is opened.
enum Request {
    List,
    Add(Prefix, IpAddr),
    Del(Prefix),
    Lookup(IpAddr),
    Import(Routes, Skipped),
}

fn request(args: &ProxyArgs) -> Result<Request> {
    Ok(match &args.command {
        None => Request::List,
        Some(ProxyCommand::Add { prefix, proxy }) => {
            let p = checked_prefix(prefix).map_err(|e| anyhow!("{e}"))?;
            if p.addr.is_ipv4() != proxy.is_ipv4() {
                return Err(anyhow!(
                    "{p} and proxy {proxy} are of different address families"
                ));
            }
            Request::Add(p, *proxy)
        }
        Some(ProxyCommand::Del { prefix }) => {
            Request::Del(checked_prefix(prefix).map_err(|e| anyhow!("{e}"))?)
        }
        Some(ProxyCommand::Lookup { addr }) => Request::Lookup(*addr),
        Some(ProxyCommand::Import {
            protocol,
            bgp_code,
            hex,
        }) => {
            let bytes = pnc::parse_hex(&hex.join(" "))
                .map_err(|e| anyhow!("the advertisement is not hex: {e}"))?;
            let protocol = match protocol {
                PncProtocol::Isis => Protocol::IsIs,
                PncProtocol::Ospfv2 => Protocol::Ospfv2,
                PncProtocol::Ospfv3 => Protocol::Ospfv3,
                PncProtocol::Bgp => Protocol::Bgp,
            };
            let codes = PncCodes {
                bgp_tlv_code: *bgp_code,
            };
            let ads = pnc::decode(protocol, &bytes, &codes)
                .map_err(|e| anyhow!("the advertisement does not decode: {e}"))?;
            let (routes, skipped) = import_plan(&ads);
            if routes.len() > cngw_regmap::proxy::ENTRIES as usize {
                return Err(anyhow!(
                    "{} prefixes with a proxy; the table holds {}",
                    routes.len(),
                    cngw_regmap::proxy::ENTRIES
                ));
            }
            Request::Import(routes, skipped)
        }
    })
}

fn program(dev: &mut AnyDevice<'_>, routes: &[(Prefix, IpAddr)]) -> Result<()> {
    // Check room first: nothing is written unless all of it fits.
    let existing = dev.proxy_routes().map_err(device_error)?;
    let new = routes
        .iter()
        .filter(|(p, _)| existing.iter().all(|r| r.prefix != *p))
        .count();
    let limit = cngw_regmap::proxy::ENTRIES as usize;
    if existing.len() + new > limit {
        return Err(anyhow!(
            "the table holds {limit} entries: {} in use, {new} more needed; nothing written",
            existing.len()
        ));
    }
    for (p, a) in routes {
        dev.add_proxy_route(p, *a).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &ProxyArgs) -> Result<()> {
    let request = request(args)?;
    let config = args.config.as_deref().map(load).transpose()?;
    let mut dev = device::open(spec, verbose)?;
    if let (Some(config), Some(path)) = (&config, &args.config) {
        apply_config(&mut dev, config, path)?;
    }
    let mut lookup = None;
    let mut skipped = None;
    match request {
        Request::List => {}
        Request::Add(p, a) => {
            let i = dev.add_proxy_route(&p, a).map_err(|e| anyhow!("{e}"))?;
            eprintln!("note: entry {i}: {p} -> {a}");
        }
        Request::Del(p) => {
            let i = dev.del_proxy_route(&p).map_err(|e| anyhow!("{e}"))?;
            eprintln!("note: entry {i} ({p}) cleared");
        }
        Request::Lookup(addr) => {
            let index = dev.lookup_proxy(addr).map_err(device_error)?;
            lookup = Some((addr, index));
        }
        Request::Import(routes, skip) => {
            program(&mut dev, &routes).context("import failed")?;
            eprintln!(
                "note: {} prefixes programmed, {} skipped",
                routes.len(),
                skip.len()
            );
            skipped = Some(skip);
        }
    }
    let routes = dev.proxy_routes().map_err(device_error)?;
    if args.json {
        print!("{}", table_json(&routes, lookup, skipped.as_deref()));
    } else {
        print!("{}", table_text(&routes));
        if let Some((addr, index)) = lookup {
            match index.and_then(|i| routes.iter().find(|r| r.index == i)) {
                Some(r) => println!(
                    "{addr}: entry {} ({}) -> proxy {}",
                    r.index, r.prefix, r.proxy
                ),
                None => println!("{addr}: no entry (no proxy serves it)"),
            }
        }
        for (p, why) in skipped.iter().flatten() {
            println!("skipped {p}: {why}");
        }
    }
    if *spec == DeviceSpec::Sim
        && config.is_none()
        && matches!(args.command, None | Some(ProxyCommand::Lookup { .. }))
    {
        eprintln!(
            "note: --device sim is a fresh simulator for this command only: its table starts \
             empty ([proxy] table in --config FILE fills it first)"
        );
    }
    Ok(())
}
