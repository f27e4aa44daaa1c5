// cngw_box_fifo: a 512-bit AXI4-Stream FIFO for the OpenNIC 322 MHz box.
//
// Part of the OpenNIC integration of cngw (docs/integration.md). One clock.
// Two roles, chosen by parameters:
//
// - DROP_WHEN_FULL (in front of cngw's wan_rx): the CMAC receive stream has
//   no tready, but cngw may hold wan_rx back for a few clocks (while a
//   notification goes out on dc_tx). The FIFO absorbs that. It never refuses
//   a beat: a frame whose first beat finds fewer than two free entries is
//   dropped whole; a frame that runs out of room part-way is cut short, its
//   last stored beat marked tlast with tuser (the error flag) set, and the
//   rest discarded. `dropped` pulses once per frame dropped or cut. The
//   CMAC is not reset with the box: a frame arriving across a reset is
//   discarded to its end, never passed on without its head.
// - STORE_AND_FORWARD (behind cngw's wan_tx): the CMAC transmit side needs
//   tvalid to stay high from a frame's first beat to its last. A frame is
//   released only once its last beat is stored, so it leaves without gaps.
//   A frame longer than the FIFO is released when the FIFO fills (cut
//   through) and may then have gaps: size ADDR_W for the largest frame
//   (2**ADDR_W beats of 64 bytes).
//
// Storage: one synchronous-read memory (block RAM in Vivado) with a
// registered output, plus a one-bit copy of each entry's tlast that the
// store-and-forward bookkeeping reads combinationally (distributed RAM).
`default_nettype none
module cngw_box_fifo #(
    // log2 of the number of 64-byte entries.
    parameter integer ADDR_W = 6,
    // Release only complete frames (transmit side).
    parameter [0:0]   STORE_AND_FORWARD = 1'b0,
    // Never refuse a beat; drop or cut frames that do not fit (receive side).
    parameter [0:0]   DROP_WHEN_FULL = 1'b0
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         s_tvalid,
    input  wire [511:0] s_tdata,
    input  wire [63:0]  s_tkeep,
    input  wire         s_tlast,
    input  wire         s_tuser,
    // Always high with DROP_WHEN_FULL.
    output wire         s_tready,
    output wire         m_tvalid,
    output wire [511:0] m_tdata,
    output wire [63:0]  m_tkeep,
    output wire         m_tlast,
    output wire         m_tuser,
    input  wire         m_tready,
    // One clock per frame dropped or cut short (DROP_WHEN_FULL only).
    output wire         dropped
);
    localparam integer DEPTH = 1 << ADDR_W;
    localparam integer WIDTH = 512 + 64 + 2;
    localparam [ADDR_W:0] ZERO = {(ADDR_W + 1) {1'b0}};
    localparam [ADDR_W:0] ONE = {{ADDR_W{1'b0}}, 1'b1};
    // Fill level at which fewer than two entries are free.
    localparam [ADDR_W:0] NEARLY_FULL = {1'b0, {(ADDR_W - 1) {1'b1}}, 1'b1};

    reg [WIDTH-1:0] memory[0:DEPTH-1];
    reg             last_copy[0:DEPTH-1];

    reg  [ADDR_W:0] write_ptr = ZERO;
    reg  [ADDR_W:0] read_ptr = ZERO;
    wire [ADDR_W:0] used = write_ptr - read_ptr;
    wire            full = used[ADDR_W];
    wire            empty = (used == ZERO);
    wire            room_for_two = (used < NEARLY_FULL);

    // ---- Write side ----
    reg in_frame = 1'b0;  // beats of an accepted frame are arriving
    reg discarding = 1'b0;  // the rest of the current frame goes nowhere
    reg dropped_q = 1'b0;
    reg write_en;
    reg write_last;
    reg write_user;

    // Input framing, tracked through resets: high between a frame's first
    // and last beat at the input.
    reg  in_mid_frame = 1'b0;
    wire in_mid_frame_next = (s_tvalid && s_tready) ? !s_tlast : in_mid_frame;

    always @(posedge clk) begin
        in_mid_frame <= in_mid_frame_next;
    end

    always @(*) begin
        write_en   = 1'b0;
        write_last = s_tlast;
        write_user = s_tuser;
        if (DROP_WHEN_FULL) begin
            if (s_tvalid && !discarding) begin
                if (room_for_two) begin
                    write_en = 1'b1;
                end else if (in_frame && !full) begin
                    // The last free entry ends the frame, marked bad.
                    write_en = 1'b1;
                    if (!s_tlast) begin
                        write_last = 1'b1;
                        write_user = 1'b1;
                    end
                end
            end
        end else begin
            write_en = s_tvalid && !full;
        end
    end

    assign s_tready = DROP_WHEN_FULL ? 1'b1 : !full;
    assign dropped  = dropped_q;

    // ---- Read side ----
    reg  [WIDTH-1:0] out_q;
    reg              out_valid = 1'b0;
    reg  [ADDR_W:0]  frames = ZERO;  // complete frames in the memory
    reg              cut_through = 1'b0;  // releasing a frame before its end arrived
    wire             fetch_last = last_copy[read_ptr[ADDR_W-1:0]];
    wire             release_ok = !STORE_AND_FORWARD || (frames != ZERO) || full || cut_through;
    wire             fetch = !empty && release_ok && (!out_valid || m_tready);

    always @(posedge clk) begin
        if (write_en) begin
            memory[write_ptr[ADDR_W-1:0]]    <= {write_user, write_last, s_tkeep, s_tdata};
            last_copy[write_ptr[ADDR_W-1:0]] <= write_last;
        end
        if (fetch) begin
            out_q <= memory[read_ptr[ADDR_W-1:0]];
        end
    end

    always @(posedge clk) begin
        if (reset) begin
            write_ptr   <= ZERO;
            read_ptr    <= ZERO;
            frames      <= ZERO;
            cut_through <= 1'b0;
            out_valid   <= 1'b0;
            in_frame    <= 1'b0;
            // With DROP_WHEN_FULL the source (the CMAC) keeps streaming
            // through a reset: discard the rest of a frame arriving across
            // it. Otherwise the source is reset too and starts afresh.
            discarding  <= DROP_WHEN_FULL && in_mid_frame_next;
            dropped_q   <= 1'b0;
        end else begin
            if (write_en) begin
                write_ptr <= write_ptr + ONE;
            end
            if (fetch) begin
                read_ptr <= read_ptr + ONE;
            end
            case ({write_en && write_last, fetch && fetch_last})
                2'b10:   frames <= frames + ONE;
                2'b01:   frames <= frames - ONE;
                default: frames <= frames;
            endcase
            if (fetch) begin
                cut_through <= !fetch_last && (frames == ZERO);
            end
            if (fetch) begin
                out_valid <= 1'b1;
            end else if (m_tready) begin
                out_valid <= 1'b0;
            end

            dropped_q <= 1'b0;
            if (s_tvalid) begin
                if (discarding) begin
                    discarding <= !s_tlast;
                end else if (write_en) begin
                    in_frame <= !write_last;
                    if (write_last && !s_tlast) begin
                        discarding <= 1'b1;
                        dropped_q  <= 1'b1;
                    end
                end else if (DROP_WHEN_FULL) begin
                    discarding <= !s_tlast;
                    dropped_q  <= 1'b1;
                end
            end
        end
    end

    assign m_tvalid = out_valid;
    assign m_tdata  = out_q[511:0];
    assign m_tkeep  = out_q[575:512];
    assign m_tlast  = out_q[576];
    assign m_tuser  = out_q[577];
endmodule
`default_nettype wire
