fn main() {
    let mut gw = cngw_sim::Gateway::new();
    let beat = cngw_sim::frame_to_beats(&[0x55u8; 64], false).remove(0);
    let t = std::time::Instant::now();
    for _ in 0..1_000_000 {
        gw.drive(cngw_sim::InPort::DcRx, Some(&beat));
        gw.step();
    }
    println!(
        "{:.2} M cycles/s (driving a beat every cycle)",
        1.0 / t.elapsed().as_secs_f64()
    );
    let t = std::time::Instant::now();
    gw.run(1_000_000);
    println!(
        "{:.2} M cycles/s (inputs unchanged)",
        1.0 / t.elapsed().as_secs_f64()
    );
}
