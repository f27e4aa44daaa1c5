// cngw_opennic_box: cngw as the user logic of OpenNIC's 322 MHz box, one
// CMAC port.
//
// The ports carry the names OpenNIC's box_322mhz gives one CMAC port's
// streams, its register slave and its reset pair (see docs/integration.md
// for the shell, the port map and the build). Everything but the register
// slave and the reset pair runs on cmac_clk, the CMAC user clock
// (322.265625 MHz), which is also cngw's one clock.
//
//   host / packet adapter                      CMAC (QSFP28 port)
//   s_axis_adap_tx_322mhz --> dc_rx   [cngw]  wan_tx --> FIFO (store and
//                                                        forward) --> m_axis_cmac_tx
//   m_axis_adap_rx_322mhz <-- dc_tx   [cngw]  wan_rx <-- FIFO (drops when
//                                                        full) <-- s_axis_cmac_rx
//   s_axil (axil_aclk) --> cngw_axil_cdc --> cngw CSR (cmac_clk)
//   mod_rstn / mod_rst_done (axil_aclk) <-> cngw_box_reset --> cngw reset
//
// The WAN side is the CMAC; the data-centre side is whatever the shell's
// packet adapter carries (the host through QDMA, or a second QSFP28 port
// steered through the 250 MHz box). tuser is the frame-error flag on every
// stream (OpenNIC's tuser_err, cngw's tuser); tkeep passes unchanged (the
// 322 MHz interface has tkeep, not the 250 MHz side's tuser_size).
`default_nettype none
module cngw_opennic_box #(
    // log2 of the wan_rx FIFO's depth in 64-byte beats (absorbs cngw's
    // backpressure; the CMAC cannot be held back).
    parameter integer RX_FIFO_ADDR_W = 6,
    // log2 of the wan_tx store-and-forward FIFO's depth: at least the
    // largest frame (256 beats = 16 KiB covers 9600-byte jumbo frames).
    parameter integer TX_FIFO_ADDR_W = 8,
    // cmac_clk cycles cngw stays in reset after the shell's request.
    parameter integer RESET_HOLD_CYCLES = 64
) (
    // Register slave from the shell's box address map (axil_aclk). The
    // address is the offset inside the box; the low 12 bits reach cngw's
    // CSR window, anything above answers SLVERR.
    input  wire         s_axil_awvalid,
    input  wire [31:0]  s_axil_awaddr,
    output wire         s_axil_awready,
    input  wire         s_axil_wvalid,
    input  wire [31:0]  s_axil_wdata,
    output wire         s_axil_wready,
    output wire         s_axil_bvalid,
    output wire [1:0]   s_axil_bresp,
    input  wire         s_axil_bready,
    input  wire         s_axil_arvalid,
    input  wire [31:0]  s_axil_araddr,
    output wire         s_axil_arready,
    output wire         s_axil_rvalid,
    output wire [31:0]  s_axil_rdata,
    output wire [1:0]   s_axil_rresp,
    input  wire         s_axil_rready,

    // From the packet adapter toward the network: cngw's dc_rx.
    input  wire         s_axis_adap_tx_322mhz_tvalid,
    input  wire [511:0] s_axis_adap_tx_322mhz_tdata,
    input  wire [63:0]  s_axis_adap_tx_322mhz_tkeep,
    input  wire         s_axis_adap_tx_322mhz_tlast,
    input  wire         s_axis_adap_tx_322mhz_tuser_err,
    output wire         s_axis_adap_tx_322mhz_tready,

    // From the network to the packet adapter: cngw's dc_tx. No tready: the
    // adapter always accepts (its packet FIFO drops when full).
    output wire         m_axis_adap_rx_322mhz_tvalid,
    output wire [511:0] m_axis_adap_rx_322mhz_tdata,
    output wire [63:0]  m_axis_adap_rx_322mhz_tkeep,
    output wire         m_axis_adap_rx_322mhz_tlast,
    output wire         m_axis_adap_rx_322mhz_tuser_err,

    // To the CMAC's transmitter: cngw's wan_tx.
    output wire         m_axis_cmac_tx_tvalid,
    output wire [511:0] m_axis_cmac_tx_tdata,
    output wire [63:0]  m_axis_cmac_tx_tkeep,
    output wire         m_axis_cmac_tx_tlast,
    output wire         m_axis_cmac_tx_tuser_err,
    input  wire         m_axis_cmac_tx_tready,

    // From the CMAC's receiver: cngw's wan_rx. No tready.
    input  wire         s_axis_cmac_rx_tvalid,
    input  wire [511:0] s_axis_cmac_rx_tdata,
    input  wire [63:0]  s_axis_cmac_rx_tkeep,
    input  wire         s_axis_cmac_rx_tlast,
    input  wire         s_axis_cmac_rx_tuser_err,

    // The box's reset pair (axil_aclk): request active low, done high.
    input  wire         mod_rstn,
    output wire         mod_rst_done,

    // Shell register clock (the PCIe user clock's domain).
    input  wire         axil_aclk,
    // CMAC user clock, 322.265625 MHz: cngw's clock.
    input  wire         cmac_clk
);
    // ------------------------------------------------------------------
    // Resets.
    // ------------------------------------------------------------------
    wire core_reset;

    cngw_box_reset #(
        .HOLD_CYCLES(RESET_HOLD_CYCLES)
    ) reset_bridge (
        .axil_aclk   (axil_aclk),
        .mod_rstn    (mod_rstn),
        .mod_rst_done(mod_rst_done),
        .cmac_clk    (cmac_clk),
        .core_reset  (core_reset)
    );

    // ------------------------------------------------------------------
    // Registers: axil_aclk -> cmac_clk.
    // ------------------------------------------------------------------
    wire        csr_awvalid;
    wire [11:0] csr_awaddr;
    wire        csr_awready;
    wire        csr_wvalid;
    wire [31:0] csr_wdata;
    wire [3:0]  csr_wstrb;
    wire        csr_wready;
    wire        csr_bvalid;
    wire [1:0]  csr_bresp;
    wire        csr_bready;
    wire        csr_arvalid;
    wire [11:0] csr_araddr;
    wire        csr_arready;
    wire        csr_rvalid;
    wire [31:0] csr_rdata;
    wire [1:0]  csr_rresp;
    wire        csr_rready;

    cngw_axil_cdc #(
        .ADDR_W(12)
    ) csr_bridge (
        .axil_aclk     (axil_aclk),
        // mod_rstn is synchronous to axil_aclk (OpenNIC's reset pairs are).
        .axil_reset    (!mod_rstn),
        .s_axil_awvalid(s_axil_awvalid),
        .s_axil_awaddr (s_axil_awaddr),
        .s_axil_awready(s_axil_awready),
        .s_axil_wvalid (s_axil_wvalid),
        .s_axil_wdata  (s_axil_wdata),
        .s_axil_wready (s_axil_wready),
        .s_axil_bvalid (s_axil_bvalid),
        .s_axil_bresp  (s_axil_bresp),
        .s_axil_bready (s_axil_bready),
        .s_axil_arvalid(s_axil_arvalid),
        .s_axil_araddr (s_axil_araddr),
        .s_axil_arready(s_axil_arready),
        .s_axil_rvalid (s_axil_rvalid),
        .s_axil_rdata  (s_axil_rdata),
        .s_axil_rresp  (s_axil_rresp),
        .s_axil_rready (s_axil_rready),
        .core_clk      (cmac_clk),
        .core_reset    (core_reset),
        .m_axil_awvalid(csr_awvalid),
        .m_axil_awaddr (csr_awaddr),
        .m_axil_awready(csr_awready),
        .m_axil_wvalid (csr_wvalid),
        .m_axil_wdata  (csr_wdata),
        .m_axil_wstrb  (csr_wstrb),
        .m_axil_wready (csr_wready),
        .m_axil_bvalid (csr_bvalid),
        .m_axil_bresp  (csr_bresp),
        .m_axil_bready (csr_bready),
        .m_axil_arvalid(csr_arvalid),
        .m_axil_araddr (csr_araddr),
        .m_axil_arready(csr_arready),
        .m_axil_rvalid (csr_rvalid),
        .m_axil_rdata  (csr_rdata),
        .m_axil_rresp  (csr_rresp),
        .m_axil_rready (csr_rready)
    );

    // ------------------------------------------------------------------
    // WAN side FIFOs.
    // ------------------------------------------------------------------
    wire         wan_rx_tvalid;
    wire [511:0] wan_rx_tdata;
    wire [63:0]  wan_rx_tkeep;
    wire         wan_rx_tlast;
    wire         wan_rx_tuser;
    wire         wan_rx_tready;

    wire         wan_tx_tvalid;
    wire [511:0] wan_tx_tdata;
    wire [63:0]  wan_tx_tkeep;
    wire         wan_tx_tlast;
    wire         wan_tx_tuser;
    wire         wan_tx_tready;

    // Outputs nothing in the box reads: the receive FIFO's tready (always
    // high: it drops instead), its drop strobe (a counter or an ILA probe
    // would take it) and the transmit FIFO's drop strobe (always low).
    // The `unused_` prefix is Verilator's convention for deliberately
    // unread signals (its default --unused-regexp).
    wire unused_wan_rx_fifo_tready;
    wire unused_wan_rx_fifo_dropped;
    wire unused_wan_tx_fifo_dropped;

    cngw_box_fifo #(
        .ADDR_W           (RX_FIFO_ADDR_W),
        .STORE_AND_FORWARD(1'b0),
        .DROP_WHEN_FULL   (1'b1)
    ) wan_rx_fifo (
        .clk     (cmac_clk),
        .reset   (core_reset),
        .s_tvalid(s_axis_cmac_rx_tvalid),
        .s_tdata (s_axis_cmac_rx_tdata),
        .s_tkeep (s_axis_cmac_rx_tkeep),
        .s_tlast (s_axis_cmac_rx_tlast),
        .s_tuser (s_axis_cmac_rx_tuser_err),
        .s_tready(unused_wan_rx_fifo_tready),
        .m_tvalid(wan_rx_tvalid),
        .m_tdata (wan_rx_tdata),
        .m_tkeep (wan_rx_tkeep),
        .m_tlast (wan_rx_tlast),
        .m_tuser (wan_rx_tuser),
        .m_tready(wan_rx_tready),
        .dropped (unused_wan_rx_fifo_dropped)
    );

    cngw_box_fifo #(
        .ADDR_W           (TX_FIFO_ADDR_W),
        .STORE_AND_FORWARD(1'b1),
        .DROP_WHEN_FULL   (1'b0)
    ) wan_tx_fifo (
        .clk     (cmac_clk),
        .reset   (core_reset),
        .s_tvalid(wan_tx_tvalid),
        .s_tdata (wan_tx_tdata),
        .s_tkeep (wan_tx_tkeep),
        .s_tlast (wan_tx_tlast),
        .s_tuser (wan_tx_tuser),
        .s_tready(wan_tx_tready),
        .m_tvalid(m_axis_cmac_tx_tvalid),
        .m_tdata (m_axis_cmac_tx_tdata),
        .m_tkeep (m_axis_cmac_tx_tkeep),
        .m_tlast (m_axis_cmac_tx_tlast),
        .m_tuser (m_axis_cmac_tx_tuser_err),
        .m_tready(m_axis_cmac_tx_tready),
        .dropped (unused_wan_tx_fifo_dropped)
    );

    // ------------------------------------------------------------------
    // The gateway.
    // ------------------------------------------------------------------
    // Parsed-header taps (one clock after each frame's last beat) are for
    // an on-chip consumer such as a flow monitor or an ILA; nothing in the
    // box reads them.
    wire         unused_dc_hdr_valid;
    wire [1:0]   unused_dc_hdr_class;
    wire         unused_dc_hdr_vlan_present;
    wire [11:0]  unused_dc_hdr_vlan_id;
    wire [47:0]  unused_dc_hdr_src_mac;
    wire         unused_dc_hdr_is_ipv6;
    wire [127:0] unused_dc_hdr_src_ip;
    wire [127:0] unused_dc_hdr_dst_ip;
    wire [1:0]   unused_dc_hdr_ecn;
    wire [19:0]  unused_dc_hdr_flow_label;
    wire [15:0]  unused_dc_hdr_udp_src_port;
    wire [7:0]   unused_dc_hdr_opcode;
    wire [15:0]  unused_dc_hdr_pkey;
    wire [23:0]  unused_dc_hdr_dest_qp;
    wire [23:0]  unused_dc_hdr_psn;
    wire         unused_wan_hdr_valid;
    wire [1:0]   unused_wan_hdr_class;
    wire         unused_wan_hdr_vlan_present;
    wire [11:0]  unused_wan_hdr_vlan_id;
    wire [47:0]  unused_wan_hdr_src_mac;
    wire         unused_wan_hdr_is_ipv6;
    wire [127:0] unused_wan_hdr_src_ip;
    wire [127:0] unused_wan_hdr_dst_ip;
    wire [1:0]   unused_wan_hdr_ecn;
    wire [19:0]  unused_wan_hdr_flow_label;
    wire [15:0]  unused_wan_hdr_udp_src_port;
    wire [7:0]   unused_wan_hdr_opcode;
    wire [15:0]  unused_wan_hdr_pkey;
    wire [23:0]  unused_wan_hdr_dest_qp;
    wire [23:0]  unused_wan_hdr_psn;

    cngw_gateway gateway (
        .clock                  (cmac_clk),
        .reset                  (core_reset),

        // Data-centre side: the packet adapter.
        .dc_rx_tdata            (s_axis_adap_tx_322mhz_tdata),
        .dc_rx_tkeep            (s_axis_adap_tx_322mhz_tkeep),
        .dc_rx_tvalid           (s_axis_adap_tx_322mhz_tvalid),
        .dc_rx_tready           (s_axis_adap_tx_322mhz_tready),
        .dc_rx_tlast            (s_axis_adap_tx_322mhz_tlast),
        .dc_rx_tuser            (s_axis_adap_tx_322mhz_tuser_err),
        .dc_tx_tdata            (m_axis_adap_rx_322mhz_tdata),
        .dc_tx_tkeep            (m_axis_adap_rx_322mhz_tkeep),
        .dc_tx_tvalid           (m_axis_adap_rx_322mhz_tvalid),
        // The adapter's receive side has no tready: it always takes a beat.
        .dc_tx_tready           (1'b1),
        .dc_tx_tlast            (m_axis_adap_rx_322mhz_tlast),
        .dc_tx_tuser            (m_axis_adap_rx_322mhz_tuser_err),

        // WAN side: the CMAC, through the FIFOs above.
        .wan_rx_tdata           (wan_rx_tdata),
        .wan_rx_tkeep           (wan_rx_tkeep),
        .wan_rx_tvalid          (wan_rx_tvalid),
        .wan_rx_tready          (wan_rx_tready),
        .wan_rx_tlast           (wan_rx_tlast),
        .wan_rx_tuser           (wan_rx_tuser),
        .wan_tx_tdata           (wan_tx_tdata),
        .wan_tx_tkeep           (wan_tx_tkeep),
        .wan_tx_tvalid          (wan_tx_tvalid),
        .wan_tx_tready          (wan_tx_tready),
        .wan_tx_tlast           (wan_tx_tlast),
        .wan_tx_tuser           (wan_tx_tuser),

        // CSR (docs/registers.md), from the clock-domain bridge.
        .s_axil_awaddr          (csr_awaddr),
        .s_axil_awvalid         (csr_awvalid),
        .s_axil_awready         (csr_awready),
        .s_axil_wdata           (csr_wdata),
        .s_axil_wstrb           (csr_wstrb),
        .s_axil_wvalid          (csr_wvalid),
        .s_axil_wready          (csr_wready),
        .s_axil_bresp           (csr_bresp),
        .s_axil_bvalid          (csr_bvalid),
        .s_axil_bready          (csr_bready),
        .s_axil_araddr          (csr_araddr),
        .s_axil_arvalid         (csr_arvalid),
        .s_axil_arready         (csr_arready),
        .s_axil_rdata           (csr_rdata),
        .s_axil_rresp           (csr_rresp),
        .s_axil_rvalid          (csr_rvalid),
        .s_axil_rready          (csr_rready),

        // Queue-depth telemetry, tied off: the shell has no deep queue to
        // report. PORT0_QUEUE_DEPTH_BYTES then stays 0; set
        // PORT0_METER_CONTROL.internal_queue so the gateway acts on its
        // own virtual queue instead. A real integration connects qd_ext_*
        // to the byte occupancy of the WAN egress buffer in front of the
        // CMAC (a traffic manager's port-0 queue) and qd_dc_* to the
        // data-centre egress buffer (the adapter's receive FIFO or the
        // host's C2H ring), both sampled into cmac_clk (docs/integration.md).
        .qd_ext_bytes           (32'd0),
        .qd_ext_valid           (1'b0),
        .qd_dc_bytes            (32'd0),
        .qd_dc_valid            (1'b0),

        .dc_hdr_valid           (unused_dc_hdr_valid),
        .dc_hdr_class           (unused_dc_hdr_class),
        .dc_hdr_vlan_present    (unused_dc_hdr_vlan_present),
        .dc_hdr_vlan_id         (unused_dc_hdr_vlan_id),
        .dc_hdr_src_mac         (unused_dc_hdr_src_mac),
        .dc_hdr_is_ipv6         (unused_dc_hdr_is_ipv6),
        .dc_hdr_src_ip          (unused_dc_hdr_src_ip),
        .dc_hdr_dst_ip          (unused_dc_hdr_dst_ip),
        .dc_hdr_ecn             (unused_dc_hdr_ecn),
        .dc_hdr_flow_label      (unused_dc_hdr_flow_label),
        .dc_hdr_udp_src_port    (unused_dc_hdr_udp_src_port),
        .dc_hdr_opcode          (unused_dc_hdr_opcode),
        .dc_hdr_pkey            (unused_dc_hdr_pkey),
        .dc_hdr_dest_qp         (unused_dc_hdr_dest_qp),
        .dc_hdr_psn             (unused_dc_hdr_psn),
        .wan_hdr_valid          (unused_wan_hdr_valid),
        .wan_hdr_class          (unused_wan_hdr_class),
        .wan_hdr_vlan_present   (unused_wan_hdr_vlan_present),
        .wan_hdr_vlan_id        (unused_wan_hdr_vlan_id),
        .wan_hdr_src_mac        (unused_wan_hdr_src_mac),
        .wan_hdr_is_ipv6        (unused_wan_hdr_is_ipv6),
        .wan_hdr_src_ip         (unused_wan_hdr_src_ip),
        .wan_hdr_dst_ip         (unused_wan_hdr_dst_ip),
        .wan_hdr_ecn            (unused_wan_hdr_ecn),
        .wan_hdr_flow_label     (unused_wan_hdr_flow_label),
        .wan_hdr_udp_src_port   (unused_wan_hdr_udp_src_port),
        .wan_hdr_opcode         (unused_wan_hdr_opcode),
        .wan_hdr_pkey           (unused_wan_hdr_pkey),
        .wan_hdr_dest_qp        (unused_wan_hdr_dest_qp),
        .wan_hdr_psn            (unused_wan_hdr_psn)
    );
endmodule
`default_nettype wire
