//! Proxy congestion notification (draft-xiao-rtgwg-proxy-congestion-notification):
//! the proxy's CN message recogniser and its translation of CN messages
//! into standard CNPs to the flows' senders.
pub mod cn_receiver;
pub mod proxy_table;
pub mod proxy_translator;
pub use cn_receiver::{CnReceiver, WALK_CLOCKS};
pub use proxy_table::{ProxyTable, PROXY_ENTRIES};
pub use proxy_translator::ProxyTranslator;
