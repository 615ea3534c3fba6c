// The simulated cluster: switches, NICs and the servers (hosts) holding them, built from a topology graph, wired
// port to port, with routing tables; connections between applications; and, after a run, the flow records.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocesim/app/flows_app.hpp"
#include "rocesim/app/host.hpp"
#include "rocesim/cc/cc.hpp"
#include "rocesim/cluster/fabric_events.hpp"
#include "rocesim/engine/engine.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/server/server.hpp"
#include "rocesim/switch/switch.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {

// The forwarding tables a fabric may need (2 bytes per switch per NIC): a 65,536-NIC k=64 fat-tree needs 0.7 GB.
inline constexpr double kMaxRouteTableBytes = 4e9;
// The forwarding tables' size: a 16-bit next-hop set number per switch per NIC (RouteTable::set_of).
double route_table_bytes(size_t switches, size_t nics);
// An InputError at `file`'s topology when `switches` x `nics` tables exceed kMaxRouteTableBytes.
void check_route_table_size(size_t switches, size_t nics, const std::string& file);

class Network {
 public:
  // `fabric`: the link layer under RDMA, which frames every NIC's packets and sizes the switches' largest frame.
  // RoCEv1 throws InputError (key fabric) unless every NIC is on one switch.
  // Each node runs in its partition of `engine` (its simulator and packet pool); links between partitions are cut.
  // `ib`: the credits' settings, read with the InfiniBand fabric only (its switches run credits, not PFC).
  Network(Engine& engine, const TopologyGraph& g, const SwitchParams& sw, const NicParams& nic, const CcAlgorithm& cc,
          wire::Fabric fabric, const InfinibandParams& ib, const std::string& scenario_file);

  // Which directions of data a connection carries: A is the end that calls connect, B its peer.
  struct ConnectOptions {
    int priority = 3;
    bool a_sends = true;                     // WRITE and SEND from A to B
    bool b_sends = false;                    // WRITE and SEND from B to A
    bool a_reads = false;                    // READ by A (data from B to A)
    bool notify_landed = false;              // both ends hear of plain WRITEs landing (WcKind::kLanded)
    uint16_t sport = 0;                      // the queue pairs' UDP source port; 0: a random one of the ephemeral range
    Transport transport = Transport::kRdma;  // TCP and iWARP carry WRITE and SEND, not READ
  };
  // InfiniBand (a Network built with that fabric, before servers and connections): credit-based flow control on
  // every link, buffers from `ib`, and destination-based routing.
  void use_credits(const InfinibandParams& ib);
  wire::Fabric fabric() const { return fabric_; }
  // Bytes a link spends on a frame of this fabric.
  int on_wire(int frame) const { return frame + wire::frame_gap(fabric_); }
  // The TCP every kernel TCP and iWARP connection uses (before connections that need it).
  void set_tcp(const TcpParams& p, const TcpCcAlgorithm& cc) {
    tcp_ = &p;
    tcp_cc_ = &cc;
  }
  // Gives every server the `server` section's insides (GPUs, PCIe, NVLink) and limits each NIC's DMA to what PCIe
  // carries between it and host memory. Before connections and workloads; nothing if `p.gpus` is 0.
  // `file`: the scenario, for the error when a NIC's receive buffer is too small for the PFC it then needs.
  void attach_servers(const ServerParams& p, const std::string& file);
  // Points a NIC's DMA at a memory of its server (GPU memory with GPUDirect RDMA, host memory without): its
  // reads and writes go at the PCIe path's rate where that is below the link rate.
  void point_dma(uint32_t endpoint, Place memory);
  // The scenario file, for errors found while workloads install.
  const std::string& scenario_file() const { return scenario_file_; }

  // Connects a reliable-connected queue pair before the run between application `app_a` on the server of NIC
  // endpoint `a` and `app_b` on the server of endpoint `b`; picks its UDP source port (the ECMP entropy of the
  // QP, from the network's random stream in call order). Returns the handles at A's and B's hosts.
  std::pair<uint32_t, uint32_t> connect(uint32_t a, uint32_t app_a, uint32_t b, uint32_t app_b,
                                        const ConnectOptions& o);

  // A flow of an FCT workload: a queue pair of its own from src to dst (its ends owned by the servers' flows
  // applications) and the one message on it. Its flow id is the number of flows added before it.
  uint32_t add_flow(const FlowSpec& spec);

  // Servers, and the server and NIC index of each endpoint.
  Host& server(size_t i) { return *hosts_[i]; }
  const Host& server(size_t i) const { return *hosts_[i]; }
  size_t num_servers() const { return hosts_.size(); }
  Host& server_of(uint32_t endpoint) { return *hosts_[endpoint_server_[endpoint]]; }
  const Host& server_of(uint32_t endpoint) const { return *hosts_[endpoint_server_[endpoint]]; }

  size_t num_hosts() const { return nics_.size(); }
  int64_t mtu() const { return nic_params_.mtu; }
  const NicParams& nic_params() const { return nic_params_; }
  Nic& nic(uint32_t host) { return *nics_[host]; }
  const std::vector<std::unique_ptr<Switch>>& switches() const { return switches_; }
  const std::vector<std::unique_ptr<Nic>>& nics() const { return nics_; }
  // Every message's record, gathered from the requesters' NICs, in flow-id order. Messages numbered at setup
  // (add_flow) keep their ids; the others are numbered after them in the order they were posted (time, then
  // endpoint, then posting order at that endpoint). Counters kept at the far end (bytes the data receiver took,
  // a READ responder's retransmissions and CNPs) are read from there. Rebuilt on every call: for outputs.
  // Grouped messages (output.flows: aggregate) are not among them: see message_groups().
  const std::vector<FlowRecord>& flows() const;
  // The records of message groups: per call (a collective instance) and queue pair, its messages together, in the
  // order of workload, call, requester endpoint and connection. Rebuilt on every call.
  const std::vector<FlowRecord>& message_groups() const;
  // Keep grouped messages' records per call and queue pair instead of one each (output.flows: aggregate).
  void group_records(bool on);
  // What installed applications will post (each adds its estimate when installed).
  void expect(const ExpectedTraffic& t) { expected_ += t; }
  const ExpectedTraffic& expected() const { return expected_; }
  // The send and receive halves that carry a flow numbered at setup (for time series and tests).
  struct FlowPath {
    uint32_t sender = 0, send_qpn = 0, receiver = 0, recv_qpn = 0;
    Transport transport = Transport::kRdma;
  };
  FlowPath flow_path(uint32_t id) const { return conns_[flow_conn_[id]]; }
  // Per endpoint: payload of workload `workload`'s messages its NIC's DMA moved, read for sending plus written on
  // receiving, counted as what the receiver took (a retransmission's second read is not counted).
  std::vector<int64_t> dma_payload(uint16_t workload) const;
  size_t setup_flows() const { return flow_conn_.size(); }
  // The packet pool of the partition that runs graph node `node` (the first partition's by default).
  PacketPool& pool(uint32_t node = 0) { return engine_.pool(engine_.partition_of(node)); }
  Engine& engine() { return engine_; }
  // Whether some DSCP of the switches' map selects this priority (a flow on it needs one).
  bool priority_usable(int prio) const { return prio_has_dscp_[prio]; }
  const TopologyGraph& graph() const { return graph_; }
  // Distinct forwarding tables among the switches (equal ones are shared).
  size_t route_tables() const { return route_tables_; }
  // The switch a host is attached to, and the switch port.
  std::pair<Switch*, uint16_t> attachment(uint32_t host) const { return host_attach_[host]; }

  // Flow completion time alone on the idle fabric, store-and-forward: the first packet crosses every hop, the
  // rest follow at the bottleneck rate, and the last packet's ACK returns (docs/model.md, "Ideal FCT").
  Time ideal_fct(uint32_t src, uint32_t dst, Bytes size, uint16_t sport = 0, RdmaOp op = RdmaOp::kWrite,
                 Transport t = Transport::kRdma) const;
  // Links (rate, delay) of the path that ECMP gives a flow with UDP source port `sport` from src to dst.
  std::vector<std::pair<Rate, Time>> path(uint32_t src, uint32_t dst, uint16_t sport = 0) const;
  // One full data packet out and its ACK back on the idle fabric.
  Time base_rtt(uint32_t src, uint32_t dst, uint16_t sport = 0) const;
  // The round trip a sender of full packets sees on the idle fabric when the receiver acknowledges every
  // nic.ack_interval packets: base_rtt plus the ack_interval - 1 packets the ACK waits for, at the path's
  // bottleneck. The time unit of window-based control (HPCC's T, DCTCP's window): a window of line rate x this
  // keeps the link busy; line rate x base_rtt leaves it idle while the ACK waits.
  Time ack_clocked_rtt(uint32_t src, uint32_t dst, uint16_t sport = 0) const;
  // A full data packet (MTU payload, INT if any) as it crosses a link.
  Bytes full_frame() const;

  // Switch ports named "leaf0:0, spine1:2"; throws InputError naming `key` for anything that is not one.
  std::vector<std::pair<Switch*, uint16_t>> parse_ports(const std::string& list, const std::string& file,
                                                        const std::string& key,
                                                        std::vector<std::string>* names = nullptr) const;

  // Switches pick next hops as the HPCC ns-3 simulator does (routing.ecmp: hpcc-ns3; switch/ecmp.hpp), its
  // flows' destination port being `dport`. Before connections: their round trips follow the paths.
  void use_hpcc_ecmp(uint16_t dport);
  // How switches (and, for `source`, NICs) spread packets over equal-cost paths (routing.balance); each switch's
  // balancer draws from its own random stream. Before the run.
  void use_balance(const BalanceAlgorithm& balance);
  // Schedules the scenario's fabric events (before the run): each link change at both ends of the link at its
  // time, and each switch's new routes, computed now for the fabric as it will be, at the time its routing
  // converges. Throws what check_events throws.
  void schedule_events(const std::vector<FabricEvent>& events, const RoutingParams& routing, const std::string& file);
  // The InputErrors schedule_events throws, without scheduling: a fault of no NIC, a pause storm on a priority
  // that is not lossless, a slow receiver not slower than its link, an event on no link or switch, or one that
  // changes nothing.
  void check_events(const std::vector<FabricEvent>& events, const std::string& file) const;

  // Packet conservation: every packet sent is delivered, dropped, or still queued or in flight.
  struct Conservation {
    int64_t sent = 0, delivered = 0, dropped = 0, in_network = 0;
    bool holds() const { return sent == delivered + dropped + in_network; }
  };
  Conservation conservation() const;

 private:
  void build_routes(const std::string& scenario_file);
  // Every switch's forwarding table for the fabric with links `up` (by graph link); an unreachable destination
  // gets RouteTable::kNoRoute, or, with `file`, is an InputError (the fabric as built must connect every host).
  std::vector<RouteTable> route_tables(const std::vector<char>& up, const std::string* file) const;
  // The link (graph index) a target names: "switch:port" or a NIC's name; -1 if none.
  int find_link(const std::string& target) const;
  // The switch (index) named `name`; -1 if none.
  int find_switch(const std::string& name) const;
  Time round_trip(const std::vector<std::pair<Rate, Time>>& hops, Bytes first_wire) const;

  Engine& engine_;
  Simulator& sim_;  // the first partition's: random streams and set-up that belongs to no node
  TopologyGraph graph_;
  NicParams nic_params_;
  uint8_t lossless_ = 0;  // switch.pfc.priorities
  Time switch_latency_;
  int int_bytes_ = 0;  // INT header bytes on data packets and ACKs (0 unless the CC uses telemetry)
  wire::Fabric fabric_ = wire::Fabric::kRoceV2;
  const InfinibandParams* ib_ = nullptr;  // with InfiniBand: the credit buffers' settings
  void use_destination_routing();
  void check_one_subnet() const;
  Rng rng_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<std::unique_ptr<Nic>> nics_;
  std::vector<int> node_switch_;  // graph node -> switch index, or -1 for hosts
  std::vector<std::pair<Switch*, uint16_t>> host_attach_;
  struct LinkPorts {
    Node* node[2] = {nullptr, nullptr};
    uint16_t port[2] = {0, 0};
  };
  std::vector<LinkPorts> link_ports_;  // per graph link: its two ends
  // The routes of the fabric as built (ideal FCT and base RTT are of the idle original fabric), and the
  // switches' ECMP seeds.
  std::vector<std::shared_ptr<const RouteTable>> initial_routes_;
  std::unique_ptr<HpccEcmp> hpcc_ecmp_;  // routing.ecmp: hpcc-ns3
  std::array<uint8_t, 8> prio_to_dscp_{};
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<uint32_t> endpoint_server_;
  std::vector<std::unique_ptr<ServerModel>> server_models_;  // one per distinct NIC count
  std::string scenario_file_;
  std::vector<uint32_t> flows_app_;  // per server: the app id of its FlowsApp, or UINT32_MAX before the first flow
  std::vector<FlowPath> conns_;      // per direction of each connection: where its data goes
  std::vector<uint32_t> flow_conn_;  // flow id (setup) -> its connection direction
  mutable std::vector<FlowRecord> gathered_, grouped_;
  ExpectedTraffic expected_;
  // Reads every NIC's records into gathered_ (flows) and grouped_ (message groups).
  void gather() const;
  std::array<bool, 8> prio_has_dscp_{};
  const TcpParams* tcp_ = nullptr;
  const TcpCcAlgorithm* tcp_cc_ = nullptr;
  int64_t cpu_cores_ = 32;
  double cpu_ghz_ = 3;
  size_t route_tables_ = 0;
};

}  // namespace rocesim
