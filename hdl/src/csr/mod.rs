pub mod csr_block;
pub use csr_block::CsrBlock;
