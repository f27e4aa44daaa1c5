// tb_axil_cdc: self-checking testbench of cngw_axil_cdc (with cngw_box_reset
// making the core-side reset, as in cngw_opennic_box).
//
// Run by hdl/tests/shell_wrapper.rs with `verilator --binary --timing`.
// Plusargs: +seed=N, +aclk_ps=P and +cclk_ps=P (clock periods in ps),
// +ops=N (random transactions before the final read-back).
//
// Shell side (axil_aclk): a random AXI4-Lite master with independent write and
// read streams, up to three of each outstanding, random valid delays and
// random bready/rready. Addresses: inside the 4 KiB window (16 registers,
// random low bits, plus a few in a hole at 0xF00.. where the far side answers
// SLVERR) or above it. About once every 1500 clocks the shell pulses
// mod_rstn, which resets the bridge's shell side and the master (its
// outstanding transactions are forgotten) and, through cngw_box_reset, the
// core side and the far-side register file.
//
// Core side (core_clk): a register file of 1024 words with random
// awready/wready/arready and random response latency.
//
// Checks:
// - every operation the far side executes is the oldest accepted in-window
//   transaction not yet executed (kind, address, write data), so nothing is
//   lost, duplicated or reordered; transactions accepted before a reset may
//   be missing, but never run after a later one; one at a time;
// - every response comes in order for a transaction of its own channel and
//   carries the far side's response and read data; a transaction above the
//   window answers SLVERR (read data 0) and never reaches the far side; an
//   in-window transaction that the far side did not run may only answer
//   SLVERR, and only if the core side was reset while it was pending;
// - a read returns the last value written to its register (checked whenever
//   no reset came between that write and the read), and after the random
//   phase every register is written and read back;
// - AXI4-Lite rules on both sides: valid held until ready with stable
//   payload, writes preferred when a write and a read are offered together,
//   awready only together with wready, wstrb all ones;
// - the bridge never hangs (watchdog) and mod_rst_done comes back.
`timescale 1ps / 1ps
`default_nettype none
module tb_axil_cdc;
    localparam integer MAXOPS = 65536;
    localparam [1:0] OKAY = 2'b00;
    localparam [1:0] SLVERR = 2'b10;

    // ---------------- clocks ----------------
    integer aclk_ps = 8000;
    integer cclk_ps = 3103;
    integer seed = 1;
    integer n_ops = 3000;
    reg     aclk = 1'b0;
    reg     cclk = 1'b0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if (!$value$plusargs("aclk_ps=%d", aclk_ps)) aclk_ps = 8000;
        if (!$value$plusargs("cclk_ps=%d", cclk_ps)) cclk_ps = 3103;
        if (!$value$plusargs("ops=%d", n_ops)) n_ops = 3000;
        void'($urandom(seed));
        $display("tb_axil_cdc: seed %0d, axil_aclk %0d ps, core_clk %0d ps, %0d transactions",
                 seed, aclk_ps, cclk_ps, n_ops);
    end

    initial begin
        #(1000 + 77);
        forever begin
            #(aclk_ps / 2) aclk = 1'b1;
            #(aclk_ps - aclk_ps / 2) aclk = 1'b0;
        end
    end

    initial begin
        #(1000 + 1234);
        forever begin
            #(cclk_ps / 2) cclk = 1'b1;
            #(cclk_ps - cclk_ps / 2) cclk = 1'b0;
        end
    end

    // ---------------- DUT ----------------
    reg         mod_rstn = 1'b1;
    wire        mod_rst_done;
    wire        core_reset;

    reg         s_awvalid = 1'b0;
    reg  [31:0] s_awaddr = 32'd0;
    wire        s_awready;
    reg         s_wvalid = 1'b0;
    reg  [31:0] s_wdata = 32'd0;
    wire        s_wready;
    wire        s_bvalid;
    wire [1:0]  s_bresp;
    reg         s_bready = 1'b0;
    reg         s_arvalid = 1'b0;
    reg  [31:0] s_araddr = 32'd0;
    wire        s_arready;
    wire        s_rvalid;
    wire [31:0] s_rdata;
    wire [1:0]  s_rresp;
    reg         s_rready = 1'b0;

    wire        m_awvalid;
    wire [11:0] m_awaddr;
    reg         m_awready = 1'b0;
    wire        m_wvalid;
    wire [31:0] m_wdata;
    wire [3:0]  m_wstrb;
    reg         m_wready = 1'b0;
    reg         m_bvalid = 1'b0;
    reg  [1:0]  m_bresp = 2'b00;
    wire        m_bready;
    wire        m_arvalid;
    wire [11:0] m_araddr;
    reg         m_arready = 1'b0;
    reg         m_rvalid = 1'b0;
    reg  [31:0] m_rdata = 32'd0;
    reg  [1:0]  m_rresp = 2'b00;
    wire        m_rready;

    cngw_box_reset #(
        .HOLD_CYCLES(64)
    ) reset_bridge (
        .axil_aclk   (aclk),
        .mod_rstn    (mod_rstn),
        .mod_rst_done(mod_rst_done),
        .cmac_clk    (cclk),
        .core_reset  (core_reset)
    );

    cngw_axil_cdc #(
        .ADDR_W(12)
    ) dut (
        .axil_aclk     (aclk),
        .axil_reset    (!mod_rstn),
        .s_axil_awvalid(s_awvalid),
        .s_axil_awaddr (s_awaddr),
        .s_axil_awready(s_awready),
        .s_axil_wvalid (s_wvalid),
        .s_axil_wdata  (s_wdata),
        .s_axil_wready (s_wready),
        .s_axil_bvalid (s_bvalid),
        .s_axil_bresp  (s_bresp),
        .s_axil_bready (s_bready),
        .s_axil_arvalid(s_arvalid),
        .s_axil_araddr (s_araddr),
        .s_axil_arready(s_arready),
        .s_axil_rvalid (s_rvalid),
        .s_axil_rdata  (s_rdata),
        .s_axil_rresp  (s_rresp),
        .s_axil_rready (s_rready),
        .core_clk      (cclk),
        .core_reset    (core_reset),
        .m_axil_awvalid(m_awvalid),
        .m_axil_awaddr (m_awaddr),
        .m_axil_awready(m_awready),
        .m_axil_wvalid (m_wvalid),
        .m_axil_wdata  (m_wdata),
        .m_axil_wstrb  (m_wstrb),
        .m_axil_wready (m_wready),
        .m_axil_bvalid (m_bvalid),
        .m_axil_bresp  (m_bresp),
        .m_axil_bready (m_bready),
        .m_axil_arvalid(m_arvalid),
        .m_axil_araddr (m_araddr),
        .m_axil_arready(m_arready),
        .m_axil_rvalid (m_rvalid),
        .m_axil_rdata  (m_rdata),
        .m_axil_rresp  (m_rresp),
        .m_axil_rready (m_rready)
    );

    // ---------------- bookkeeping ----------------
    integer errors = 0;

    task automatic fail(input string msg);
        errors = errors + 1;
        $display("ERROR at %0t ps: %s", $time, msg);
        if (errors >= 10) $fatal(1, "tb_axil_cdc: FAIL (seed %0d)", seed);
    endtask

    // One record per accepted transaction (id = acceptance order).
    reg         t_write    [0:MAXOPS-1];
    reg  [31:0] t_addr     [0:MAXOPS-1];
    reg  [31:0] t_data     [0:MAXOPS-1];
    integer     t_epoch    [0:MAXOPS-1];
    reg         t_core_rst [0:MAXOPS-1];  // core reset while pending
    reg         t_exec     [0:MAXOPS-1];  // the far side ran it
    reg  [1:0]  t_far_resp [0:MAXOPS-1];
    reg  [31:0] t_far_data [0:MAXOPS-1];
    reg         t_known    [0:MAXOPS-1];  // read: expected value known
    reg  [31:0] t_expect   [0:MAXOPS-1];
    integer     n_ids = 0;
    integer     epoch = 0;  // shell resets so far

    // Accepted in-window transactions the far side has not run yet.
    integer     pending_q[$];
    // Accepted transactions waiting for their response, per channel.
    integer     b_q[$];
    integer     r_q[$];

    // Value last written to each register, if no reset came since.
    reg  [31:0] ref_value [0:1023];
    reg         ref_known [0:1023];

    function automatic bit inside_window(input [31:0] a);
        return a[31:12] == 20'd0;
    endfunction

    function automatic bit is_hole(input [11:0] a);
        return a[11:8] == 4'hf;
    endfunction

    function automatic bit droppable(input integer id);
        return t_epoch[id] != epoch || t_core_rst[id];
    endfunction

    // The far side runs an operation: it must be the oldest pending one
    // (older ones that a reset may have swallowed are skipped).
    function automatic integer far_match(input bit write, input [11:0] a, input [31:0] d);
        integer id;
        while (pending_q.size() != 0) begin
            id = pending_q[0];
            if (t_write[id] == write && t_addr[id][11:0] == a && (!write || t_data[id] == d)) begin
                void'(pending_q.pop_front());
                return id;
            end
            if (!droppable(id)) begin
                fail($sformatf("far side ran %s 0x%03x (0x%08x) but the oldest pending is %s 0x%08x (0x%08x), id %0d",
                               write ? "write" : "read", a, d, t_write[id] ? "write" : "read",
                               t_addr[id], t_data[id], id));
                return -1;
            end
            void'(pending_q.pop_front());
        end
        fail($sformatf("far side ran %s 0x%03x (0x%08x) that nobody issued (or twice)",
                       write ? "write" : "read", a, d));
        return -1;
    endfunction

    function automatic void forget_pending(input integer id);
        integer k;
        for (k = 0; k < pending_q.size(); k = k + 1) begin
            if (pending_q[k] == id) begin
                pending_q.delete(k);
                return;
            end
        end
    endfunction

    function automatic [31:0] random_addr();
        integer pick;
        pick = $urandom_range(99, 0);
        if (pick < 80) return {20'd0, 4'd0, 4'($urandom_range(15, 0)), 2'd0, 2'($urandom)};
        if (pick < 86) return {20'd0, 4'hf, 6'($urandom), 2'd0};
        if (pick < 90) return 32'h0000_1000 | 32'($urandom_range(4095, 0));
        if (pick < 94) return 32'hffff_f000 | 32'($urandom_range(4095, 0));
        return (32'd1 << $urandom_range(31, 12)) | ($urandom & 32'h7fff_ffff);
    endfunction

    // ---------------- shell side: master, reset pulses, checks ----------------
    integer     cycle = 0;
    integer     last_progress = 0;
    integer     writes_issued = 0;
    integer     reads_issued = 0;
    integer     done_ok = 0;
    integer     done_outside = 0;
    integer     done_far_err = 0;
    integer     done_aborted = 0;
    integer     resets = 0;
    integer     reset_left = 0;
    integer     quiet_until = 0;
    reg         have_w = 1'b0;
    reg         have_r = 1'b0;
    integer     aw_wait = 0;
    integer     w_wait = 0;
    integer     ar_wait = 0;
    reg  [31:0] w_addr_c = 32'd0;
    reg  [31:0] w_data_c = 32'd0;
    reg  [31:0] r_addr_c = 32'd0;
    reg         prev_bvalid = 1'b0;
    reg         prev_bready = 1'b0;
    reg  [1:0]  prev_bresp = 2'b00;
    reg         prev_rvalid = 1'b0;
    reg         prev_rready = 1'b0;
    reg  [1:0]  prev_rresp = 2'b00;
    reg  [31:0] prev_rdata = 32'd0;
    // Final phase: write every register, then read every register.
    integer     phase = 0;
    integer     final_w = 0;
    integer     final_r = 0;
    integer     total_ops = 0;

    integer     i;
    initial begin
        for (i = 0; i < 1024; i = i + 1) begin
            ref_value[i] = 32'd0;
            ref_known[i] = 1'b0;
        end
    end

    task automatic check_response(input integer id, input [1:0] resp, input [31:0] data);
        string what;
        what = $sformatf("%s 0x%08x (id %0d)", t_write[id] ? "write" : "read", t_addr[id], id);
        if (!inside_window(t_addr[id])) begin
            if (resp != SLVERR) fail($sformatf("%s above the window answered %0d, not SLVERR", what, resp));
            if (!t_write[id] && data != 32'd0) fail($sformatf("%s above the window returned 0x%08x", what, data));
            done_outside = done_outside + 1;
        end else if (t_exec[id]) begin
            if (resp != t_far_resp[id])
                fail($sformatf("%s answered %0d, the far side said %0d", what, resp, t_far_resp[id]));
            if (!t_write[id] && data != t_far_data[id])
                fail($sformatf("%s returned 0x%08x, the far side said 0x%08x", what, data, t_far_data[id]));
            if (!t_write[id] && t_known[id] && resp == OKAY && data != t_expect[id])
                fail($sformatf("%s returned 0x%08x, last written 0x%08x", what, data, t_expect[id]));
            if (t_far_resp[id] == OKAY) done_ok = done_ok + 1;
            else done_far_err = done_far_err + 1;
        end else begin
            // Not run by the far side: only a core reset may have swallowed it.
            if (!t_core_rst[id] || resp != SLVERR)
                fail($sformatf("%s answered %0d but the far side never ran it (core reset while pending: %0d)",
                               what, resp, t_core_rst[id]));
            if (!t_write[id] && data != 32'd0)
                fail($sformatf("%s swallowed by a reset returned 0x%08x", what, data));
            forget_pending(id);
            if (t_write[id]) ref_known[t_addr[id][11:2]] = 1'b0;
            done_aborted = done_aborted + 1;
        end
    endtask

    always @(posedge aclk) begin
        integer id;
        cycle = cycle + 1;
        if (!mod_rstn) begin
            // The master is reset with the box: outstanding transactions
            // are forgotten.
            have_w = 1'b0;
            have_r = 1'b0;
            b_q.delete();
            r_q.delete();
            s_awvalid <= 1'b0;
            s_wvalid  <= 1'b0;
            s_arvalid <= 1'b0;
            s_bready  <= 1'b0;
            s_rready  <= 1'b0;
            for (i = 0; i < 1024; i = i + 1) ref_known[i] = 1'b0;
            prev_bvalid = 1'b0;
            prev_rvalid = 1'b0;
            last_progress = cycle;
            if (reset_left <= 1) mod_rstn <= 1'b1;
            reset_left = reset_left - 1;
        end else begin
            // -- AXI rules on the bridge's shell side --
            if (s_awready != s_wready) fail("awready and wready differ");
            if (s_awready && !(s_awvalid && s_wvalid)) fail("awready without awvalid and wvalid");
            if (s_arready && !s_arvalid) fail("arready without arvalid");
            if (s_arready && s_awvalid && s_wvalid) fail("read taken while a write was offered");
            if (s_arready && s_awready) fail("read and write taken together");
            if (prev_bvalid && !prev_bready && (!s_bvalid || s_bresp != prev_bresp))
                fail("bvalid dropped or bresp changed before bready");
            if (prev_rvalid && !prev_rready && (!s_rvalid || s_rresp != prev_rresp || s_rdata != prev_rdata))
                fail("rvalid dropped or rresp/rdata changed before rready");

            // -- acceptance (the serialization point) --
            if (s_awvalid && s_wvalid && s_awready && s_wready) begin
                id = n_ids;
                n_ids = n_ids + 1;
                t_write[id] = 1'b1;
                t_addr[id] = s_awaddr;
                t_data[id] = s_wdata;
                t_epoch[id] = epoch;
                t_core_rst[id] = 1'b0;
                t_exec[id] = 1'b0;
                t_known[id] = 1'b0;
                b_q.push_back(id);
                if (inside_window(s_awaddr)) begin
                    pending_q.push_back(id);
                    if (!is_hole(s_awaddr[11:0])) begin
                        ref_value[s_awaddr[11:2]] = s_wdata;
                        ref_known[s_awaddr[11:2]] = 1'b1;
                    end
                end
                have_w = 1'b0;
                s_awvalid <= 1'b0;
                s_wvalid <= 1'b0;
                last_progress = cycle;
            end
            if (s_arvalid && s_arready) begin
                id = n_ids;
                n_ids = n_ids + 1;
                t_write[id] = 1'b0;
                t_addr[id] = s_araddr;
                t_data[id] = 32'd0;
                t_epoch[id] = epoch;
                t_core_rst[id] = 1'b0;
                t_exec[id] = 1'b0;
                t_known[id] = inside_window(s_araddr) && !is_hole(s_araddr[11:0]) && ref_known[s_araddr[11:2]];
                t_expect[id] = ref_value[s_araddr[11:2]];
                r_q.push_back(id);
                if (inside_window(s_araddr)) pending_q.push_back(id);
                have_r = 1'b0;
                s_arvalid <= 1'b0;
                last_progress = cycle;
            end

            // -- responses --
            if (s_bvalid && s_bready) begin
                if (b_q.size() == 0) fail("write response with no write outstanding");
                else check_response(b_q.pop_front(), s_bresp, 32'd0);
                last_progress = cycle;
            end
            if (s_rvalid && s_rready) begin
                if (r_q.size() == 0) fail("read response with no read outstanding");
                else check_response(r_q.pop_front(), s_rresp, s_rdata);
                last_progress = cycle;
            end
            prev_bvalid = s_bvalid;
            prev_bready = s_bready;
            prev_bresp = s_bresp;
            prev_rvalid = s_rvalid;
            prev_rready = s_rready;
            prev_rresp = s_rresp;
            prev_rdata = s_rdata;

            // -- new transactions --
            if (phase == 0) begin
                if (!have_w && b_q.size() < 3 && writes_issued + reads_issued < n_ops
                    && $urandom_range(3, 0) == 0) begin
                    have_w = 1'b1;
                    writes_issued = writes_issued + 1;
                    w_addr_c = random_addr();
                    w_data_c = {writes_issued[19:0], 12'($urandom)};
                    aw_wait = $urandom_range(3, 0) == 0 ? $urandom_range(6, 1) : 0;
                    w_wait = $urandom_range(3, 0) == 0 ? $urandom_range(6, 1) : 0;
                end
                if (!have_r && r_q.size() < 3 && writes_issued + reads_issued < n_ops
                    && $urandom_range(3, 0) == 0) begin
                    have_r = 1'b1;
                    reads_issued = reads_issued + 1;
                    r_addr_c = random_addr();
                    ar_wait = $urandom_range(3, 0) == 0 ? $urandom_range(6, 1) : 0;
                end
                if (writes_issued + reads_issued >= n_ops && !have_w && !have_r
                    && b_q.size() == 0 && r_q.size() == 0 && mod_rst_done) begin
                    phase = 1;
                end
            end else if (phase == 1) begin
                // Write every register once, then read them all back.
                if (!have_w && !have_r && b_q.size() == 0 && r_q.size() == 0) begin
                    if (final_w < 16) begin
                        have_w = 1'b1;
                        w_addr_c = {20'd0, 4'd0, 4'(final_w), 4'd0};
                        w_data_c = $urandom;
                        aw_wait = 0;
                        w_wait = $urandom_range(2, 0);
                        final_w = final_w + 1;
                    end else if (final_r < 16) begin
                        have_r = 1'b1;
                        r_addr_c = {20'd0, 4'd0, 4'(final_r), 4'd0};
                        ar_wait = $urandom_range(2, 0);
                        final_r = final_r + 1;
                    end else begin
                        phase = 2;
                    end
                end
            end else begin
                total_ops = n_ids;
                if (errors != 0) $fatal(1, "tb_axil_cdc: FAIL (seed %0d)", seed);
                for (i = 0; i < 16; i = i + 1) begin
                    if (!ref_known[i * 4]) begin
                        fail($sformatf("register %0d not known after the read-back", i));
                    end
                end
                while (pending_q.size() != 0) begin
                    id = pending_q.pop_front();
                    if (!droppable(id)) fail($sformatf("transaction %0d never ran", id));
                end
                if (errors != 0) $fatal(1, "tb_axil_cdc: FAIL (seed %0d)", seed);
                if (done_ok < n_ops / 3 || resets < 2)
                    $fatal(1, "tb_axil_cdc: too little happened (%0d OKAY, %0d resets)", done_ok, resets);
                $display("tb_axil_cdc: %0d transactions: %0d OKAY, %0d far-side SLVERR, %0d above the window, %0d swallowed by %0d resets",
                         total_ops, done_ok, done_far_err, done_outside, done_aborted, resets);
                $display("PASS tb_axil_cdc seed %0d", seed);
                $finish;
            end

            if (have_w) begin
                if (aw_wait > 0) aw_wait = aw_wait - 1;
                else begin
                    s_awvalid <= 1'b1;
                    s_awaddr  <= w_addr_c;
                end
                if (w_wait > 0) w_wait = w_wait - 1;
                else begin
                    s_wvalid <= 1'b1;
                    s_wdata  <= w_data_c;
                end
            end
            if (have_r) begin
                if (ar_wait > 0) ar_wait = ar_wait - 1;
                else begin
                    s_arvalid <= 1'b1;
                    s_araddr  <= r_addr_c;
                end
            end
            s_bready <= $urandom_range(2, 0) != 0;
            s_rready <= $urandom_range(2, 0) != 0;

            // -- a reset pulse now and then (not in the final phase) --
            if (phase == 0 && cycle > quiet_until && $urandom_range(1499, 0) == 0) begin
                resets = resets + 1;
                epoch = epoch + 1;
                reset_left = $urandom_range(1, 0) == 0 ? 1 : $urandom_range(12, 1);
                quiet_until = cycle + 200;
                mod_rstn <= 1'b0;
            end
        end
        if (cycle - last_progress > 20000) $fatal(1, "tb_axil_cdc: FAIL, no progress for 20000 cycles (seed %0d)", seed);
    end

    // ---------------- core side: register file ----------------
    reg  [31:0] far_mem [0:1023];
    reg         f_have_aw = 1'b0;
    reg         f_have_w = 1'b0;
    reg  [11:0] f_awaddr = 12'd0;
    reg  [31:0] f_wdata = 32'd0;
    integer     f_b_wait = -1;  // clocks until bvalid (-1: no write response due)
    integer     f_r_wait = -1;
    reg         f_prev_awvalid = 1'b0;
    reg         f_prev_awready = 1'b0;
    reg  [11:0] f_prev_awaddr = 12'd0;
    reg         f_prev_wvalid = 1'b0;
    reg         f_prev_wready = 1'b0;
    reg  [31:0] f_prev_wdata = 32'd0;
    reg         f_prev_arvalid = 1'b0;
    reg         f_prev_arready = 1'b0;
    reg  [11:0] f_prev_araddr = 12'd0;
    integer     f_busy_id = -1;
    integer     far_ops = 0;

    initial begin
        for (i = 0; i < 1024; i = i + 1) far_mem[i] = 32'd0;
    end

    always @(posedge cclk) begin
        integer id;
        integer k;
        if (core_reset) begin
            // The register file is reset with the core (as cngw's CSRs are).
            for (k = 0; k < 1024; k = k + 1) far_mem[k] = 32'd0;
            for (k = 0; k < 1024; k = k + 1) ref_known[k] = 1'b0;
            for (k = 0; k < pending_q.size(); k = k + 1) t_core_rst[pending_q[k]] = 1'b1;
            for (k = 0; k < b_q.size(); k = k + 1) t_core_rst[b_q[k]] = 1'b1;
            for (k = 0; k < r_q.size(); k = k + 1) t_core_rst[r_q[k]] = 1'b1;
            f_have_aw = 1'b0;
            f_have_w = 1'b0;
            f_b_wait = -1;
            f_r_wait = -1;
            f_busy_id = -1;
            m_awready <= 1'b0;
            m_wready <= 1'b0;
            m_arready <= 1'b0;
            m_bvalid <= 1'b0;
            m_rvalid <= 1'b0;
            f_prev_awvalid = 1'b0;
            f_prev_wvalid = 1'b0;
            f_prev_arvalid = 1'b0;
        end else begin
            // -- AXI rules on the bridge's core side --
            if (f_prev_awvalid && !f_prev_awready && (!m_awvalid || m_awaddr != f_prev_awaddr))
                fail("core side: awvalid dropped or awaddr changed before awready");
            if (f_prev_wvalid && !f_prev_wready && (!m_wvalid || m_wdata != f_prev_wdata))
                fail("core side: wvalid dropped or wdata changed before wready");
            if (f_prev_arvalid && !f_prev_arready && (!m_arvalid || m_araddr != f_prev_araddr))
                fail("core side: arvalid dropped or araddr changed before arready");
            if (m_wvalid && m_wstrb != 4'hf) fail("core side: wstrb is not 4'hf");
            if (m_arvalid && (f_have_aw || f_have_w || f_b_wait >= 0 || m_bvalid || m_awvalid || m_wvalid))
                fail("core side: a read offered while a write is in progress");
            if ((m_awvalid || m_wvalid) && (f_r_wait >= 0 || m_rvalid))
                fail("core side: a write offered while a read is in progress");
            f_prev_awvalid = m_awvalid;
            f_prev_awready = m_awready;
            f_prev_awaddr = m_awaddr;
            f_prev_wvalid = m_wvalid;
            f_prev_wready = m_wready;
            f_prev_wdata = m_wdata;
            f_prev_arvalid = m_arvalid;
            f_prev_arready = m_arready;
            f_prev_araddr = m_araddr;

            // -- write --
            if (m_awvalid && m_awready) begin
                f_have_aw = 1'b1;
                f_awaddr = m_awaddr;
            end
            if (m_wvalid && m_wready) begin
                f_have_w = 1'b1;
                f_wdata = m_wdata;
            end
            if (f_have_aw && f_have_w) begin
                f_have_aw = 1'b0;
                f_have_w = 1'b0;
                id = far_match(1'b1, f_awaddr, f_wdata);
                far_ops = far_ops + 1;
                m_bresp <= is_hole(f_awaddr) ? SLVERR : OKAY;
                if (!is_hole(f_awaddr)) far_mem[f_awaddr[11:2]] = f_wdata;
                if (id >= 0) begin
                    t_exec[id] = 1'b1;
                    t_far_resp[id] = is_hole(f_awaddr) ? SLVERR : OKAY;
                end
                f_b_wait = $urandom_range(1, 0) == 0 ? 0 : $urandom_range(5, 1);
            end
            if (m_bvalid && m_bready) m_bvalid <= 1'b0;
            if (f_b_wait == 0) begin
                m_bvalid <= 1'b1;
                f_b_wait = -1;
            end else if (f_b_wait > 0) f_b_wait = f_b_wait - 1;

            // -- read --
            if (m_arvalid && m_arready) begin
                id = far_match(1'b0, m_araddr, 32'd0);
                far_ops = far_ops + 1;
                m_rresp <= is_hole(m_araddr) ? SLVERR : OKAY;
                m_rdata <= is_hole(m_araddr) ? {20'hbad00, m_araddr} : far_mem[m_araddr[11:2]];
                if (id >= 0) begin
                    t_exec[id] = 1'b1;
                    t_far_resp[id] = is_hole(m_araddr) ? SLVERR : OKAY;
                    t_far_data[id] = is_hole(m_araddr) ? {20'hbad00, m_araddr} : far_mem[m_araddr[11:2]];
                end
                f_r_wait = $urandom_range(1, 0) == 0 ? 0 : $urandom_range(5, 1);
            end
            if (m_rvalid && m_rready) m_rvalid <= 1'b0;
            if (f_r_wait == 0) begin
                m_rvalid <= 1'b1;
                f_r_wait = -1;
            end else if (f_r_wait > 0) f_r_wait = f_r_wait - 1;

            m_awready <= !f_have_aw && $urandom_range(2, 0) == 0;
            m_wready  <= !f_have_w && $urandom_range(2, 0) == 0;
            m_arready <= $urandom_range(2, 0) == 0;
        end
    end
endmodule
`default_nettype wire
