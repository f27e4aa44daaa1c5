## cngw on an AMD/Xilinx Alveo U250 inside the OpenNIC shell (HW-05).
##
## Device: xcu250-figd2104-2L-e. Top level: OpenNIC's open_nic_shell, built
## with two CMAC ports (-num_cmac_port 2); cngw sits in the 322 MHz user box
## on CMAC port 0 as cngw_opennic_box (constraints/shell/, docs/integration.md).
## Port names below are the shell's top-level ports and nets (pcie_refclk_p,
## qsfp_refclk_p[i], qsfp_rxp[i], cmac_clk[i], axis_aclk, axil_aclk).
##
## Use it in place of the shell's own pin and timing constraint files for
## the U250 (they cover the same clocks; reading both defines the reference
## clocks twice). Pin locations are the board's, as its public reference
## designs give them; the GT channels themselves are placed by the CMAC and
## QDMA IP configurations (GT_GROUP_SELECT, CMAC_CORE_SELECT), so the serial
## lane pins here only restate them.
##
## Clock summary (all periods in ns):
##   pcie_refclk        100 MHz      10.000  board, PCIe edge connector
##   qsfp0_refclk       156.25 MHz    6.400  board, QSFP28 port 0 (quad 231)
##   qsfp1_refclk       156.25 MHz    6.400  board, QSFP28 port 1 (quad 230)
##   cmac_clk[0], [1]   322.265625 MHz 3.103 CMAC user clocks (GT TXOUTCLK),
##                                            derived by Vivado; cmac_clk[0]
##                                            is cngw's clock
##   axis_aclk          250 MHz       4.000  PCIe user clock (QDMA), derived
##   axil_aclk          125 MHz       8.000  shell register clock, divided from
##                                            axis_aclk and phase-aligned with it

## ---------------------------------------------------------------------------
## 1. Configuration (the board boots from a quad-SPI flash at 1.8 V).
## ---------------------------------------------------------------------------
# Configuration bank voltage: the U250's bank 0 runs at 1.8 V.
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property CFGBVS GND [current_design]
# Bitstream for the board's SPI x4 flash, 32-bit addressing, compressed.
set_property CONFIG_MODE SPIx4 [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
# Unused pins pulled up, so nothing floats on the card.
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP [current_design]

## ---------------------------------------------------------------------------
## 2. PCIe: reference clock and PERST#.
## ---------------------------------------------------------------------------
# 100 MHz reference clock from the host slot, on MGTREFCLK0 of GTY quad 226.
# The QDMA IP's x16 link uses quads 224..227 (GTYE4_CHANNEL_X1Y16..X1Y31);
# its IP configuration places the lanes.
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AM10 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]

# PERST# from the slot: 1.2 V CMOS bank, pulled up; asynchronous to every clock
# (the PCIe IP synchronizes it), so no timing path through it is real.
set_property PACKAGE_PIN BD21 [get_ports pcie_rstn]
set_property IOSTANDARD LVCMOS12 [get_ports pcie_rstn]
set_property PULLUP TRUE [get_ports pcie_rstn]
set_false_path -from [get_ports pcie_rstn]

## ---------------------------------------------------------------------------
## 3. QSFP28 port 0 (cngw's WAN port): GTY quad 231, CMACE4_X0Y8.
## ---------------------------------------------------------------------------
# 156.25 MHz reference on MGTREFCLK0 of quad 231 (from the board's
# programmable oscillator through its clock mux; the CMAC IP is configured
# with GT_REF_CLK_FREQ 156.25). MGTREFCLK1 (K11/K10) is the other choice.
set_property PACKAGE_PIN M11 [get_ports {qsfp_refclk_p[0]}]
set_property PACKAGE_PIN M10 [get_ports {qsfp_refclk_n[0]}]
create_clock -period 6.400 -name qsfp0_refclk [get_ports {qsfp_refclk_p[0]}]

# Four 25.78125 Gb/s lanes, GTYE4_CHANNEL_X1Y44..X1Y47 (restated: the CMAC
# IP's GT_GROUP_SELECT X1Y44~X1Y47 places them).
set_property PACKAGE_PIN N4 [get_ports {qsfp_rxp[0]}]
set_property PACKAGE_PIN M2 [get_ports {qsfp_rxp[1]}]
set_property PACKAGE_PIN L4 [get_ports {qsfp_rxp[2]}]
set_property PACKAGE_PIN K2 [get_ports {qsfp_rxp[3]}]
set_property PACKAGE_PIN N9 [get_ports {qsfp_txp[0]}]
set_property PACKAGE_PIN M7 [get_ports {qsfp_txp[1]}]
set_property PACKAGE_PIN L9 [get_ports {qsfp_txp[2]}]
set_property PACKAGE_PIN K7 [get_ports {qsfp_txp[3]}]

## ---------------------------------------------------------------------------
## 4. QSFP28 port 1: GTY quad 230, CMACE4_X0Y7.
## ---------------------------------------------------------------------------
# 156.25 MHz reference on MGTREFCLK0 of quad 230 (MGTREFCLK1 is P11/P10).
set_property PACKAGE_PIN T11 [get_ports {qsfp_refclk_p[1]}]
set_property PACKAGE_PIN T10 [get_ports {qsfp_refclk_n[1]}]
create_clock -period 6.400 -name qsfp1_refclk [get_ports {qsfp_refclk_p[1]}]

# Lanes GTYE4_CHANNEL_X1Y40..X1Y43 (restated from the CMAC IP's placement).
set_property PACKAGE_PIN U4 [get_ports {qsfp_rxp[4]}]
set_property PACKAGE_PIN T2 [get_ports {qsfp_rxp[5]}]
set_property PACKAGE_PIN R4 [get_ports {qsfp_rxp[6]}]
set_property PACKAGE_PIN P2 [get_ports {qsfp_rxp[7]}]
set_property PACKAGE_PIN U9 [get_ports {qsfp_txp[4]}]
set_property PACKAGE_PIN T7 [get_ports {qsfp_txp[5]}]
set_property PACKAGE_PIN R9 [get_ports {qsfp_txp[6]}]
set_property PACKAGE_PIN P7 [get_ports {qsfp_txp[7]}]

## ---------------------------------------------------------------------------
## 5. Clocks made by IP: named here for the crossing rules below.
## ---------------------------------------------------------------------------
# CMAC user clocks, 322.265625 MHz (period 3.103 ns): each CMAC's GT
# produces TXOUTCLK = 25.78125 Gb/s / 80 bits, buffered by a BUFG_GT; the
# shell calls it cmac_clk[i]. Vivado derives it from qsfpN_refclk through
# the GT, so it needs no create_clock (a second one would override the
# derived clock's correct phase relationship with the GT). The CMAC runs
# its receive AXI4-Stream on the same clock (rx_clk tied to the TX user
# clock; the CMAC's receive FIFO crosses from the recovered RXOUTCLK, whose
# constraints come with the IP), so the fabric sees one 322 MHz clock per
# port. cngw_opennic_box's cmac_clk is cmac_clk[0]: the whole gateway runs
# on it, because 512 bits x 322.265625 MHz = 165 Gb/s covers 100GbE line
# rate with room for the notifications cngw inserts.
set cngw_core_clk [get_clocks -of_objects [get_nets {cmac_clk[0]}]]
set cmac1_clk [get_clocks -of_objects [get_nets {cmac_clk[1]}]]

# PCIe user clock, 250 MHz (4.000 ns): the QDMA IP's AXI clock, derived from
# pcie_refclk through the PCIe GT. The shell's 250 MHz box and the host side
# of its packet adapters run on it.
set pcie_user_clk [get_clocks -of_objects [get_nets axis_aclk]]

# Shell register clock, 125 MHz (8.000 ns): divided from axis_aclk inside the
# shell (phase-aligned with it, so the two are related and timed normally).
# Every box's AXI4-Lite register slave, and so cngw_opennic_box's axil_aclk,
# runs on it.
set shell_reg_clk [get_clocks -of_objects [get_nets axil_aclk]]

## ---------------------------------------------------------------------------
## 6. Clock-domain crossings.
## ---------------------------------------------------------------------------
# The two CMAC ports are unrelated (separate reference clocks, separate
# CDRs) and no logic crosses between them directly: traffic between ports
# goes through the packet adapters and the 250 MHz box. Declaring them
# asynchronous removes the meaningless cross-port timing paths.
set_clock_groups -asynchronous \
    -group [get_clocks -include_generated_clocks qsfp0_refclk] \
    -group [get_clocks -include_generated_clocks qsfp1_refclk]

# Register path into cngw: cngw_axil_cdc (constraints/shell/cngw_axil_cdc.v)
# carries AXI4-Lite from axil_aclk to cmac_clk with a request/acknowledge
# handshake; cngw_box_reset carries the shell's reset request the same way.
# The single-bit handshake signals go through two-flop synchronizers
# (cngw_box_sync, ASYNC_REG); the address, write data, direction, response
# and read data are held stable in registers while the handshake runs.
# These clocks are NOT put into asynchronous clock groups: that would also
# drop the datapath bound below (clock groups outrank set_max_delay). The
# bound: a held field must reach the other side within one cmac_clk period
# (3.103 ns), sooner than its handshake bit can get through the two
# synchronizer flops.
set_max_delay -datapath_only -from $shell_reg_clk -to $cngw_core_clk 3.103
set_max_delay -datapath_only -from $cngw_core_clk -to $shell_reg_clk 3.103

# The synchronizer flops (cngw_box_sync's sync_ff): ASYNC_REG is set in the
# RTL; restated here so a flow that drops RTL attributes still places each
# pair close together and keeps the timing and methodology checks aware
# that the first flop samples an asynchronous signal.
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {NAME =~ *sync_ff_reg*}]

# The shell's own crossings between the PCIe user clock and both CMAC user
# clocks (its packet adapters' XPM FIFOs carry their own, more specific
# constraints, which take precedence): bound the datapath by the faster
# clock's period, as for cngw's bridge.
set_max_delay -datapath_only -from $pcie_user_clk -to $cngw_core_clk 3.103
set_max_delay -datapath_only -from $cngw_core_clk -to $pcie_user_clk 3.103
set_max_delay -datapath_only -from $pcie_user_clk -to $cmac1_clk 3.103
set_max_delay -datapath_only -from $cmac1_clk -to $pcie_user_clk 3.103

## ---------------------------------------------------------------------------
## 7. Reset.
## ---------------------------------------------------------------------------
# cngw's reset is synchronous and active high in cmac_clk (gateway.rs):
# cngw_box_reset makes it from the shell's mod_rstn handshake (crossing
# constrained in section 6) and holds it for 64 cmac_clk cycles; from there
# on it is an ordinary cmac_clk path, timed at 3.103 ns. Its fan-out covers
# the whole gateway; Vivado replicates the driver as needed
# (phys_opt_design), so no max-fanout constraint is set here.
