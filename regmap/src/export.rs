//! Register map exports (SystemRDL, C header, Markdown).
