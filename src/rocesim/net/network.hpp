// The simulated cluster: switches and NICs built from a topology graph, wired port to port, with routing
// tables, and the flow table that workloads fill.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocesim/cc/cc.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/switch/switch.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {

class Network {
 public:
  Network(Simulator& sim, const TopologyGraph& g, const SwitchParams& sw, const NicParams& nic, const CcAlgorithm& cc,
          const std::string& scenario_file);

  // Registers a flow: sets up both queue pairs, picks its UDP source port and computes its ideal FCT.
  uint32_t add_flow(const FlowSpec& spec);

  size_t num_hosts() const { return nics_.size(); }
  int64_t mtu() const { return nic_params_.mtu; }
  Nic& nic(uint32_t host) { return *nics_[host]; }
  const std::vector<std::unique_ptr<Switch>>& switches() const { return switches_; }
  const std::vector<std::unique_ptr<Nic>>& nics() const { return nics_; }
  FlowTable& flows() { return flows_; }
  const FlowTable& flows() const { return flows_; }
  PacketPool& pool() { return pool_; }
  // Whether some DSCP of the switches' map selects this priority (a flow on it needs one).
  bool priority_usable(int prio) const { return prio_has_dscp_[prio]; }
  const TopologyGraph& graph() const { return graph_; }
  // Distinct forwarding tables among the switches (equal ones are shared).
  size_t route_tables() const { return route_tables_; }
  // The switch a host is attached to, and the switch port.
  std::pair<Switch*, uint16_t> attachment(uint32_t host) const { return host_attach_[host]; }

  // Flow completion time alone on the idle fabric, store-and-forward: the first packet crosses every hop, the
  // rest follow at the bottleneck rate, and the last packet's ACK returns (docs/model.md, "Ideal FCT").
  Time ideal_fct(uint32_t src, uint32_t dst, Bytes size, uint16_t sport = 0, RdmaOp op = RdmaOp::kWrite) const;
  // Links (rate, delay) of the path that ECMP gives a flow with UDP source port `sport` from src to dst.
  std::vector<std::pair<Rate, Time>> path(uint32_t src, uint32_t dst, uint16_t sport = 0) const;
  // One full data packet out and its ACK back on the idle fabric (the window unit of HPCC and DCTCP).
  Time base_rtt(uint32_t src, uint32_t dst, uint16_t sport = 0) const;

  // Switch ports named "leaf0:0, spine1:2"; throws InputError naming `key` for anything that is not one.
  std::vector<std::pair<Switch*, uint16_t>> parse_ports(const std::string& list, const std::string& file,
                                                        const std::string& key,
                                                        std::vector<std::string>* names = nullptr) const;

  // Packet conservation: every packet sent is delivered, dropped, or still queued or in flight.
  struct Conservation {
    int64_t sent = 0, delivered = 0, dropped = 0, in_network = 0;
    bool holds() const { return sent == delivered + dropped + in_network; }
  };
  Conservation conservation() const;

 private:
  void build_routes(const std::string& scenario_file);
  Time round_trip(const std::vector<std::pair<Rate, Time>>& hops, Bytes first_wire) const;

  Simulator& sim_;
  TopologyGraph graph_;
  PacketPool pool_;
  FlowTable flows_;
  NicParams nic_params_;
  Time switch_latency_;
  int int_bytes_ = 0;  // INT header bytes on data packets and ACKs (0 unless the CC uses telemetry)
  Rng rng_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<std::unique_ptr<Nic>> nics_;
  std::vector<int> node_switch_;  // graph node -> switch index, or -1 for hosts
  std::vector<std::pair<Switch*, uint16_t>> host_attach_;
  std::array<uint8_t, 8> prio_to_dscp_{};
  std::vector<std::vector<uint32_t>> dependents_;  // per flow: flows that start when it finishes
  std::array<bool, 8> prio_has_dscp_{};
  size_t route_tables_ = 0;
};

}  // namespace rocesim
