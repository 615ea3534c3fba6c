// The parameters every NIC of a scenario shares (scenario key `nic`).
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/presets.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

struct NicParams {
  int64_t mtu = 0;  // payload bytes per packet
  int64_t ack_interval = 0;
  Time retransmit_timeout;
  int64_t ack_priority = 0;
  int64_t cnp_priority = 0;
  Time rnr_timer;
  Time tx_pipeline;            // from the NIC's send engine to the wire, per packet
  Time rx_pipeline;            // from the wire to host memory (and the receive engine), per packet
  Time wqe_fetch;              // from a doorbell to the NIC holding the work request (MMIO write, DMA read of the WQE)
  Time wqe_gap;                // the send engine's time per work request: its message rate is 1 / wqe_gap
  int64_t max_rd_atomic = 0;   // READs a requester has outstanding per QP; the responder keeps as many
  int64_t retry_count = 0;     // timeouts in a row a requester retries before its QP goes to the error state
  std::string dscp_map;        // priority to the DSCP the NIC writes, "auto" to follow the switches' map
  Bytes rx_buffer;             // the receive buffer a slow receiver fills (nic/rx_buffer.hpp)
  int64_t cable_length = 0;    // metres, for the receive buffer's PFC headroom
  Time post_cpu;               // host CPU time of posting one work request (ibv_post_send)
  bool ooo_placement = false;  // WRITE packets ahead of a missing one are placed, not dropped (RcTransport)
  // How an RC send half recovers lost packets: "go_back_n" (IBTA) or "irn" (selective repeat, Mittal et al. 2018).
  std::string loss_recovery;
  Time irn_rto_low;   // IRN: the timeout with at most irn_rto_low_packets in flight
  Time irn_rto_high;  // IRN: the timeout otherwise
  int64_t irn_rto_low_packets = 0;
  std::string irn_bdp_cap;  // IRN: packets in flight per QP, "auto" (the path's BDP), "off" or a count
  bool irn() const { return loss_recovery == "irn"; }
  static const Schema<NicParams>& schema();
};

// NIC presets: a NIC model's latency terms and message rate, as fragments of a scenario's `nic` section.
const std::vector<Preset>& nic_presets();
// If `nic` (the scenario's `nic` mapping) names a preset, fills in the preset's values the user left out and
// returns what it did; nothing if no preset is named.
std::optional<PresetUse> apply_nic_preset(YAML::Node& nic, const ParseCtx& ctx);

// nic.irn_bdp_cap: -1 for auto, 0 for off, else the packet count (throws UnitError).
int64_t parse_bdp_cap(const std::string& s);

// Parses "3:26, 6:48" (priority:DSCP) into the DSCP of each priority, -1 where unlisted (throws UnitError).
std::array<int, 8> parse_prio_dscp_map(const std::string& s);

}  // namespace rocesim
