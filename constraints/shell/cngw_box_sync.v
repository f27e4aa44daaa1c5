// cngw_box_sync: a two-flop synchronizer for one level signal.
//
// Part of the OpenNIC integration of cngw (docs/integration.md). Every
// single-bit signal that crosses between the shell's register clock
// (axil_aclk) and the CMAC user clock (cmac_clk) goes through one of these:
// the CSR handshake's request and acknowledge and the reset handshake.
// ASYNC_REG keeps both flops in one slice and tells Vivado's timing and
// methodology checks that the first flop may go metastable; the board XDC
// (constraints/alveo_u250.xdc) bounds the path into the first flop with
// set_max_delay -datapath_only.
`default_nettype none
module cngw_box_sync #(
    // Value both flops take at configuration (before the first clock edge).
    parameter [0:0] INIT = 1'b0
) (
    input  wire clk,
    input  wire d,
    output wire q
);
    (* ASYNC_REG = "TRUE" *) reg [1:0] sync_ff = {2{INIT}};

    always @(posedge clk) begin
        sync_ff <= {sync_ff[0], d};
    end

    assign q = sync_ff[1];
endmodule
`default_nettype wire
