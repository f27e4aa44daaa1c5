// tb_box_reset: self-checking testbench of cngw_box_reset.
//
// Run by hdl/tests/shell_wrapper.rs with `verilator --binary --timing`.
// Plusargs: +seed=N, +aclk_ps=P and +cclk_ps=P (clock periods in ps),
// +pulses=N.
//
// The shell side pulls mod_rstn low for 1..3 axil_aclk cycles (sometimes up
// to 100), sometimes again before mod_rst_done has come back, sometimes long
// after. Checks, for HOLD_CYCLES = 64:
// - at configuration the core is in reset and mod_rst_done is low; the core
//   leaves reset after at least HOLD_CYCLES clocks and mod_rst_done rises;
// - while mod_rstn is low (from the clock after it was first seen low)
//   mod_rst_done is low, and core_reset does not fall (once the request has
//   had time to cross);
// - after mod_rstn rises, core_reset falls exactly once before mod_rst_done
//   rises, after being high for at least HOLD_CYCLES core clocks counted
//   from the rise of mod_rstn; when mod_rst_done rises core_reset is low;
// - core_reset rises only while a request is pending, mod_rst_done falls
//   only on a request, and mod_rst_done comes back in bounded time.
`timescale 1ps / 1ps
`default_nettype none
module tb_box_reset;
    localparam integer HOLD = 64;

    integer aclk_ps = 8000;
    integer cclk_ps = 3103;
    integer seed = 1;
    integer n_pulses = 300;
    reg     aclk = 1'b0;
    reg     cclk = 1'b0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if (!$value$plusargs("aclk_ps=%d", aclk_ps)) aclk_ps = 8000;
        if (!$value$plusargs("cclk_ps=%d", cclk_ps)) cclk_ps = 3103;
        if (!$value$plusargs("pulses=%d", n_pulses)) n_pulses = 300;
        void'($urandom(seed));
        $display("tb_box_reset: seed %0d, axil_aclk %0d ps, cmac_clk %0d ps, %0d pulses",
                 seed, aclk_ps, cclk_ps, n_pulses);
    end

    initial begin
        #(1000 + 311);
        forever begin
            #(aclk_ps / 2) aclk = 1'b1;
            #(aclk_ps - aclk_ps / 2) aclk = 1'b0;
        end
    end

    initial begin
        #(1000 + 1789);
        forever begin
            #(cclk_ps / 2) cclk = 1'b1;
            #(cclk_ps - cclk_ps / 2) cclk = 1'b0;
        end
    end

    reg  mod_rstn = 1'b1;
    wire mod_rst_done;
    wire core_reset;

    cngw_box_reset #(
        .HOLD_CYCLES(HOLD)
    ) dut (
        .axil_aclk   (aclk),
        .mod_rstn    (mod_rstn),
        .mod_rst_done(mod_rst_done),
        .cmac_clk    (cclk),
        .core_reset  (core_reset)
    );

    integer errors = 0;

    task automatic fail(input string msg);
        errors = errors + 1;
        $display("ERROR at %0t ps: %s", $time, msg);
        if (errors >= 10) $fatal(1, "tb_box_reset: FAIL (seed %0d)", seed);
    endtask

    // Shared between the two clock domains' checkers.
    reg     pending = 1'b1;  // a reset is requested and mod_rst_done has not risen
    reg     rstn_low = 1'b0;  // mod_rstn is being held low
    integer falls = 0;  // core_reset falls since mod_rstn last rose
    integer run = 0;  // core clocks in reset since mod_rstn last rose (this run)
    integer last_run = 0;  // the same, for the last run that ended
    time    t_low = 0;  // when mod_rstn last fell

    // ---------------- shell side ----------------
    integer acycle = 0;
    integer pulses = 0;
    integer low_left = 0;
    integer gap = -1;
    integer wait_cycles = 0;
    integer max_wait = 0;
    reg     prev_done = 1'b0;
    reg     prev_rstn = 1'b1;
    integer overlapped = 0;

    always @(posedge aclk) begin
        acycle = acycle + 1;
        // -- checks on what the DUT shows before this edge --
        if (!mod_rstn && !prev_rstn && mod_rst_done) fail("mod_rst_done high while mod_rstn is low");
        if (prev_done && !mod_rst_done && mod_rstn && prev_rstn)
            fail("mod_rst_done fell without a request");
        if (pending && mod_rstn && mod_rst_done) begin
            // The handshake has completed.
            if (falls != 1)
                fail($sformatf("core_reset fell %0d times between mod_rstn rising and mod_rst_done", falls));
            if (last_run < HOLD)
                fail($sformatf("core held in reset for %0d clocks after mod_rstn rose (want %0d)", last_run, HOLD));
            if (core_reset) fail("mod_rst_done high while core_reset is high");
            pending = 1'b0;
            if (wait_cycles > max_wait) max_wait = wait_cycles;
        end
        if (pending && mod_rstn) begin
            wait_cycles = wait_cycles + 1;
            if (wait_cycles > 2 * HOLD * cclk_ps / aclk_ps + 40)
                fail($sformatf("mod_rst_done not back %0d axil cycles after mod_rstn rose", wait_cycles));
        end
        prev_done = mod_rst_done;
        prev_rstn = mod_rstn;

        // -- drive mod_rstn --
        if (!mod_rstn) begin
            low_left = low_left - 1;
            if (low_left <= 0) begin
                mod_rstn <= 1'b1;
                rstn_low = 1'b0;
                // Counting for this request starts now.
                falls = 0;
                run = 0;
                last_run = 0;
                wait_cycles = 0;
                gap = $urandom_range(2, 0) == 0 ? $urandom_range(20, 1) : -1;
            end
        end else if (pulses < n_pulses && acycle > 2) begin
            // gap >= 0: next pulse after `gap` cycles, even if the handshake
            // is still running; gap < 0: after mod_rst_done plus a little.
            if (gap > 0) gap = gap - 1;
            else if (gap == 0 || (!pending && $urandom_range(15, 0) == 0)) begin
                if (pending) overlapped = overlapped + 1;
                pulses = pulses + 1;
                low_left = $urandom_range(9, 0) == 0 ? $urandom_range(100, 4) : $urandom_range(3, 1);
                mod_rstn <= 1'b0;
                rstn_low = 1'b1;
                t_low = $time;
                pending = 1'b1;
                gap = -1;
            end
        end else if (pulses >= n_pulses && !pending) begin
            if (errors != 0) $fatal(1, "tb_box_reset: FAIL (seed %0d)", seed);
            if (overlapped == 0) $fatal(1, "tb_box_reset: no pulse came during a handshake");
            $display("tb_box_reset: %0d pulses (%0d during a handshake), mod_rst_done back within %0d axil cycles",
                     pulses, overlapped, max_wait);
            $display("PASS tb_box_reset seed %0d", seed);
            $finish;
        end
        if (acycle > 10000000) $fatal(1, "tb_box_reset: FAIL, timeout");
    end

    // ---------------- core side ----------------
    // Edges of core_reset are taken when they happen (the shell side may see
    // their effect before the next cmac_clk edge); clocks in reset are
    // counted on cmac_clk.
    integer ccycle = 0;

    always @(posedge cclk) begin
        ccycle = ccycle + 1;
        if (ccycle == 1 && !core_reset) fail("core not in reset at configuration");
        if (core_reset && !rstn_low) run = run + 1;
    end

    always @(posedge core_reset) begin
        if (!pending) fail("core_reset rose without a request");
    end

    always @(negedge core_reset) begin
        // A run that was ending as mod_rstn fell may still end.
        if (rstn_low && $time > t_low + 2 * aclk_ps + 4 * cclk_ps)
            fail("core_reset fell while mod_rstn is low");
        falls = falls + 1;
        last_run = run;
        run = 0;
    end
endmodule
`default_nettype wire
