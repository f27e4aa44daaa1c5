## cngw_opennic_box alone, out of context (HW-05).
##
## For a Vivado synthesis and implementation of the OpenNIC box wrapper by
## itself (synth_design -mode out_of_context -top cngw_opennic_box), to see
## whether cngw closes timing at the CMAC user clock on an UltraScale+ part
## before the whole shell is built. The wrapper's two clocks are its ports
## here; in the full design (constraints/alveo_u250.xdc) the same clocks
## come from the CMAC and the shell.

# CMAC user clock: 322.265625 MHz (100GbE: 25.78125 Gb/s per lane / 80 bits).
# cngw and both WAN-side FIFOs run on it.
create_clock -period 3.103 -name cmac_clk [get_ports cmac_clk]

# Shell register clock: 125 MHz. The register bridge's shell side and the
# reset handshake's request side run on it.
create_clock -period 8.000 -name axil_aclk [get_ports axil_aclk]

# The bridge's crossings (see alveo_u250.xdc, section 6): held fields must
# arrive within one cmac_clk period; no asynchronous clock groups, which
# would override this bound.
set_max_delay -datapath_only -from [get_clocks axil_aclk] -to [get_clocks cmac_clk] 3.103
set_max_delay -datapath_only -from [get_clocks cmac_clk] -to [get_clocks axil_aclk] 3.103

# Out of context the ports meet the shell's registers: give each side a
# budget of a third of its clock period outside the box.
set_input_delay -clock cmac_clk 1.000 [get_ports -filter {DIRECTION == IN && NAME =~ *axis_*}]
set_output_delay -clock cmac_clk 1.000 [get_ports -filter {DIRECTION == OUT && NAME =~ *axis_*}]
set_input_delay -clock axil_aclk 2.600 [get_ports -filter {DIRECTION == IN && NAME =~ s_axil_*}]
set_output_delay -clock axil_aclk 2.600 [get_ports -filter {DIRECTION == OUT && NAME =~ s_axil_*}]
set_input_delay -clock axil_aclk 2.600 [get_ports mod_rstn]
set_output_delay -clock axil_aclk 2.600 [get_ports mod_rst_done]
