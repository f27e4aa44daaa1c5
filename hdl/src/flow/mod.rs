//! LH-01 flow table: entry layout, key hash, the table and its reference model.
pub mod flow_entry;
pub mod flow_hash;
pub mod flow_table;
pub mod flow_table_model;

pub use flow_entry::{FlowEntry, FlowKey, FlowKeyBits, FlowRecord};
pub use flow_hash::FlowHash;
pub use flow_table::{FlowOp, FlowTable, GatewayFlowTable};
pub use flow_table_model::FlowTableModel;
