//! Proxy congestion notification (draft-xiao-rtgwg-proxy-congestion-notification):
//! the proxy's CN message recogniser and its translation of CN messages
//! into standard CNPs to the flows' senders; the congested node's CN
//! message generator and the prefix -> proxy table.
pub mod cn_generator;
pub mod cn_receiver;
pub mod prefix_match;
pub mod proxy_table;
pub mod proxy_translator;
pub use cn_generator::CnGenerator;
pub use cn_receiver::{CnReceiver, WALK_CLOCKS};
pub use prefix_match::PrefixMatch;
pub use proxy_table::{ProxyTable, PROXY_ENTRIES};
pub use proxy_translator::ProxyTranslator;
