//! Bounds-checked big-endian reading, shared by the parsers (crate-private).

use crate::error::{Layer, ParseError};

/// Reads big-endian fields from a byte slice; every read is bounds-checked and
/// fails with [`ParseError::Truncated`] naming `layer`.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    layer: Layer,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8], layer: Layer) -> Self {
        Cursor { buf, pos: 0, layer }
    }

    pub(crate) fn set_layer(&mut self, layer: Layer) {
        self.layer = layer;
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], ParseError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end {
            Some(end) => {
                let s = &self.buf[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(ParseError::truncated(
                self.layer,
                self.pos.saturating_add(n),
                self.buf.len(),
            )),
        }
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], ParseError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    /// Bytes not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// The next `n` bytes, whose count comes from a length field named
    /// `field`: fails with [`ParseError::BadLength`] (not `Truncated`) when
    /// fewer are left.
    pub(crate) fn counted(
        &mut self,
        n: usize,
        field: &'static str,
    ) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(ParseError::BadLength {
                layer: self.layer,
                field,
                value: n,
                available: self.remaining(),
            });
        }
        self.bytes(n)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    pub(crate) fn u8(&mut self) -> Result<u8, ParseError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, ParseError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u24(&mut self) -> Result<u32, ParseError> {
        let [a, b, c] = self.array()?;
        Ok(u32::from_be_bytes([0, a, b, c]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, ParseError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, ParseError> {
        Ok(u64::from_be_bytes(self.array()?))
    }
}

/// Appends the low 24 bits of `v`, big-endian.
pub(crate) fn put_u24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes()[1..]);
}

/// Big-endian u16 at `at`; the caller has checked the bounds.
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Zero bytes that pad `len` up to a multiple of 4.
pub(crate) fn pad4(len: usize) -> usize {
    (4 - len % 4) % 4
}
