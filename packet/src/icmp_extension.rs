//! RFC 4884-style extension structure as used by the Long-haul CNP
//! (draft-tian-ccwg-long-haul-cnp-00, "Optional Extension Objects",
//! "Extension Header Format", "Extension Object Format"):
//!
//! ```text
//! +-------+-------+---------------+-------------------------------+
//! |Ver=2  |      Reserved (12)    |           Checksum            |
//! +-------+-------+---------------+-------------------------------+
//! |      Length (unpadded)        |   Class-Num   |    C-Type     |
//! +-------------------------------+---------------+---------------+
//! |        Object payload, zero-padded to 4 bytes ...             |
//! ```
//!
//! The checksum is the one's complement of the one's complement sum of the
//! extension header and all objects (RFC 4884 section 7). The draft leaves the
//! Class-Num to IANA (TBD2); this project uses [`LONGHAUL_CLASS_NUM`] from the
//! private-use range, configurable by the caller.

use std::net::Ipv6Addr;

use crate::checksum::extension_checksum;
use crate::error::{Layer, ParseError};
use crate::wire::{pad4, Cursor};

/// Extension header version (RFC 4884 section 7).
pub const EXTENSION_VERSION: u8 = 2;
/// Length of the extension header.
pub const EXTENSION_HEADER_LEN: usize = 4;
/// Length of an object header.
pub const OBJECT_HEADER_LEN: usize = 4;
/// Default Class-Num of Long-haul CNP objects (draft TBD2): 247, the first
/// value of the "private use" range of IANA's ICMP extension object classes.
pub const LONGHAUL_CLASS_NUM: u8 = 247;
/// C-Type of an 8-byte NTP timestamp.
pub const C_TYPE_TIMESTAMP: u8 = 1;
/// C-Type of a UTF-8 device identifier.
pub const C_TYPE_DEVICE_ID: u8 = 2;
/// C-Type of an opaque path identifier.
pub const C_TYPE_PATH_ID: u8 = 3;

/// One extension object; `payload` is unpadded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtensionObject {
    pub class_num: u8,
    pub c_type: u8,
    pub payload: Vec<u8>,
}

/// The typed content of a Long-haul CNP object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LonghaulObject {
    /// 64-bit NTP timestamp (32-bit seconds, 32-bit fraction).
    Timestamp(u64),
    /// Device identifier (UTF-8).
    DeviceId(String),
    /// Path identifier (opaque).
    PathId(Vec<u8>),
    /// Any other C-Type.
    Other { c_type: u8, payload: Vec<u8> },
}

impl LonghaulObject {
    /// The object with Class-Num `class_num`.
    pub fn to_object(&self, class_num: u8) -> ExtensionObject {
        let (c_type, payload) = match self {
            LonghaulObject::Timestamp(t) => (C_TYPE_TIMESTAMP, t.to_be_bytes().to_vec()),
            LonghaulObject::DeviceId(s) => (C_TYPE_DEVICE_ID, s.as_bytes().to_vec()),
            LonghaulObject::PathId(p) => (C_TYPE_PATH_ID, p.clone()),
            LonghaulObject::Other { c_type, payload } => (*c_type, payload.clone()),
        };
        ExtensionObject {
            class_num,
            c_type,
            payload,
        }
    }

    /// The typed view of an object (its Class-Num is not checked).
    pub fn from_object(o: &ExtensionObject) -> Result<Self, ParseError> {
        Ok(match o.c_type {
            C_TYPE_TIMESTAMP => {
                let b: [u8; 8] =
                    o.payload
                        .as_slice()
                        .try_into()
                        .map_err(|_| ParseError::BadLength {
                            layer: Layer::IcmpExtension,
                            field: "timestamp object length",
                            value: o.payload.len() + OBJECT_HEADER_LEN,
                            available: 8 + OBJECT_HEADER_LEN,
                        })?;
                LonghaulObject::Timestamp(u64::from_be_bytes(b))
            }
            C_TYPE_DEVICE_ID => {
                LonghaulObject::DeviceId(String::from_utf8(o.payload.clone()).map_err(|_| {
                    ParseError::NotUtf8 {
                        layer: Layer::IcmpExtension,
                        field: "device identifier",
                    }
                })?)
            }
            C_TYPE_PATH_ID => LonghaulObject::PathId(o.payload.clone()),
            c_type => LonghaulObject::Other {
                c_type,
                payload: o.payload.clone(),
            },
        })
    }

    /// A path identifier made of IPv6 addresses (e.g. an SRv6 segment list).
    pub fn path_of(addrs: &[Ipv6Addr]) -> Self {
        LonghaulObject::PathId(addrs.iter().flat_map(|a| a.octets()).collect())
    }
}

/// Extension header and objects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExtensionStructure {
    pub objects: Vec<ExtensionObject>,
}

impl ExtensionStructure {
    /// Length on the wire.
    pub fn len(&self) -> usize {
        EXTENSION_HEADER_LEN
            + self
                .objects
                .iter()
                .map(|o| {
                    let n = OBJECT_HEADER_LEN + o.payload.len();
                    n + pad4(n)
                })
                .sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Parses the structure filling `buf`; checks version and checksum.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::IcmpExtension);
        let w0 = c.u16()?;
        let checksum = c.u16()?;
        if (w0 >> 12) as u8 != EXTENSION_VERSION {
            return Err(ParseError::InvalidField {
                layer: Layer::IcmpExtension,
                field: "version",
                value: (w0 >> 12) as u64,
            });
        }
        let computed = extension_checksum(buf);
        if computed != checksum {
            return Err(ParseError::ChecksumMismatch {
                layer: Layer::IcmpExtension,
                computed: computed as u32,
                found: checksum as u32,
            });
        }
        let mut objects = Vec::new();
        while c.position() < buf.len() {
            let length = c.u16()? as usize;
            let class_num = c.u8()?;
            let c_type = c.u8()?;
            if length < OBJECT_HEADER_LEN {
                return Err(ParseError::InvalidField {
                    layer: Layer::IcmpExtension,
                    field: "object length",
                    value: length as u64,
                });
            }
            let body = length - OBJECT_HEADER_LEN;
            let padded = c.bytes(body + pad4(length))?;
            objects.push(ExtensionObject {
                class_num,
                c_type,
                payload: padded[..body].to_vec(),
            });
        }
        Ok(ExtensionStructure { objects })
    }

    /// Appends the structure with its checksum.
    pub fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&((EXTENSION_VERSION as u16) << 12).to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        for o in &self.objects {
            let length = OBJECT_HEADER_LEN + o.payload.len();
            out.extend_from_slice(&(length.min(u16::MAX as usize) as u16).to_be_bytes());
            out.push(o.class_num);
            out.push(o.c_type);
            out.extend_from_slice(&o.payload);
            out.resize(out.len() + pad4(length), 0);
        }
        let checksum = extension_checksum(&out[start..]);
        out[start + 2..start + 4].copy_from_slice(&checksum.to_be_bytes());
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }

    /// The structure of typed Long-haul objects under `class_num`.
    pub fn from_longhaul(class_num: u8, objects: &[LonghaulObject]) -> Self {
        ExtensionStructure {
            objects: objects.iter().map(|o| o.to_object(class_num)).collect(),
        }
    }
}
