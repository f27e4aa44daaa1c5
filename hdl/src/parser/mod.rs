pub mod header_parser;
pub use header_parser::HeaderParser;
