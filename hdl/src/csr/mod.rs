pub mod axil;
pub mod csr_block;
pub use axil::{AxiLiteMaster, AxiLiteSlave};
pub use csr_block::CsrBlock;
