// cngw_axil_cdc: AXI4-Lite from the shell's register clock to the core clock.
//
// Part of the OpenNIC integration of cngw (docs/integration.md). OpenNIC's
// user boxes get their register slave on axil_aclk (derived from the PCIe
// user clock); cngw's CSR block runs on cmac_clk. This bridge carries one
// transaction at a time across with a four-phase request/acknowledge
// handshake:
//
//   axil_aclk: accept AW+W (or AR), hold address, data and direction in
//              registers, raise `request`
//   cmac_clk:  see `request` (two-flop synchronizer), copy the held fields
//              into core-side registers, run the transaction on cngw's CSR,
//              hold the response and raise `acknowledge`
//   axil_aclk: see `acknowledge`, copy the held response, drop `request`,
//              answer the shell; the next transaction waits until
//              `acknowledge` has fallen again
//
// The multi-bit fields are never sampled while they change: each is written
// before the handshake bit that announces it and held until the other side
// has answered. The board XDC bounds these paths with
// set_max_delay -datapath_only (constraints/alveo_u250.xdc).
//
// Resets: either side may be reset at any time without breaking the
// handshake. A shell-side reset drops the response of a transaction in
// progress but keeps its request up until the core side has acknowledged it
// (the acknowledge is then discarded), so a late acknowledge can never answer
// a newer transaction. A core-side reset abandons a transaction on cngw's CSR
// and acknowledges every request it sees with SLVERR (read data 0): a
// transaction that meets the core side in reset never reaches cngw and
// answers SLVERR.
//
// Addresses: the shell hands the box a 32-bit offset (OpenNIC subtracts the
// box's base). Offsets below 2**ADDR_W reach cngw's CSR window (0x1000 bytes,
// docs/registers.md); anything above is answered here with SLVERR (reads
// return 0) and never reaches the core. The shell's AXI4-Lite has no WSTRB,
// so every write is a full 32-bit write.
//
// A Vivado AXI Clock Converter (AXI4-Lite, asynchronous clocks) does the same
// job; this one lints with Verilator, needs no IP and keeps one transaction
// in flight, which is all a register interface needs.
`default_nettype none
module cngw_axil_cdc #(
    // Width of cngw's CSR address (its CSR window is 2**ADDR_W bytes).
    parameter integer ADDR_W = 12
) (
    // Shell side (axil_aclk).
    input  wire              axil_aclk,
    input  wire              axil_reset,
    input  wire              s_axil_awvalid,
    input  wire [31:0]       s_axil_awaddr,
    output wire              s_axil_awready,
    input  wire              s_axil_wvalid,
    input  wire [31:0]       s_axil_wdata,
    output wire              s_axil_wready,
    output wire              s_axil_bvalid,
    output wire [1:0]        s_axil_bresp,
    input  wire              s_axil_bready,
    input  wire              s_axil_arvalid,
    input  wire [31:0]       s_axil_araddr,
    output wire              s_axil_arready,
    output wire              s_axil_rvalid,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    input  wire              s_axil_rready,
    // Core side (cmac_clk): cngw's CSR slave.
    input  wire              core_clk,
    input  wire              core_reset,
    output wire              m_axil_awvalid,
    output wire [ADDR_W-1:0] m_axil_awaddr,
    input  wire              m_axil_awready,
    output wire              m_axil_wvalid,
    output wire [31:0]       m_axil_wdata,
    output wire [3:0]        m_axil_wstrb,
    input  wire              m_axil_wready,
    input  wire              m_axil_bvalid,
    input  wire [1:0]        m_axil_bresp,
    output wire              m_axil_bready,
    output wire              m_axil_arvalid,
    output wire [ADDR_W-1:0] m_axil_araddr,
    input  wire              m_axil_arready,
    input  wire              m_axil_rvalid,
    input  wire [31:0]       m_axil_rdata,
    input  wire [1:0]        m_axil_rresp,
    output wire              m_axil_rready
);
    localparam [1:0] RESP_SLVERR = 2'b10;

    // ------------------------------------------------------------------
    // Shell side (axil_aclk).
    // ------------------------------------------------------------------
    localparam [1:0] A_IDLE = 2'd0;  // ready for a transaction
    localparam [1:0] A_WAIT = 2'd1;  // request raised, waiting for the core
    localparam [1:0] A_RESP = 2'd2;  // answering the shell
    localparam [1:0] A_ABORT = 2'd3;  // reset while waiting: request held, answer discarded

    reg  [1:0]        a_state = A_IDLE;
    reg               a_request = 1'b0;
    reg               a_write = 1'b0;
    reg  [ADDR_W-1:0] a_addr = {ADDR_W{1'b0}};
    reg  [31:0]       a_wdata = 32'd0;
    reg               a_bvalid = 1'b0;
    reg               a_rvalid = 1'b0;
    reg  [1:0]        a_resp = 2'b00;
    reg  [31:0]       a_rdata = 32'd0;
    wire              a_acknowledge;

    // A new transaction starts only after the previous acknowledge fell,
    // and never during reset.
    wire        a_free = (a_state == A_IDLE) && !a_acknowledge && !axil_reset;
    wire        a_take_write = a_free && s_axil_awvalid && s_axil_wvalid;
    wire        a_take_read = a_free && s_axil_arvalid && !(s_axil_awvalid && s_axil_wvalid);
    wire [31:0] a_take_addr = a_take_write ? s_axil_awaddr : s_axil_araddr;
    wire        a_outside = |a_take_addr[31:ADDR_W];

    // Core-side response, held while the acknowledge is high.
    reg  [1:0]  c_resp = 2'b00;
    reg  [31:0] c_rdata = 32'd0;

    always @(posedge axil_aclk) begin
        if (axil_reset) begin
            // A raised request stays up until the core side acknowledges
            // it (A_ABORT): dropping it early could leave a late
            // acknowledge to answer the next transaction.
            a_bvalid <= 1'b0;
            a_rvalid <= 1'b0;
            if (a_request) begin
                a_state <= A_ABORT;
            end else begin
                a_state <= A_IDLE;
            end
        end else begin
            case (a_state)
                A_IDLE: begin
                    if (a_take_write || a_take_read) begin
                        a_write <= a_take_write;
                        a_addr  <= a_take_addr[ADDR_W-1:0];
                        a_wdata <= s_axil_wdata;
                        if (a_outside) begin
                            a_resp   <= RESP_SLVERR;
                            a_rdata  <= 32'd0;
                            a_bvalid <= a_take_write;
                            a_rvalid <= a_take_read;
                            a_state  <= A_RESP;
                        end else begin
                            a_request <= 1'b1;
                            a_state   <= A_WAIT;
                        end
                    end
                end
                A_WAIT: begin
                    if (a_acknowledge) begin
                        // Crossing: c_resp and c_rdata settled before the
                        // acknowledge was raised.
                        a_resp    <= c_resp;
                        a_rdata   <= c_rdata;
                        a_request <= 1'b0;
                        a_bvalid  <= a_write;
                        a_rvalid  <= !a_write;
                        a_state   <= A_RESP;
                    end
                end
                A_ABORT: begin
                    if (a_acknowledge) begin
                        a_request <= 1'b0;
                        a_state   <= A_IDLE;
                    end
                end
                default: begin
                    if ((a_bvalid && s_axil_bready) || (a_rvalid && s_axil_rready)) begin
                        a_bvalid <= 1'b0;
                        a_rvalid <= 1'b0;
                        a_state  <= A_IDLE;
                    end
                end
            endcase
        end
    end

    assign s_axil_awready = a_take_write;
    assign s_axil_wready  = a_take_write;
    assign s_axil_arready = a_take_read;
    assign s_axil_bvalid  = a_bvalid;
    assign s_axil_bresp   = a_resp;
    assign s_axil_rvalid  = a_rvalid;
    assign s_axil_rdata   = a_rdata;
    assign s_axil_rresp   = a_resp;

    // ------------------------------------------------------------------
    // Core side (cmac_clk).
    // ------------------------------------------------------------------
    localparam [2:0] C_IDLE = 3'd0;  // waiting for a request
    localparam [2:0] C_AW_W = 3'd1;  // write address and data offered
    localparam [2:0] C_B = 3'd2;  // waiting for the write response
    localparam [2:0] C_AR = 3'd3;  // read address offered
    localparam [2:0] C_R = 3'd4;  // waiting for the read data
    localparam [2:0] C_ACK = 3'd5;  // acknowledge raised, waiting for the request to fall

    reg  [2:0]        c_state = C_IDLE;
    reg               c_acknowledge = 1'b0;
    reg  [ADDR_W-1:0] c_addr = {ADDR_W{1'b0}};
    reg  [31:0]       c_wdata = 32'd0;
    reg               c_aw_pending = 1'b0;
    reg               c_w_pending = 1'b0;
    wire              c_request;

    cngw_box_sync request_sync (
        .clk(core_clk),
        .d  (a_request),
        .q  (c_request)
    );

    always @(posedge core_clk) begin
        if (core_reset) begin
            // Abandon the CSR transaction (cngw is reset too). A request
            // seen now is acknowledged with SLVERR, unless it was already
            // acknowledged with its real response; the acknowledge stays
            // up until the request falls, as in C_ACK.
            c_aw_pending <= 1'b0;
            c_w_pending  <= 1'b0;
            if (c_request) begin
                if (c_state != C_ACK) begin
                    c_resp  <= RESP_SLVERR;
                    c_rdata <= 32'd0;
                end
                c_acknowledge <= 1'b1;
                c_state       <= C_ACK;
            end else begin
                c_acknowledge <= 1'b0;
                c_state       <= C_IDLE;
            end
        end else begin
            case (c_state)
                C_IDLE: begin
                    if (c_request) begin
                        // Crossing: a_addr, a_wdata and a_write settled
                        // before the request was raised.
                        c_addr  <= a_addr;
                        c_wdata <= a_wdata;
                        if (a_write) begin
                            c_aw_pending <= 1'b1;
                            c_w_pending  <= 1'b1;
                            c_state      <= C_AW_W;
                        end else begin
                            c_state <= C_AR;
                        end
                    end
                end
                C_AW_W: begin
                    if (m_axil_awready) begin
                        c_aw_pending <= 1'b0;
                    end
                    if (m_axil_wready) begin
                        c_w_pending <= 1'b0;
                    end
                    if ((!c_aw_pending || m_axil_awready) && (!c_w_pending || m_axil_wready)) begin
                        c_state <= C_B;
                    end
                end
                C_B: begin
                    if (m_axil_bvalid) begin
                        c_resp        <= m_axil_bresp;
                        c_acknowledge <= 1'b1;
                        c_state       <= C_ACK;
                    end
                end
                C_AR: begin
                    if (m_axil_arready) begin
                        c_state <= C_R;
                    end
                end
                C_R: begin
                    if (m_axil_rvalid) begin
                        c_resp        <= m_axil_rresp;
                        c_rdata       <= m_axil_rdata;
                        c_acknowledge <= 1'b1;
                        c_state       <= C_ACK;
                    end
                end
                default: begin
                    if (!c_request) begin
                        c_acknowledge <= 1'b0;
                        c_state       <= C_IDLE;
                    end
                end
            endcase
        end
    end

    cngw_box_sync acknowledge_sync (
        .clk(axil_aclk),
        .d  (c_acknowledge),
        .q  (a_acknowledge)
    );

    assign m_axil_awvalid = c_aw_pending;
    assign m_axil_awaddr  = c_addr;
    assign m_axil_wvalid  = c_w_pending;
    assign m_axil_wdata   = c_wdata;
    assign m_axil_wstrb   = 4'hf;
    assign m_axil_bready  = (c_state == C_B);
    assign m_axil_arvalid = (c_state == C_AR);
    assign m_axil_araddr  = c_addr;
    assign m_axil_rready  = (c_state == C_R);
endmodule
`default_nettype wire
