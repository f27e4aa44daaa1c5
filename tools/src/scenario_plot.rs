//! The PNG plots of `cngw scenario` (plotters, bitmap backend).
//!
//! One figure per mode, `DIR/<mode>.png`, three panels over the same time
//! axis: the congested queue's depth (with K_min and K_max), each sender's
//! rate, and the notifications that reached the senders per sample
//! interval (receiver CNPs and the gateway's notifications, as stems). One
//! more figure, `DIR/modes.png`, compares the modes: the queue depth and
//! the senders' total rate of every mode run.
//!
//! Text is drawn with a TrueType font read at run time (plotters'
//! `ab_glyph` feature, no system font discovery): by default DejaVu Sans
//! from Debian's `fonts-dejavu-core` ([`DEFAULT_FONT`]), else `--font FILE`.

use anyhow::{anyhow, Context, Result};
use cngw_model::scenario::{RunResult, Scenario};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::register_font;
use std::path::{Path, PathBuf};

/// DejaVu Sans as Debian's `fonts-dejavu-core` installs it.
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const FONT: &str = "sans-serif";
const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 320;

/// Reads the font at `path` and makes it the plots' font (once per
/// process is enough; a second call replaces it).
pub fn load_font(path: &Path) -> Result<()> {
    let bytes =
        std::fs::read(path).with_context(|| format!("reading the font {}", path.display()))?;
    // plotters keeps the font for the life of the process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register_font(FONT, FontStyle::Normal, bytes)
        .map_err(|_| anyhow!("{}: not a TrueType or OpenType font", path.display()))
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing: {e:?}")
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn end_ms(scn: &Scenario) -> f64 {
    scn.duration_ms.max(1e-3)
}

/// The arrivals panel's colours, outside the senders' palette.
pub const CNP_COLOUR: RGBColor = RGBColor(23, 190, 207);
pub const NOTE_COLOUR: RGBColor = RGBColor(188, 189, 34);

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

/// Writes `DIR/<mode>.png` for every result and `DIR/modes.png`; returns
/// the files written.
pub fn write_all(scn: &Scenario, results: &[RunResult], out: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for r in results {
        let path = out.join(format!("{}.png", r.summary.mode));
        mode_figure(scn, r, &path).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
    }
    let path = out.join("modes.png");
    compare_figure(scn, results, &path).with_context(|| format!("writing {}", path.display()))?;
    files.push(path);
    Ok(files)
}

fn sender_name(scn: &Scenario, i: usize) -> String {
    let s = &scn.senders[i];
    format!("{} QP {}", s.ip, s.qp)
}

/// The queue-depth panel: one line per (label, samples), K_min and K_max.
fn queue_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    scn: &Scenario,
    title: &str,
    series: &[(String, &RunResult)],
) -> Result<()> {
    let mb = |b: u64| b as f64 / 1e6;
    let peak = series
        .iter()
        .flat_map(|(_, r)| r.samples.iter().map(|x| x.queue_bytes))
        .max()
        .unwrap_or(0)
        .max(scn.k_max_bytes());
    let top = mb(peak) * 1.08;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 20))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..end_ms(scn), 0.0..top.max(0.001))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (ms)")
        .y_desc("queue depth (MB)")
        .label_style((FONT, 14))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    for (k, name) in [(scn.k_min_bytes(), "K_min"), (scn.k_max_bytes(), "K_max")] {
        let y = mb(k);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, y), (end_ms(scn), y)],
                6,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                name.to_string(),
                (0.01 * end_ms(scn), y),
                (FONT, 13),
            )))
            .map_err(err)?;
    }
    for (i, (label, r)) in series.iter().enumerate() {
        let c = colour(i);
        let drawn = chart
            .draw_series(LineSeries::new(
                r.samples.iter().map(|x| (ms(x.t_ns), mb(x.queue_bytes))),
                c.stroke_width(2),
            ))
            .map_err(err)?;
        if series.len() > 1 {
            drawn.label(label.as_str()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
            });
        }
    }
    if series.len() > 1 {
        chart
            .configure_series_labels()
            .label_font((FONT, 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

/// Rate panel: one line per (label, points).
fn rate_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    scn: &Scenario,
    title: &str,
    y_desc: &str,
    lines: Vec<(String, Vec<(f64, f64)>)>,
) -> Result<()> {
    let top = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold(0.0f64, f64::max)
        .max(1e-3)
        * 1.08;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 20))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..end_ms(scn), 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (ms)")
        .y_desc(y_desc)
        .label_style((FONT, 14))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    for (i, (label, pts)) in lines.into_iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// One mode: queue depth, sender rates, notification arrivals.
fn mode_figure(scn: &Scenario, r: &RunResult, path: &Path) -> Result<()> {
    let root = BitMapBackend::new(path, (WIDTH, 3 * PANEL_HEIGHT + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled(&format!("{}: {}", scn.name, r.summary.mode), (FONT, 22))
        .map_err(err)?;
    let panels = root.split_evenly((3, 1));
    queue_panel(&panels[0], scn, "congested queue", &[(String::new(), r)])?;
    let lines = (0..scn.senders.len())
        .map(|i| {
            let pts = r
                .samples
                .iter()
                .map(|x| (ms(x.t_ns), x.rates_gbps[i]))
                .collect();
            (sender_name(scn, i), pts)
        })
        .collect();
    rate_panel(&panels[1], scn, "sender rates", "rate (Gb/s)", lines)?;
    arrivals_panel(&panels[2], scn, r)?;
    root.present().map_err(err)?;
    Ok(())
}

/// One sample's arrivals of one kind.
type Count = fn(&cngw_model::scenario::Sample) -> u32;

/// Notification arrivals at the senders per sample interval: receiver
/// CNPs and gateway notifications as stems, side by side.
fn arrivals_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    scn: &Scenario,
    r: &RunResult,
) -> Result<()> {
    let top = r
        .samples
        .iter()
        .map(|x| x.cnp_arrivals.max(x.lh_arrivals))
        .max()
        .unwrap_or(0)
        .max(1) as f64
        * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "notifications reaching the senders per {} us",
                scn.sample_interval_us
            ),
            (FONT, 20),
        )
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..end_ms(scn), 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (ms)")
        .y_desc("arrivals")
        .label_style((FONT, 14))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    // Gateway notifications a little to the right of the CNPs, so that
    // both show when they share a sample.
    let shift = 0.002 * end_ms(scn);
    let kinds: [(&str, RGBColor, f64, Count); 2] = [
        ("receiver CNPs", CNP_COLOUR, 0.0, |x| x.cnp_arrivals),
        ("gateway notifications", NOTE_COLOUR, shift, |x| {
            x.lh_arrivals
        }),
    ];
    for (label, c, dx, count) in kinds {
        let stems: Vec<_> = r
            .samples
            .iter()
            .filter(|x| count(x) > 0)
            .map(|x| (ms(x.t_ns) + dx, count(x) as f64))
            .collect();
        chart
            .draw_series(
                stems
                    .iter()
                    .map(|&(t, n)| PathElement::new(vec![(t, 0.0), (t, n)], c.stroke_width(2))),
            )
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(
                stems
                    .iter()
                    .map(|&(t, n)| Circle::new((t, n), 3, c.filled())),
            )
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Every mode: queue depth and the senders' total rate.
fn compare_figure(scn: &Scenario, results: &[RunResult], path: &Path) -> Result<()> {
    let root = BitMapBackend::new(path, (WIDTH, 2 * PANEL_HEIGHT + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled(&format!("{}: the modes compared", scn.name), (FONT, 22))
        .map_err(err)?;
    let panels = root.split_evenly((2, 1));
    let series: Vec<(String, &RunResult)> = results
        .iter()
        .map(|r| (r.summary.mode.to_string(), r))
        .collect();
    queue_panel(&panels[0], scn, "congested queue", &series)?;
    let lines = results
        .iter()
        .map(|r| {
            let pts = r
                .samples
                .iter()
                .map(|x| (ms(x.t_ns), x.rates_gbps.iter().sum::<f64>()))
                .collect();
            (r.summary.mode.to_string(), pts)
        })
        .collect();
    rate_panel(
        &panels[1],
        scn,
        "senders' total rate",
        "total rate (Gb/s)",
        lines,
    )?;
    root.present().map_err(err)?;
    Ok(())
}
