// tb_box_fifo: self-checking testbench of cngw_box_fifo in both roles.
//
// Run by hdl/tests/shell_wrapper.rs with `verilator --binary --timing`.
// Plusargs: +seed=N, +frames=N (frames per FIFO).
//
// Every beat's tdata is a hash of (frame number, beat number), its tuser a
// hash bit; the last beat has a random contiguous tkeep (1..64 bytes), the
// other beats all ones.
//
// Store and forward (ADDR_W = 5, 32 entries, as behind cngw's wan_tx): a
// source with random idle cycles inside and between frames that honours
// s_tready, a sink with random tready (runs of stalls and of full speed).
// Frames of 1..32 beats, and now and then a longer one (released by cut
// through when the FIFO fills). Checks: every frame comes out intact and in
// order (tdata, tkeep, tlast, tuser per beat); a frame that fits is not
// released before its last beat went in, and once its first beat is offered
// tvalid stays high up to its last beat; tvalid and the beat are held while
// tready is low; `dropped` never pulses.
//
// Drop when full (ADDR_W = 4, 16 entries, as in front of cngw's wan_rx): a
// source that never waits (s_tready must always be high), a sink with runs
// of stalls. A reference model applies the documented rule to the FIFO's
// occupancy (entries written minus entries read into the output register):
// a frame whose first beat finds fewer than two free entries is dropped
// whole; a frame that runs out of room part-way ends in the last free entry,
// marked tlast with tuser set, and the rest of it is discarded; `dropped`
// pulses the clock after each such decision. Checks: the output is exactly
// the reference queue, beat by beat, and `dropped` pulses exactly when
// expected; whole frames, cut frames and dropped frames all occur.
// A reset in the middle (input still streaming) empties the FIFO and the
// frame arriving across it is discarded to its end, never passed headless.
`timescale 1ps / 1ps
`default_nettype none
module tb_box_fifo;
    integer seed = 1;
    integer n_frames = 2000;
    reg     clk = 1'b0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if (!$value$plusargs("frames=%d", n_frames)) n_frames = 2000;
        void'($urandom(seed));
        $display("tb_box_fifo: seed %0d, %0d frames per FIFO", seed, n_frames);
    end

    initial begin
        #1000;
        forever begin
            #1551 clk = 1'b1;
            #1552 clk = 1'b0;
        end
    end

    integer errors = 0;
    integer cycle = 0;

    task automatic fail(input string msg);
        errors = errors + 1;
        $display("ERROR at cycle %0d: %s", cycle, msg);
        if (errors >= 10) $fatal(1, "tb_box_fifo: FAIL (seed %0d)", seed);
    endtask

    function automatic [31:0] mix(input [31:0] x);
        reg [31:0] h;
        h = x;
        h = h ^ (h >> 16);
        h = h * 32'h7feb352d;
        h = h ^ (h >> 15);
        h = h * 32'h846ca68b;
        h = h ^ (h >> 16);
        return h;
    endfunction

    function automatic [511:0] beat_data(input integer f, input integer b, input integer stream);
        reg [511:0] d;
        integer     k;
        for (k = 0; k < 16; k = k + 1)
            d[k*32+:32] = mix(f * 32'h9e3779b9 ^ b * 32'h85ebca6b ^ k * 32'hc2b2ae35 ^ stream * 32'h27d4eb2f);
        return d;
    endfunction

    function automatic bit beat_user(input integer f, input integer b, input integer stream);
        reg [31:0] h;
        h = mix(f * 32'h165667b1 ^ b * 32'h3c6ef372 ^ stream);
        return h[2:0] == 3'd0;
    endfunction

    function automatic [63:0] keep_of(input integer nbytes);
        return {64{1'b1}} >> (64 - nbytes);
    endfunction

    // ================================================================
    // Store and forward.
    // ================================================================
    localparam integer SF_AW = 5;
    localparam integer SF_DEPTH = 1 << SF_AW;

    reg          sf_s_tvalid = 1'b0;
    reg  [511:0] sf_s_tdata = 512'd0;
    reg  [63:0]  sf_s_tkeep = 64'd0;
    reg          sf_s_tlast = 1'b0;
    reg          sf_s_tuser = 1'b0;
    wire         sf_s_tready;
    wire         sf_m_tvalid;
    wire [511:0] sf_m_tdata;
    wire [63:0]  sf_m_tkeep;
    wire         sf_m_tlast;
    wire         sf_m_tuser;
    reg          sf_m_tready = 1'b0;
    wire         sf_dropped;
    reg          sf_reset = 1'b1;

    cngw_box_fifo #(
        .ADDR_W           (SF_AW),
        .STORE_AND_FORWARD(1'b1),
        .DROP_WHEN_FULL   (1'b0)
    ) sf_dut (
        .clk     (clk),
        .reset   (sf_reset),
        .s_tvalid(sf_s_tvalid),
        .s_tdata (sf_s_tdata),
        .s_tkeep (sf_s_tkeep),
        .s_tlast (sf_s_tlast),
        .s_tuser (sf_s_tuser),
        .s_tready(sf_s_tready),
        .m_tvalid(sf_m_tvalid),
        .m_tdata (sf_m_tdata),
        .m_tkeep (sf_m_tkeep),
        .m_tlast (sf_m_tlast),
        .m_tuser (sf_m_tuser),
        .m_tready(sf_m_tready),
        .dropped (sf_dropped)
    );

    integer sf_len      [0:65535];
    integer sf_keep_n   [0:65535];
    reg     sf_in_done  [0:65535];  // last beat accepted at the input
    integer sf_in_f = 0;  // frame being sent
    integer sf_in_b = 0;  // beat being sent
    integer sf_out_f = 0;  // frame expected at the output
    integer sf_out_b = 0;
    reg     sf_started = 1'b0;  // first beat of sf_out_f offered, last not yet taken
    integer sf_stall_run = 0;
    integer sf_ready_mode = 0;
    reg     sf_prev_valid = 1'b0;
    reg     sf_prev_ready = 1'b0;
    reg [577:0] sf_prev_beat = 578'd0;
    integer sf_oversize = 0;
    integer sf_gapfree = 0;
    integer sf_beats = 0;
    integer sf_done_cycle = -1;

    function automatic integer sf_new_len();
        if ($urandom_range(19, 0) == 0) return $urandom_range(SF_DEPTH + 16, SF_DEPTH + 1);
        if ($urandom_range(3, 0) == 0) return $urandom_range(SF_DEPTH, SF_DEPTH - 3);
        return $urandom_range(12, 1);
    endfunction

    initial begin
        integer f;
        for (f = 0; f < 65536; f = f + 1) begin
            sf_in_done[f] = 1'b0;
            sf_len[f] = 0;
        end
    end

    always @(posedge clk) begin
        reg [511:0] d;
        reg [63:0]  k;
        reg         l;
        reg         u;
        if (sf_reset) begin
            sf_s_tvalid <= 1'b0;
            sf_m_tready <= 1'b0;
        end else begin
            // ---- output checks ----
            if (sf_dropped) fail("store-and-forward FIFO pulsed dropped");
            if (sf_prev_valid && !sf_prev_ready
                && (!sf_m_tvalid || {sf_m_tuser, sf_m_tlast, sf_m_tkeep, sf_m_tdata} != sf_prev_beat))
                fail("store and forward: tvalid dropped or beat changed while tready was low");
            if (sf_m_tvalid && sf_out_b == 0 && !sf_started) begin
                sf_started = 1'b1;
                if (sf_out_f >= n_frames) fail("store and forward: a beat after the last frame");
                else if (sf_len[sf_out_f] <= SF_DEPTH && !sf_in_done[sf_out_f])
                    fail($sformatf("store and forward: frame %0d (%0d beats) released before its last beat went in",
                                   sf_out_f, sf_len[sf_out_f]));
            end
            if (sf_started && !sf_m_tvalid && sf_len[sf_out_f] <= SF_DEPTH)
                fail($sformatf("store and forward: gap inside frame %0d (%0d beats) at beat %0d",
                               sf_out_f, sf_len[sf_out_f], sf_out_b));
            if (sf_m_tvalid && sf_m_tready) begin
                d = beat_data(sf_out_f, sf_out_b, 1);
                l = (sf_out_b == sf_len[sf_out_f] - 1);
                k = l ? keep_of(sf_keep_n[sf_out_f]) : {64{1'b1}};
                u = beat_user(sf_out_f, sf_out_b, 1);
                if (sf_m_tdata != d || sf_m_tkeep != k || sf_m_tlast != l || sf_m_tuser != u)
                    fail($sformatf("store and forward: frame %0d beat %0d: tkeep %h tlast %0d tuser %0d data %s, expected tkeep %h tlast %0d tuser %0d",
                                   sf_out_f, sf_out_b, sf_m_tkeep, sf_m_tlast, sf_m_tuser,
                                   sf_m_tdata == d ? "ok" : "WRONG", k, l, u));
                sf_beats = sf_beats + 1;
                if (l) begin
                    if (sf_len[sf_out_f] <= SF_DEPTH) sf_gapfree = sf_gapfree + 1;
                    sf_out_f = sf_out_f + 1;
                    sf_out_b = 0;
                    sf_started = 1'b0;
                    if (sf_out_f == n_frames) sf_done_cycle = cycle;
                end else begin
                    sf_out_b = sf_out_b + 1;
                end
            end
            sf_prev_valid = sf_m_tvalid;
            sf_prev_ready = sf_m_tready;
            sf_prev_beat = {sf_m_tuser, sf_m_tlast, sf_m_tkeep, sf_m_tdata};

            // ---- input ----
            if (sf_s_tvalid && sf_s_tready) begin
                if (sf_s_tlast) begin
                    sf_in_done[sf_in_f] = 1'b1;
                    sf_in_f = sf_in_f + 1;
                    sf_in_b = 0;
                end else begin
                    sf_in_b = sf_in_b + 1;
                end
            end
            if (!(sf_s_tvalid && !sf_s_tready)) begin
                // Free to offer the next beat, or an idle cycle.
                if (sf_in_f < n_frames && $urandom_range(3, 0) != 0) begin
                    if (sf_in_b == 0) begin
                        sf_len[sf_in_f] = sf_new_len();
                        if (sf_len[sf_in_f] > SF_DEPTH) sf_oversize = sf_oversize + 1;
                        sf_keep_n[sf_in_f] = $urandom_range(64, 1);
                    end
                    l = (sf_in_b == sf_len[sf_in_f] - 1);
                    sf_s_tvalid <= 1'b1;
                    sf_s_tdata  <= beat_data(sf_in_f, sf_in_b, 1);
                    sf_s_tkeep  <= l ? keep_of(sf_keep_n[sf_in_f]) : {64{1'b1}};
                    sf_s_tlast  <= l;
                    sf_s_tuser  <= beat_user(sf_in_f, sf_in_b, 1);
                end else begin
                    sf_s_tvalid <= 1'b0;
                end
            end

            // ---- output ready: runs of stalls, of full speed, or random ----
            if (sf_stall_run == 0) begin
                sf_ready_mode = $urandom_range(2, 0);
                sf_stall_run = $urandom_range(60, 1);
            end
            sf_stall_run = sf_stall_run - 1;
            case (sf_ready_mode)
                0: sf_m_tready <= 1'b0;
                1: sf_m_tready <= 1'b1;
                default: sf_m_tready <= $urandom_range(1, 0) == 0;
            endcase
        end
    end

    // ================================================================
    // Drop when full.
    // ================================================================
    localparam integer DR_AW = 4;
    localparam integer DR_DEPTH = 1 << DR_AW;

    reg          dr_s_tvalid = 1'b0;
    reg  [511:0] dr_s_tdata = 512'd0;
    reg  [63:0]  dr_s_tkeep = 64'd0;
    reg          dr_s_tlast = 1'b0;
    reg          dr_s_tuser = 1'b0;
    wire         dr_s_tready;
    wire         dr_m_tvalid;
    wire [511:0] dr_m_tdata;
    wire [63:0]  dr_m_tkeep;
    wire         dr_m_tlast;
    wire         dr_m_tuser;
    reg          dr_m_tready = 1'b0;
    wire         dr_dropped;
    reg          dr_reset = 1'b1;

    cngw_box_fifo #(
        .ADDR_W           (DR_AW),
        .STORE_AND_FORWARD(1'b0),
        .DROP_WHEN_FULL   (1'b1)
    ) dr_dut (
        .clk     (clk),
        .reset   (dr_reset),
        .s_tvalid(dr_s_tvalid),
        .s_tdata (dr_s_tdata),
        .s_tkeep (dr_s_tkeep),
        .s_tlast (dr_s_tlast),
        .s_tuser (dr_s_tuser),
        .s_tready(dr_s_tready),
        .m_tvalid(dr_m_tvalid),
        .m_tdata (dr_m_tdata),
        .m_tkeep (dr_m_tkeep),
        .m_tlast (dr_m_tlast),
        .m_tuser (dr_m_tuser),
        .m_tready(dr_m_tready),
        .dropped (dr_dropped)
    );

    // Reference queue: one entry per beat the FIFO must emit.
    integer     q_frame[$];
    integer     q_beat[$];
    reg         q_last[$];
    reg         q_user[$];
    reg  [63:0] q_keep[$];

    integer dr_len    [0:65535];
    integer dr_keep_n [0:65535];
    integer dr_in_f = 0;
    integer dr_in_b = 0;
    integer dr_written = 0;  // beats the reference wrote into the FIFO
    integer dr_taken = 0;  // beats taken at the output
    reg     dr_in_frame = 1'b0;  // reference: an accepted frame is arriving
    reg     dr_discarding = 1'b0;  // reference: the rest of the frame goes nowhere
    reg     dr_expect_pulse = 1'b0;
    integer dr_stall_run = 0;
    integer dr_ready_mode = 0;
    reg     dr_prev_valid = 1'b0;
    reg     dr_prev_ready = 1'b0;
    reg [577:0] dr_prev_beat = 578'd0;
    integer dr_whole = 0;
    integer dr_cut = 0;
    integer dr_drop = 0;
    integer dr_reset_at = 0;
    integer dr_reset_left = 0;
    integer dr_resets = 0;
    integer dr_done_cycle = -1;

    always @(posedge clk) begin
        reg [511:0] d;
        reg [63:0]  k;
        reg         l;
        reg         u;
        integer     used;
        integer     f;
        integer     b;
        if (dr_reset) begin
            // The FIFO is emptied; the input keeps streaming (the CMAC is
            // not reset with the box). A frame arriving across the reset
            // is discarded to its end.
            q_frame.delete();
            q_beat.delete();
            q_last.delete();
            q_user.delete();
            q_keep.delete();
            dr_written = 0;
            dr_taken = 0;
            dr_in_frame = 1'b0;
            dr_expect_pulse = 1'b0;
            dr_m_tready <= 1'b0;
            dr_prev_valid = 1'b0;
            if (dr_s_tvalid) dr_discarding = !dr_s_tlast;
            if (dr_reset_left <= 1) dr_reset <= 1'b0;
            dr_reset_left = dr_reset_left - 1;
        end else begin
            if (!dr_s_tready) fail("drop-when-full FIFO: s_tready low");
            if (dr_dropped != dr_expect_pulse)
                fail($sformatf("drop when full: dropped is %0d, expected %0d", dr_dropped, dr_expect_pulse));
            if (dr_prev_valid && !dr_prev_ready
                && (!dr_m_tvalid || {dr_m_tuser, dr_m_tlast, dr_m_tkeep, dr_m_tdata} != dr_prev_beat))
                fail("drop when full: tvalid dropped or beat changed while tready was low");

            // Occupancy of the FIFO's memory before this edge.
            used = dr_written - dr_taken - (dr_m_tvalid ? 1 : 0);

            // ---- output ----
            if (dr_m_tvalid && dr_m_tready) begin
                if (q_frame.size() == 0) begin
                    fail("drop when full: a beat the reference does not have");
                end else begin
                    f = q_frame.pop_front();
                    b = q_beat.pop_front();
                    l = q_last.pop_front();
                    u = q_user.pop_front();
                    k = q_keep.pop_front();
                    d = beat_data(f, b, 2);
                    if (dr_m_tdata != d || dr_m_tkeep != k || dr_m_tlast != l || dr_m_tuser != u)
                        fail($sformatf("drop when full: frame %0d beat %0d: tkeep %h tlast %0d tuser %0d data %s, expected tkeep %h tlast %0d tuser %0d",
                                       f, b, dr_m_tkeep, dr_m_tlast, dr_m_tuser,
                                       dr_m_tdata == d ? "ok" : "WRONG", k, l, u));
                end
                dr_taken = dr_taken + 1;
            end
            dr_prev_valid = dr_m_tvalid;
            dr_prev_ready = dr_m_tready;
            dr_prev_beat = {dr_m_tuser, dr_m_tlast, dr_m_tkeep, dr_m_tdata};

            // ---- reference: the input beat at this edge ----
            dr_expect_pulse = 1'b0;
            if (dr_s_tvalid) begin
                l = dr_s_tlast;
                k = dr_s_tkeep;
                u = dr_s_tuser;
                if (dr_discarding) begin
                    dr_discarding = !l;
                end else if (used <= DR_DEPTH - 2) begin
                    q_frame.push_back(dr_in_f);
                    q_beat.push_back(dr_in_b);
                    q_last.push_back(l);
                    q_user.push_back(u);
                    q_keep.push_back(k);
                    dr_written = dr_written + 1;
                    dr_in_frame = !l;
                    if (l) dr_whole = dr_whole + 1;
                end else if (dr_in_frame) begin
                    if (used != DR_DEPTH - 1) fail("reference: a frame in progress found the FIFO full");
                    q_frame.push_back(dr_in_f);
                    q_beat.push_back(dr_in_b);
                    q_last.push_back(1'b1);
                    q_user.push_back(l ? u : 1'b1);
                    q_keep.push_back(k);
                    dr_written = dr_written + 1;
                    dr_in_frame = 1'b0;
                    if (l) begin
                        dr_whole = dr_whole + 1;
                    end else begin
                        dr_discarding = 1'b1;
                        dr_expect_pulse = 1'b1;
                        dr_cut = dr_cut + 1;
                    end
                end else begin
                    dr_discarding = !l;
                    dr_expect_pulse = 1'b1;
                    dr_drop = dr_drop + 1;
                end
            end
        end

        // ---- input: never waits; keeps running through a reset ----
        if (dr_s_tvalid) begin
            if (dr_s_tlast) begin
                dr_in_f = dr_in_f + 1;
                dr_in_b = 0;
            end else begin
                dr_in_b = dr_in_b + 1;
            end
        end
        if (dr_in_f < n_frames && $urandom_range(4, 0) != 0) begin
            if (dr_in_b == 0) begin
                dr_len[dr_in_f] = $urandom_range(3, 0) == 0 ? $urandom_range(DR_DEPTH + 4, 8)
                                                            : $urandom_range(5, 1);
                dr_keep_n[dr_in_f] = $urandom_range(64, 1);
            end
            l = (dr_in_b == dr_len[dr_in_f] - 1);
            dr_s_tvalid <= 1'b1;
            dr_s_tdata  <= beat_data(dr_in_f, dr_in_b, 2);
            dr_s_tkeep  <= l ? keep_of(dr_keep_n[dr_in_f]) : {64{1'b1}};
            dr_s_tlast  <= l;
            dr_s_tuser  <= beat_user(dr_in_f, dr_in_b, 2);
        end else begin
            dr_s_tvalid <= 1'b0;
        end

        if (!dr_reset) begin
            if (dr_stall_run == 0) begin
                dr_ready_mode = $urandom_range(3, 0);
                dr_stall_run = $urandom_range(40, 1);
            end
            dr_stall_run = dr_stall_run - 1;
            case (dr_ready_mode)
                0: dr_m_tready <= 1'b0;
                1, 2: dr_m_tready <= 1'b1;
                default: dr_m_tready <= $urandom_range(1, 0) == 0;
            endcase
            // A reset now and then, in the middle of the stream.
            if (cycle > dr_reset_at && dr_in_f < n_frames - 50 && $urandom_range(2999, 0) == 0) begin
                dr_reset <= 1'b1;
                dr_reset_left = $urandom_range(4, 1);
                dr_reset_at = cycle + 500;
                dr_resets = dr_resets + 1;
                // The frame in progress at the input is discarded to its end,
                // whatever the reference thought of it.
                dr_discarding = dr_in_b != 0;
            end
        end
    end

    // ================================================================
    // Start, end.
    // ================================================================
    always @(posedge clk) begin
        cycle = cycle + 1;
        if (cycle == 4) begin
            sf_reset <= 1'b0;
            dr_reset <= 1'b0;
        end
        if (cycle > 400000) $fatal(1, "tb_box_fifo: FAIL, not done after 400000 cycles (seed %0d)", seed);
        if (sf_done_cycle >= 0 && dr_in_f >= n_frames && q_frame.size() == 0
            && !dr_m_tvalid && dr_done_cycle < 0) begin
            dr_done_cycle = cycle;
        end
        if (sf_done_cycle >= 0 && dr_done_cycle >= 0) begin
            if (sf_in_f != n_frames) fail("store and forward: input not finished");
            if (sf_oversize == 0) fail("store and forward: no oversize frame was sent");
            if (dr_whole < n_frames / 4 || dr_cut < 10 || dr_drop < 10 || dr_resets < 1)
                fail($sformatf("drop when full: too little coverage (%0d whole, %0d cut, %0d dropped, %0d resets)",
                               dr_whole, dr_cut, dr_drop, dr_resets));
            if (errors != 0) $fatal(1, "tb_box_fifo: FAIL (seed %0d)", seed);
            $display("tb_box_fifo: store and forward: %0d frames (%0d beats), %0d gap-free, %0d oversize",
                     sf_out_f, sf_beats, sf_gapfree, sf_oversize);
            $display("tb_box_fifo: drop when full: %0d frames: %0d whole, %0d cut short, %0d dropped, %0d resets",
                     dr_in_f, dr_whole, dr_cut, dr_drop, dr_resets);
            $display("PASS tb_box_fifo seed %0d", seed);
            $finish;
        end
    end
endmodule
`default_nettype wire
