// cngw_box_reset: the OpenNIC reset handshake, turned into cngw's reset.
//
// Part of the OpenNIC integration of cngw (docs/integration.md). The shell's
// system configuration block asks a user box to reset by pulling `mod_rstn`
// low (in the axil_aclk domain) and waits for `mod_rst_done` to come back
// high. cngw's `reset` is synchronous and active high in the cmac_clk
// domain, so the request crosses with a four-phase handshake:
//
//   axil_aclk: request <= 1 while mod_rstn is low, but only once the core
//              side's `seen` of the previous request has fallen (until then
//              the request waits in `want`); request <= 0 once mod_rstn is
//              high and the core side has seen it
//   cmac_clk:  seen follows the request; busy <= 1 while the request is
//              seen, then HOLD_CYCLES more clocks; core_reset is busy
//   axil_aclk: mod_rst_done = no request waiting or raised, `seen` low and
//              the core no longer busy
//
// A request is raised only while `seen` is low, so a `seen` that is high
// always answers the request that is up: a short mod_rstn pulse during the
// end of an earlier reset still reaches the core and restarts its hold, in
// either clock ratio. busy rises with seen and falls HOLD_CYCLES clocks after
// it, so mod_rst_done cannot rise between the two. HOLD_CYCLES must exceed
// the handshake's round trip (a few clocks of each domain) so that the core
// stays in reset while a request waits in `want`.
//
// All three crossings are single bits through cngw_box_sync. At
// configuration the core starts busy (held in reset for HOLD_CYCLES clocks)
// and mod_rst_done starts low, so the gateway is reset once after power-up
// even if the shell never asks.
`default_nettype none
module cngw_box_reset #(
    // cmac_clk cycles the core stays in reset after the request goes away.
    parameter integer HOLD_CYCLES = 64
) (
    input  wire axil_aclk,
    // Reset request from the shell, active low (axil_aclk domain).
    input  wire mod_rstn,
    // High when the box is out of reset (axil_aclk domain).
    output wire mod_rst_done,
    input  wire cmac_clk,
    // cngw's reset: synchronous, active high (cmac_clk domain).
    output wire core_reset
);
    localparam integer CNT_W = $clog2(HOLD_CYCLES + 1);
    localparam [CNT_W-1:0] HOLD = HOLD_CYCLES[CNT_W-1:0];

    // axil_aclk side.
    reg  request = 1'b0;
    reg  want = 1'b0;
    wire seen_axil;
    wire busy_axil;

    always @(posedge axil_aclk) begin
        if (!request) begin
            if ((want || !mod_rstn) && !seen_axil) begin
                request <= 1'b1;
                want    <= 1'b0;
            end else if (!mod_rstn) begin
                want <= 1'b1;
            end
        end else if (mod_rstn && seen_axil) begin
            request <= 1'b0;
        end
    end

    assign mod_rst_done = !request && !want && !seen_axil && !busy_axil;

    // cmac_clk side.
    wire             core_request;
    reg              seen = 1'b0;
    reg  [CNT_W-1:0] hold_count = HOLD;
    reg              busy = 1'b1;

    cngw_box_sync request_sync (
        .clk(cmac_clk),
        .d  (request),
        .q  (core_request)
    );

    always @(posedge cmac_clk) begin
        seen <= core_request;
        if (core_request) begin
            hold_count <= HOLD;
            busy       <= 1'b1;
        end else if (hold_count != {CNT_W{1'b0}}) begin
            hold_count <= hold_count - 1'b1;
        end else begin
            busy <= 1'b0;
        end
    end

    cngw_box_sync seen_sync (
        .clk(axil_aclk),
        .d  (seen),
        .q  (seen_axil)
    );

    // Starts high: busy is high at configuration.
    cngw_box_sync #(
        .INIT(1'b1)
    ) busy_sync (
        .clk(axil_aclk),
        .d  (busy),
        .q  (busy_axil)
    );

    assign core_reset = busy;
endmodule
`default_nettype wire
