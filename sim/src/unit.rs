//! Blocks verilated on their own (`cngw_hdl::units`), for unit tests against
//! software references in the Verilog that ships: rust-hdl's own simulator
//! is slow on wide values and models memories separately from their Verilog.
//!
//! A [`Unit`] is driven by port name with 32-bit words (bit 0 of word 0 is
//! the port's bit 0); `step` is one clock, as for [`crate::Gateway`].

use std::ffi::CString;
use std::path::Path;

#[repr(C)]
pub(crate) struct Raw {
    _private: [u8; 0],
}

pub(crate) struct UnitModel {
    pub name: &'static str,
    pub ports: &'static [(&'static str, usize, bool)],
    pub new: unsafe extern "C" fn() -> *mut Raw,
    pub free: unsafe extern "C" fn(*mut Raw),
    pub eval: unsafe extern "C" fn(*mut Raw),
    pub tick: unsafe extern "C" fn(*mut Raw),
    pub trace_open: unsafe extern "C" fn(*mut Raw, *const std::os::raw::c_char) -> i32,
    pub set: unsafe extern "C" fn(*mut Raw, u32, *const u32),
    pub get: unsafe extern "C" fn(*mut Raw, u32, *mut u32),
}

include!(concat!(env!("OUT_DIR"), "/units.rs"));

/// Names of the blocks that can be simulated on their own.
pub fn unit_names() -> Vec<&'static str> {
    UNITS.iter().map(|u| u.name).collect()
}

/// One Verilated block.
pub struct Unit {
    model: &'static UnitModel,
    raw: *mut Raw,
    dirty: bool,
    cycle: u64,
}

impl Unit {
    /// A new instance of the block `name` (see [`unit_names`]), inputs zero.
    pub fn new(name: &str) -> Result<Unit, String> {
        let model = UNITS
            .iter()
            .find(|u| u.name == name)
            .ok_or_else(|| format!("no unit {name}; known: {}", unit_names().join(", ")))?;
        // SAFETY: the shim allocates a model and returns an owned pointer.
        let raw = unsafe { (model.new)() };
        assert!(!raw.is_null(), "Verilated model allocation failed");
        Ok(Unit {
            model,
            raw,
            dirty: true,
            cycle: 0,
        })
    }

    /// Starts a VCD waveform of every signal at `path`.
    pub fn trace(&mut self, path: &Path) -> std::io::Result<()> {
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: the model is live; the string outlives the call.
        match unsafe { (self.model.trace_open)(self.raw, c.as_ptr()) } {
            0 => Ok(()),
            _ => Err(std::io::Error::other(format!(
                "cannot open VCD {}",
                path.display()
            ))),
        }
    }

    fn index(&self, name: &str) -> Result<(u32, usize, bool), String> {
        self.model
            .ports
            .iter()
            .position(|p| p.0 == name)
            .map(|i| (i as u32, self.model.ports[i].1, self.model.ports[i].2))
            .ok_or_else(|| format!("unit {} has no port {name}", self.model.name))
    }

    /// Sets an input port (extra words ignored, missing words zero).
    pub fn set(&mut self, name: &str, words: &[u32]) -> Result<(), String> {
        let (index, width, is_output) = self.index(name)?;
        if is_output {
            return Err(format!("{name} is an output"));
        }
        let mut w = vec![0u32; width.div_ceil(32).max(2)];
        for (dst, src) in w.iter_mut().zip(words) {
            *dst = *src;
        }
        if width % 32 != 0 {
            w[width / 32] &= (1u32 << (width % 32)) - 1;
        }
        // SAFETY: `w` holds the port's width in words; the model is live.
        unsafe { (self.model.set)(self.raw, index, w.as_ptr()) };
        self.dirty = true;
        Ok(())
    }

    /// Sets an input port of up to 64 bits.
    pub fn set_u64(&mut self, name: &str, value: u64) -> Result<(), String> {
        self.set(name, &[value as u32, (value >> 32) as u32])
    }

    /// Sets an input port from bytes in lane order (byte `i` at bits `8i+7..8i`).
    pub fn set_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(b)
            })
            .collect();
        self.set(name, &words)
    }

    /// Reads a port as words.
    pub fn get(&mut self, name: &str) -> Result<Vec<u32>, String> {
        let (index, width, _) = self.index(name)?;
        if self.dirty {
            // SAFETY: the model is live.
            unsafe { (self.model.eval)(self.raw) };
            self.dirty = false;
        }
        let mut w = vec![0u32; width.div_ceil(32).max(2)];
        // SAFETY: `w` has room for the port's width; the model is live.
        unsafe { (self.model.get)(self.raw, index, w.as_mut_ptr()) };
        w.truncate(width.div_ceil(32));
        Ok(w)
    }

    /// Reads a port of up to 64 bits.
    pub fn get_u64(&mut self, name: &str) -> Result<u64, String> {
        let w = self.get(name)?;
        Ok(w[0] as u64 | (*w.get(1).unwrap_or(&0) as u64) << 32)
    }

    /// Drives the AXI4-Stream input `port` (`{port}_tdata`, `_tkeep`,
    /// `_tlast`, `_tuser`, `_tvalid`): `Some(beat)` raises `tvalid` with it,
    /// `None` lowers `tvalid` (the payload keeps its last value).
    pub fn drive_stream(&mut self, port: &str, beat: Option<&crate::Beat>) -> Result<(), String> {
        if let Some(b) = beat {
            self.set_bytes(&format!("{port}_tdata"), &b.data)?;
            self.set_u64(&format!("{port}_tkeep"), b.keep)?;
            self.set_u64(&format!("{port}_tlast"), b.last as u64)?;
            self.set_u64(&format!("{port}_tuser"), b.user as u64)?;
        }
        self.set_u64(&format!("{port}_tvalid"), beat.is_some() as u64)
    }

    /// The beat the AXI4-Stream output `port` presents, if `tvalid` is high.
    pub fn stream_output(&mut self, port: &str) -> Result<Option<crate::Beat>, String> {
        if self.get_u64(&format!("{port}_tvalid"))? == 0 {
            return Ok(None);
        }
        let mut data = [0u8; crate::BEAT_BYTES];
        for (i, w) in self.get(&format!("{port}_tdata"))?.iter().enumerate() {
            data[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        Ok(Some(crate::Beat {
            data,
            keep: self.get_u64(&format!("{port}_tkeep"))?,
            last: self.get_u64(&format!("{port}_tlast"))? == 1,
            user: self.get_u64(&format!("{port}_tuser"))? == 1,
        }))
    }

    /// One clock cycle: the rising edge samples every input.
    pub fn step(&mut self) {
        // SAFETY: the model is live.
        unsafe { (self.model.tick)(self.raw) };
        self.dirty = true;
        self.cycle += 1;
    }

    /// Clock cycles since the unit was created.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
}

impl Drop for Unit {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `new` and is freed once.
        unsafe { (self.model.free)(self.raw) };
    }
}
