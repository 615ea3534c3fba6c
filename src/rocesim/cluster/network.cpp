#include "rocesim/cluster/network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "rocesim/switch/credit_control.hpp"
#include "rocesim/topology/routing.hpp"

namespace rocesim {

Network::Network(Engine& engine, const TopologyGraph& g, const SwitchParams& sw, const NicParams& nic,
                 const CcAlgorithm& cc, wire::Fabric fabric, const InfinibandParams& ib,
                 const std::string& scenario_file)
    : engine_(engine),
      sim_(engine.sim(0)),
      graph_(g),
      nic_params_(nic),
      switch_latency_(sw.latency),
      rng_(sim_.rng("network.flows")),
      scenario_file_(scenario_file) {
  fabric_ = fabric;
  // A NIC marks each priority with the smallest DSCP that the switches map to it (trust DSCP end to end).
  const auto dscp_to_prio = parse_dscp_map(sw.dscp_map);
  for (int d = 63; d >= 0; --d) {
    prio_to_dscp_[dscp_to_prio[d]] = static_cast<uint8_t>(d);
    prio_has_dscp_[dscp_to_prio[d]] = true;
  }
  // Unless the NICs are told otherwise (nic.dscp_map): then a priority is usable whatever the switches make of it.
  const auto nic_dscp = parse_prio_dscp_map(nic.dscp_map);
  for (int c = 0; c < 8; ++c) {
    if (nic_dscp[c] >= 0) {
      prio_to_dscp_[c] = static_cast<uint8_t>(nic_dscp[c]);
      prio_has_dscp_[c] = true;
    }
  }
  for (int64_t c : sw.pfc.priorities) {
    lossless_ |= static_cast<uint8_t>(1u << c);
  }
  int_bytes_ = cc.wants_telemetry() ? kIntHeaderBytes : 0;
  const Bytes max_frame(wire::rdma_frame(fabric, static_cast<int>(nic.mtu), wire::kReth) + int_bytes_);
  node_switch_.assign(g.nodes.size(), -1);
  std::vector<int> node_host(g.nodes.size(), -1);
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    node_host[g.hosts[h]] = static_cast<int>(h);
  }
  // Each node is built by its kind; NICs below, in the order of the topology's hosts.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    switch (g.nodes[i].kind) {
      case NodeKind::kSwitch: {
        node_switch_[i] = static_cast<int>(switches_.size());
        const uint32_t part = engine.partition_of(static_cast<uint32_t>(i));
        switches_.push_back(make_switch(engine.sim(part), engine.pool(part), g.nodes[i].name, sw, max_frame,
                                        cc.wants_telemetry(), fabric == wire::Fabric::kInfiniband ? &ib : nullptr));
        switches_.back()->set_graph_id(static_cast<uint32_t>(i));
        switches_.back()->set_outboxes(engine.outboxes(part));
        break;
      }
      case NodeKind::kNic:
        break;
      default:
        throw InputError(scenario_file, 0, "topology",
                         "node '" + g.nodes[i].name + "' is of a kind this network cannot build (" +
                             std::to_string(static_cast<int>(g.nodes[i].kind)) + ")");
    }
  }
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    const uint32_t part = engine.partition_of(static_cast<uint32_t>(g.hosts[h]));
    nics_.push_back(std::make_unique<Nic>(engine.sim(part), engine.pool(part), g.nodes[g.hosts[h]].name,
                                          static_cast<uint32_t>(h), nic, cc, prio_to_dscp_));
    nics_.back()->set_graph_id(static_cast<uint32_t>(g.hosts[h]));
    nics_.back()->set_outboxes(engine.outboxes(part));
    nics_.back()->use_fabric(fabric);
  }
  // Servers: as the topology groups the NICs, else one per NIC.
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    const bool grouped = g.endpoint_server.size() == g.hosts.size();
    const auto server = static_cast<uint32_t>(grouped ? g.endpoint_server[h] : static_cast<int>(h));
    while (hosts_.size() <= server) {
      const size_t i = hosts_.size();
      hosts_.push_back(
          std::make_unique<Host>(engine.sim(engine.partition_of(static_cast<uint32_t>(g.hosts[h]))),
                                 grouped && i < g.server_names.size() ? g.server_names[i] : g.nodes[g.hosts[h]].name));
    }
    hosts_[server]->add_nic(nics_[h].get(), static_cast<uint32_t>(h));
    endpoint_server_.push_back(server);
  }
  flows_app_.assign(hosts_.size(), UINT32_MAX);
  host_attach_.assign(g.hosts.size(), {nullptr, 0});
  // Wire the ports: each link gives one port at each end; the peer fields are filled once both ends exist.
  // A NIC's pipelines are latency on its link: the transmit pipeline on the way out, the receive pipeline on the
  // way in (docs/model.md, "NIC latency").
  const auto delay_into = [&](int node, Time d) { return node_switch_[node] >= 0 ? d : d + nic.rx_pipeline; };
  const auto delay_out_of = [&](int node, Time d) { return node_switch_[node] >= 0 ? d : d + nic.tx_pipeline; };
  for (const TopoLink& l : g.links) {
    const int ends[2] = {l.a, l.b};
    uint16_t port[2] = {0, 0};
    Node* node[2] = {nullptr, nullptr};
    for (int e = 0; e < 2; ++e) {
      const int n = ends[e];
      if (node_switch_[n] >= 0) {
        Switch* s = switches_[node_switch_[n]].get();
        port[e] = s->add_port(LinkEnd{nullptr, 0, l.rate, l.delay});
        node[e] = s;
      } else {
        Nic* nic_ptr = nics_[node_host[n]].get();
        if (nic_ptr->link().peer) {
          throw InputError(scenario_file, 0, "topology", "host '" + g.nodes[n].name + "' has more than one link");
        }
        nic_ptr->connect(LinkEnd{nullptr, 0, l.rate, l.delay});
        node[e] = nic_ptr;
      }
    }
    if (node_switch_[l.a] < 0 && node_switch_[l.b] < 0) {
      throw InputError(scenario_file, 0, "topology",
                       "hosts '" + g.nodes[l.a].name + "' and '" + g.nodes[l.b].name +
                           "' are linked directly; hosts attach to switches");
    }
    link_ports_.push_back(LinkPorts{{node[0], node[1]}, {port[0], port[1]}});
    for (int e = 0; e < 2; ++e) {
      const uint32_t peer_part = engine.partition_of(static_cast<uint32_t>(ends[1 - e]));
      const bool cut = peer_part != engine.partition_of(static_cast<uint32_t>(ends[e]));
      const LinkEnd end{node[1 - e], port[1 - e], l.rate, delay_into(ends[1 - e], delay_out_of(ends[e], l.delay)),
                        static_cast<uint16_t>(cut ? peer_part + 1 : 0)};
      if (node_switch_[ends[e]] >= 0) {
        switches_[node_switch_[ends[e]]]->set_link(port[e], end);
      } else {
        nics_[node_host[ends[e]]]->connect(end);
        host_attach_[node_host[ends[e]]] = {switches_[node_switch_[ends[1 - e]]].get(), port[1 - e]};
      }
    }
  }
  for (size_t h = 0; h < nics_.size(); ++h) {
    if (!nics_[h]->link().peer) {
      throw InputError(scenario_file, 0, "topology", "host '" + g.nodes[g.hosts[h]].name + "' has no link");
    }
  }
  const std::vector<int> level = levels(g);
  for (size_t i = 0; i < g.links.size(); ++i) {
    const TopoLink& l = g.links[i];
    for (const auto& [self, peer, port] :
         {std::tuple{l.a, l.b, link_ports_[i].port[0]}, std::tuple{l.b, l.a, link_ports_[i].port[1]}}) {
      if (node_switch_[self] >= 0) {
        switches_[node_switch_[self]]->set_upward(port, level[peer] > level[self]);
      }
    }
  }
  for (auto& s : switches_) {
    s->finalize(scenario_file);
  }
  // The event wheel should hold every arrival: a link's delay plus the largest frame's serialisation.
  Time reach;
  for (const TopoLink& l : g.links) {
    reach = std::max(reach, l.delay + nic.tx_pipeline + nic.rx_pipeline +
                                l.rate.tx_time(Bytes(wire::on_wire(static_cast<int>(max_frame.count())))));
  }
  for (size_t p = 0; p < engine.partitions(); ++p) {
    engine.sim(p).ensure_horizon(reach * 2);
  }
  build_routes(scenario_file);
  if (fabric == wire::Fabric::kRoceV1) {
    check_one_subnet();
  }
}

namespace {
// Switches with equal tables share one (see RouteTable): the one already made for an equal table, or a new one.
// Tables by a hash of their contents (each table is held once: keys would be a second copy).
using TableSet = std::unordered_map<uint64_t, std::vector<std::shared_ptr<const RouteTable>>>;
std::shared_ptr<const RouteTable> shared_table(TableSet& set, RouteTable&& t) {
  uint64_t h = t.set_of.size();
  const auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ULL; };  // FNV-1a over the three arrays
  for (const uint16_t v : t.set_of) {
    mix(v);
  }
  for (const uint32_t v : t.set_offset) {
    mix(v);
  }
  for (const uint16_t v : t.set_ports) {
    mix(v);
  }
  auto& same_hash = set[h];
  for (const auto& existing : same_hash) {
    if (*existing == t) {
      return existing;
    }
  }
  same_hash.push_back(std::make_shared<const RouteTable>(std::move(t)));
  return same_hash.back();
}

// One switch's table under construction: each distinct next-hop set is kept once (RouteTable).
class TableBuilder {
 public:
  explicit TableBuilder(size_t hosts) {
    table_.set_of.assign(hosts, 0);
    table_.set_offset.assign(1, 0);
  }
  // The next hops to `hosts` are `ports`.
  void set(const std::vector<size_t>& hosts, const std::vector<uint16_t>& ports) {
    auto it = ids_.find(ports);
    if (it == ids_.end()) {
      it = ids_.emplace(ports, static_cast<uint16_t>(ids_.size())).first;
      table_.set_ports.insert(table_.set_ports.end(), ports.begin(), ports.end());
      table_.set_offset.push_back(static_cast<uint32_t>(table_.set_ports.size()));
    }
    for (const size_t h : hosts) {
      table_.set_of[h] = it->second;
    }
  }
  RouteTable take() { return std::move(table_); }

 private:
  RouteTable table_;
  std::map<std::vector<uint16_t>, uint16_t> ids_;
};

// Destinations routed alike: the NICs hanging off one switch by their only link share every other switch's next
// hops (a shortest path to such a NIC is one to its switch, plus the last link), so one breadth-first search from
// that switch serves them all. A NIC with no link or several is a group of its own, searched from itself.
struct DestinationGroup {
  int from = 0;               // the node the search starts from
  std::vector<size_t> hosts;  // host indices
};

std::vector<DestinationGroup> destination_groups(const TopologyGraph& g, const Adjacency& adj) {
  std::vector<DestinationGroup> groups;
  std::vector<int> group_of_switch(g.nodes.size(), -1);
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    const int node = g.hosts[h];
    const auto& arcs = adj[node];
    if (arcs.size() != 1 || g.nodes[arcs[0].node].is_nic()) {
      groups.push_back({node, {h}});
      continue;
    }
    int& gi = group_of_switch[arcs[0].node];
    if (gi < 0) {
      gi = static_cast<int>(groups.size());
      groups.push_back({arcs[0].node, {}});
    }
    groups[gi].hosts.push_back(h);
  }
  return groups;
}

}  // namespace

// Shortest paths by breadth-first search over the links that are up, one search per destination group; a switch's
// next hops towards host h are all its ports whose neighbour is one hop closer to h (equal-cost multipath). Hosts
// never forward.
std::vector<RouteTable> Network::route_tables(const std::vector<char>& up, const std::string* file) const {
  const size_t nn = graph_.nodes.size();
  const size_t nh = graph_.hosts.size();
  const Adjacency adj = adjacency(graph_, up);
  std::vector<TableBuilder> tables(switches_.size(), TableBuilder(nh));
  std::vector<int> dist(nn);
  std::vector<uint16_t> ports;
  // The unreachable pair to report: the first destination host in host order, the first other NIC in node order.
  std::optional<std::pair<size_t, int>> unreachable;
  for (const DestinationGroup& group : destination_groups(graph_, adj)) {
    distances_to(graph_, adj, group.from, dist);
    const size_t first_host = group.hosts.front();
    if (file && (!unreachable || first_host < unreachable->first)) {
      for (size_t s = 0; s < nn; ++s) {
        if (node_switch_[s] < 0 && dist[s] < 0 && static_cast<int>(s) != graph_.hosts[first_host]) {
          unreachable = {first_host, static_cast<int>(s)};
          break;
        }
      }
    }
    for (size_t s = 0; s < nn; ++s) {
      if (node_switch_[s] < 0) {
        continue;
      }
      TableBuilder& table = tables[node_switch_[s]];
      if (static_cast<int>(s) == group.from) {  // the group's own switch: the link to each NIC
        for (const size_t h : group.hosts) {
          ports.assign(1, RouteTable::kNoRoute);
          for (const Arc& a : adj[s]) {
            if (a.node == graph_.hosts[h]) {
              ports[0] = a.port;
            }
          }
          table.set({h}, ports);
        }
        continue;
      }
      ports.clear();
      if (dist[s] > 0) {
        for (const Arc& a : adj[s]) {
          if (is_next_hop(graph_, dist, static_cast<int>(s), a, group.from)) {
            ports.push_back(a.port);
          }
        }
      }
      if (ports.empty()) {
        ports.push_back(RouteTable::kNoRoute);
      }
      table.set(group.hosts, ports);
    }
  }
  if (unreachable) {
    throw InputError(*file, 0, "topology",
                     "host '" + graph_.nodes[unreachable->second].name + "' cannot reach host '" +
                         graph_.nodes[graph_.hosts[unreachable->first]].name + "'");
  }
  std::vector<RouteTable> out;
  out.reserve(tables.size());
  for (TableBuilder& t : tables) {
    out.push_back(t.take());
  }
  return out;
}

double route_table_bytes(size_t switches, size_t nics) {
  return 2.0 * static_cast<double>(switches) * static_cast<double>(nics);  // RouteTable::set_of
}

void check_route_table_size(size_t switches, size_t nics, const std::string& file) {
  const double bytes = route_table_bytes(switches, nics);
  if (bytes > kMaxRouteTableBytes) {
    throw InputError(file, 0, "topology",
                     fmt::format("{} switches x {} NICs need {:.1f} GB of forwarding tables (2 bytes per switch per "
                                 "NIC); at most {:.0f} GB: simulate a smaller fabric",
                                 switches, nics, bytes / 1e9, kMaxRouteTableBytes / 1e9));
  }
}

void Network::build_routes(const std::string& scenario_file) {
  check_route_table_size(switches_.size(), graph_.hosts.size(), scenario_file);
  TableSet tables;
  auto computed = route_tables(std::vector<char>(graph_.links.size(), 1), &scenario_file);
  for (size_t si = 0; si < switches_.size(); ++si) {
    const auto table = shared_table(tables, std::move(computed[si]));
    Rng r = sim_.rng("ecmp." + switches_[si]->name());
    switches_[si]->set_routes(table, Ecmp{r.next()});
    initial_routes_.push_back(table);
  }
  route_tables_ = 0;
  for (const auto& [hash, same_hash] : tables) {
    route_tables_ += same_hash.size();
  }
}

void Network::use_balance(const BalanceAlgorithm& balance) {
  for (const auto& sw : switches_) {
    Rng r = sim_.rng("balance." + sw->name());
    sw->set_balancer(balance.make(BalancerInit{sw->ecmp().seed, r.next(), sw->num_ports()}));
  }
  if (const int n = balance.entropies(); n > 1) {
    for (const auto& nic : nics_) {
      nic->use_entropies(n);
    }
  }
}

void Network::use_hpcc_ecmp(uint16_t dport) {
  hpcc_ecmp_ = std::make_unique<HpccEcmp>();
  hpcc_ecmp_->dport = dport;
  for (const auto& n : nics_) {
    hpcc_ecmp_->ip.push_back(hpcc_ip(n->graph_id()));
  }
  for (size_t si = 0; si < switches_.size(); ++si) {
    Switch& sw = *switches_[si];
    Ecmp e = sw.ecmp();
    e.hpcc = hpcc_ecmp_.get();
    e.hpcc_seed = sw.graph_id();
    sw.set_routes(initial_routes_[si], e);
  }
}

std::vector<std::pair<Rate, Time>> Network::path(uint32_t src, uint32_t dst, uint16_t sport) const {
  std::vector<std::pair<Rate, Time>> hops;
  const Nic& s = *nics_[src];
  hops.push_back({s.link().rate, s.link().delay});
  Packet probe;
  probe.src = src;
  probe.dst = dst;
  probe.sport = sport;
  const Node* at = s.link().peer;
  for (int guard = 0; guard < 64 && at && at->kind() == NodeKind::kSwitch; ++guard) {
    const auto si = static_cast<size_t>(node_switch_[at->graph_id()]);
    const Switch* sw = switches_[si].get();
    const uint16_t port = initial_routes_[si]->port(probe, sw->ecmp());
    const LinkEnd& l = sw->link(port);
    hops.push_back({l.rate, l.delay});
    at = l.peer;
  }
  return hops;
}

Time Network::ideal_fct(uint32_t src, uint32_t dst, Bytes size, uint16_t sport, RdmaOp op, Transport t) const {
  const bool read = op == RdmaOp::kRead;
  const auto hops = read ? path(dst, src, sport) : path(src, dst, sport);
  // Payload per packet, and each packet's bytes on the wire: RDMA's in the fabric's framing; TCP segments of an
  // MSS (iWARP's carrying MPA, DDP and RDMAP) with their pure ACKs. No host cost: that is what slowdown shows.
  const bool tcp = t != Transport::kRdma && tcp_;
  const int64_t mtu = !tcp ? nic_params_.mtu : tcp_->mss - (t == Transport::kIwarp ? wire::kIwarpOverhead : 0);
  const int64_t n = std::max<int64_t>(1, (size.count() + mtu - 1) / mtu);
  const auto data_wire = [&](int64_t payload, bool first, bool last) {
    const int len = static_cast<int>(payload);
    if (tcp) {
      return int64_t{on_wire(t == Transport::kIwarp ? wire::iwarp_frame(len) : wire::tcp_frame(len))};
    }
    return int64_t{on_wire(wire::data_frame(op, len, first, last, fabric_) + int_bytes_)};
  };
  const int64_t first_wire = data_wire(std::min(mtu, size.count()), true, n == 1);
  int64_t total_wire = first_wire;
  if (n > 1) {
    total_wire += (n - 2) * data_wire(mtu, false, false) + data_wire(size.count() - (n - 1) * mtu, false, true);
  }
  const int64_t last_wire = n > 1 ? data_wire(size.count() - (n - 1) * mtu, false, true) : first_wire;
  // The last byte's arrival, store-and-forward: the critical path over the hops k of the first packet up to hop
  // k, every byte through hop k, the last packet after it; the slowest such path is the bound (with different
  // link rates the bottleneck is not always the last hop, and the last packet may be shorter than the first).
  Time data;
  for (size_t k = 0; k < hops.size(); ++k) {
    Time t = hops[k].first.tx_time(Bytes(total_wire));
    for (size_t h = 0; h < hops.size(); ++h) {
      if (h != k) {
        t += hops[h].first.tx_time(Bytes(h < k ? first_wire : last_wire));
      }
    }
    data = std::max(data, t);
  }
  Time one_way = switch_latency_ * static_cast<int64_t>(hops.size() - 1);
  for (const auto& hop : hops) {
    one_way += hop.second;
  }
  if (!read) {  // then the ACK of the last packet comes back
    const Bytes ack(tcp ? on_wire(wire::tcp_frame(0))
                        : on_wire(wire::rdma_frame(fabric_, 0, wire::kAeth) + int_bytes_));
    Time back;
    for (const auto& hop : hops) {
      back += hop.first.tx_time(ack);
    }
    return data + one_way * 2 + back;
  }
  // READ: the request crosses to the responder first; the responses stream back; the last one completes it.
  const Bytes request(on_wire(wire::rdma_frame(fabric_, 0, wire::kReth)));
  Time req;
  for (const auto& hop : hops) {
    req += hop.first.tx_time(request);
  }
  return req + one_way * 2 + data;
}

Time Network::round_trip(const std::vector<std::pair<Rate, Time>>& hops, Bytes first_wire) const {
  const Bytes ack(on_wire(wire::rdma_frame(fabric_, 0, wire::kAeth) + int_bytes_));
  Time t;
  for (const auto& [rate, delay] : hops) {
    t += delay * 2 + rate.tx_time(first_wire) + rate.tx_time(ack);
  }
  return t + switch_latency_ * static_cast<int64_t>(2 * (hops.size() - 1));
}

Bytes Network::full_frame() const {
  return Bytes(on_wire(wire::rdma_frame(fabric_, static_cast<int>(nic_params_.mtu), 0) + int_bytes_));
}

Time Network::base_rtt(uint32_t src, uint32_t dst, uint16_t sport) const {
  return round_trip(path(src, dst, sport), full_frame());
}

Time Network::ack_clocked_rtt(uint32_t src, uint32_t dst, uint16_t sport) const {
  const auto hops = path(src, dst, sport);
  Time slowest;
  for (const auto& [rate, delay] : hops) {
    slowest = std::max(slowest, rate.tx_time(full_frame()));
  }
  return round_trip(hops, full_frame()) + slowest * (nic_params_.ack_interval - 1);
}

void Network::attach_servers(const ServerParams& p, const std::string& file) {
  scenario_file_ = file;
  cpu_cores_ = p.cpu_cores;
  cpu_ghz_ = p.cpu_ghz;
  if (p.gpus == 0) {
    return;
  }
  for (auto& host : hosts_) {
    const ServerModel* model = nullptr;
    for (const auto& m : server_models_) {
      if (m->nics() == host->num_nics()) {
        model = m.get();
      }
    }
    if (!model) {
      server_models_.push_back(std::make_unique<ServerModel>(p, host->num_nics()));
      model = server_models_.back().get();
    }
    host->attach_interconnect(*model);
    for (size_t k = 0; k < host->num_nics(); ++k) {
      point_dma(host->endpoint(k), Place::host());
    }
  }
}

void Network::point_dma(uint32_t endpoint, Place memory) {
  Host& host = server_of(endpoint);
  size_t k = 0;
  while (host.endpoint(k) != endpoint) {
    ++k;
  }
  const ServerModel& m = host.model();
  const auto nic = Place::nic(static_cast<uint32_t>(k));
  const Rate link = nics_[endpoint]->link().rate;
  // bytes per second to a Rate, rounded down; no limit where PCIe keeps up with the link
  const auto limit = [&](double bytes_per_s) {
    const auto bps = static_cast<int64_t>(bytes_per_s * 8);
    return bps < link.bps() ? Rate::bps(bps) : Rate();
  };
  const Rate write = limit(m.path_rate(nic, memory));
  if (ib_) {
    // InfiniBand: no PFC; the NIC advertises its receive buffer as each VL's credits, and the switch port into it
    // sends within them.
    nics_[endpoint]->set_dma(limit(m.path_rate(memory, nic)), write, 0);
    if (write.bps() > 0) {
      const CreditConfig rx = credit_config(nic_params_.rx_buffer, ib_->credit_batch,
                                            Bytes(nics_[endpoint]->max_frame()), scenario_file_, "nic.rx_buffer");
      nics_[endpoint]->set_rx_credits(rx);
      dynamic_cast<CreditControl&>(host_attach_[endpoint].first->flow_control())
          .set_peer_credits(host_attach_[endpoint].second, rx.buffer_blocks);
    }
    return;
  }
  if (const Bytes need = nics_[endpoint]->rx_buffer_needed(); write.bps() > 0 && nic_params_.rx_buffer < need) {
    throw InputError(scenario_file_, 0, "nic.rx_buffer",
                     to_string(nic_params_.rx_buffer) + " is too small for " + nics_[endpoint]->name() +
                         ", whose PCIe path to memory (" + fmt::format("{:.1f}Gbps", write.gbps_f()) +
                         ") is slower than its link (" + to_string(link) + "): its receive buffer's PFC needs " +
                         to_string(need) + " (headroom, XON gap and a frame; mlx5 port_buffer.c)");
  }
  nics_[endpoint]->set_dma(limit(m.path_rate(memory, nic)), write, lossless_);
}

std::pair<uint32_t, uint32_t> Network::connect(uint32_t a, uint32_t app_a, uint32_t b, uint32_t app_b,
                                               const ConnectOptions& o) {
  // The ephemeral range: the QP's ECMP entropy.
  const auto sport = o.sport != 0 ? o.sport : static_cast<uint16_t>(49152 + rng_.below(16384));
  Host& ha = server_of(a);
  Host& hb = server_of(b);
  Host::QpEnd ea, eb;
  ea.app = app_a;
  eb.app = app_b;
  for (size_t k = 0; k < ha.num_nics(); ++k) {
    ea.nic = ha.endpoint(k) == a ? static_cast<uint32_t>(k) : ea.nic;
  }
  for (size_t k = 0; k < hb.num_nics(); ++k) {
    eb.nic = hb.endpoint(k) == b ? static_cast<uint32_t>(k) : eb.nic;
  }
  const auto ha_handle = static_cast<uint32_t>(ha.num_qps());
  const auto hb_handle = static_cast<uint32_t>(hb.num_qps()) + (&ha == &hb ? 1 : 0);
  // One direction of data: the receiver's half first, then the sender's, which learns the receiver's number.
  const auto direction = [&](uint32_t from, uint32_t from_app, uint32_t from_handle, uint32_t to, uint32_t to_app,
                             uint32_t to_handle, bool read) {
    const auto conn = static_cast<uint32_t>(conns_.size());
    if (o.transport != Transport::kRdma) {
      if (read || !tcp_) {
        throw std::logic_error("a TCP connection carries no READ and needs Network::set_tcp");
      }
      const bool offload = o.transport == Transport::kIwarp;
      Nic& nt = *nics_[to];
      Nic& nf = *nics_[from];
      nt.enable_tcp(*tcp_, *tcp_cc_, &server_of(to).cpu(cpu_cores_, cpu_ghz_));
      nf.enable_tcp(*tcp_, *tcp_cc_, &server_of(from).cpu(cpu_cores_, cpu_ghz_));
      const uint32_t rq = nt.add_tcp_recv(TcpRecvInit{from, o.priority, sport, offload, to_app, to_handle, conn});
      const uint32_t sq =
          nf.add_tcp_send(TcpSendInit{to, rq & ~Nic::kTcpBit, o.priority, sport, offload, from_app, from_handle, conn});
      nt.set_recv_peer(rq, sq);
      conns_.push_back(FlowPath{from, sq, to, rq, o.transport});
      return std::make_pair(sq, rq);
    }
    // A READ's data comes from the responder (`from`) to the requester (`to`), who holds the read half.
    RecvQpInit ri{from, o.priority, sport, read, o.notify_landed, to_app, to_handle, conn};
    const uint32_t rq = nics_[to]->add_recv_qp(ri);
    // READ responses are not acknowledged: their sender's round trip is the base one.
    const Time rtt = read ? base_rtt(from, to, sport) : ack_clocked_rtt(from, to, sport);
    SendQpInit si{to, rq, o.priority, sport, rtt, read, from_app, from_handle, conn};
    const uint32_t sq = nics_[from]->add_send_qp(si);
    nics_[to]->set_recv_peer(rq, sq);
    conns_.push_back(FlowPath{from, sq, to, rq});
    return std::make_pair(sq, rq);
  };
  if (o.a_sends) {
    const auto [sq, rq] = direction(a, app_a, ha_handle, b, app_b, hb_handle, false);
    ea.send = sq;
    eb.recv = rq;
  }
  if (o.b_sends) {
    const auto [sq, rq] = direction(b, app_b, hb_handle, a, app_a, ha_handle, false);
    eb.send = sq;
    ea.recv = rq;
  }
  if (o.a_reads) {
    ea.read = direction(b, app_b, hb_handle, a, app_a, ha_handle, true).second;
  }
  const uint32_t qa = ha.add_qp(ea);
  const uint32_t qb = hb.add_qp(eb);
  return {qa, qb};
}

uint32_t Network::add_flow(const FlowSpec& spec) {
  const auto id = static_cast<uint32_t>(flow_conn_.size());
  if (spec.after >= 0 && (static_cast<uint32_t>(spec.after) >= id || spec.op == RdmaOp::kRead ||
                          conns_[flow_conn_[static_cast<size_t>(spec.after)]].sender != spec.src)) {
    // Only WRITE/SEND chains from one sender: the sender's NIC itself sees the first flow end.
    throw std::invalid_argument("a flow can only wait for an earlier WRITE or SEND flow of the same sender");
  }
  const auto app_of = [&](uint32_t endpoint) {
    const uint32_t server = endpoint_server_[endpoint];
    if (flows_app_[server] == UINT32_MAX) {
      flows_app_[server] = hosts_[server]->add_app(std::make_unique<FlowsApp>());
    }
    return flows_app_[server];
  };
  ConnectOptions o;
  o.priority = spec.priority;
  o.a_sends = spec.op != RdmaOp::kRead;
  o.a_reads = spec.op == RdmaOp::kRead;
  o.sport = spec.sport;
  o.transport = spec.transport;
  const uint32_t app_src = app_of(spec.src), app_dst = app_of(spec.dst);
  const auto [qa, qb] = connect(spec.src, app_src, spec.dst, app_dst, o);
  flow_conn_.push_back(static_cast<uint32_t>(conns_.size() - 1));
  Host& src = server_of(spec.src);
  if (spec.op == RdmaOp::kSend) {
    server_of(spec.dst).post_recv(qb, 1, spec.recv_posted);
  }
  static_cast<FlowsApp&>(src.app(app_src)).add(src, qa, spec, id);
  return id;
}

std::vector<int64_t> Network::dma_payload(uint16_t workload) const {
  std::vector<int64_t> out(nics_.size(), 0);
  gather();
  for (const auto* records : {&gathered_, &grouped_}) {
    for (const FlowRecord& r : *records) {
      if (r.spec.workload == workload) {
        out[r.spec.src] += r.delivered;
        out[r.spec.dst] += r.delivered;
      }
    }
  }
  return out;
}

const std::vector<FlowRecord>& Network::flows() const {
  gather();
  return gathered_;
}

const std::vector<FlowRecord>& Network::message_groups() const {
  gather();
  return grouped_;
}

void Network::group_records(bool on) {
  for (auto& nic : nics_) {
    nic->group_records(on);
  }
}

void Network::gather() const {
  gathered_.clear();
  grouped_.clear();
  std::vector<std::pair<std::tuple<Time, uint32_t, size_t>, size_t>> unnumbered;
  std::vector<bool> responder_counted(conns_.size(), false), reorder_counted(conns_.size(), false);
  for (const auto& nic : nics_) {
    const auto& recs = nic->records();
    for (size_t i = 0; i < recs.size(); ++i) {
      FlowRecord r = recs[i];
      const FlowPath& c = conns_[r.conn];
      r.delivered = std::clamp<int64_t>(nics_[c.receiver]->delivered(c.recv_qpn) - r.offset, 0, r.spec.size.count());
      if (!reorder_counted[r.conn]) {
        reorder_counted[r.conn] = true;
        r.out_of_order = nics_[c.receiver]->out_of_order(c.recv_qpn);
      }
      if (r.spec.op == RdmaOp::kRead && !responder_counted[r.conn]) {  // a responder's counters, once per QP
        responder_counted[r.conn] = true;
        const auto [retx, cnps] = nics_[c.sender]->responder_counters(c.send_qpn);
        r.retransmits += retx;
        r.cnps += cnps;
      }
      r.spec.transport = c.transport;
      r.ideal_fct = ideal_fct(r.spec.src, r.spec.dst, r.spec.size, r.sport, r.spec.op, r.spec.transport);
      r.base_rtt = base_rtt(c.sender, c.receiver, r.sport);
      if (r.group != WorkRequest::kNoGroup) {
        grouped_.push_back(r);
        continue;
      }
      if (r.id == Nic::kUnnumbered) {
        unnumbered.push_back({{r.posted, r.spec.src, i}, gathered_.size()});
      }
      gathered_.push_back(r);
    }
  }
  std::sort(unnumbered.begin(), unnumbered.end());
  auto next = static_cast<uint32_t>(flow_conn_.size());
  for (const auto& u : unnumbered) {
    gathered_[u.second].id = next++;
  }
  std::sort(gathered_.begin(), gathered_.end(), [](const FlowRecord& x, const FlowRecord& y) { return x.id < y.id; });
  std::sort(grouped_.begin(), grouped_.end(), [](const FlowRecord& x, const FlowRecord& y) {
    return std::tie(x.spec.workload, x.group, x.spec.src, x.conn) <
           std::tie(y.spec.workload, y.group, y.spec.src, y.conn);
  });
}

std::vector<std::pair<Switch*, uint16_t>> Network::parse_ports(const std::string& list, const std::string& file,
                                                               const std::string& key,
                                                               std::vector<std::string>* names) const {
  std::vector<std::pair<Switch*, uint16_t>> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) {
      continue;
    }
    item = item.substr(b, e - b + 1);
    const auto colon = item.rfind(':');
    Switch* sw = nullptr;
    for (const auto& s : switches_) {
      if (colon != std::string::npos && s->name() == item.substr(0, colon)) {
        sw = s.get();
      }
    }
    int64_t port = -1;
    if (sw) {
      try {
        port = std::stoll(item.substr(colon + 1));
      } catch (...) {
      }
    }
    if (!sw || port < 0 || static_cast<size_t>(port) >= sw->num_ports()) {
      throw InputError(file, 0, key,
                       "'" + item + "' is not a switch port (switch:port, e.g. " + switches_[0]->name() + ":0)");
    }
    out.push_back({sw, static_cast<uint16_t>(port)});
    if (names) {
      names->push_back(item);
    }
  }
  return out;
}

void Network::use_credits(const InfinibandParams& ib) {
  ib_ = &ib;
  // Each end of a link advertises a buffer per VL sized for the link into it; the other end starts with that many
  // credits (what InfiniBand's link initialisation exchanges).
  const Bytes max_frame(nics_.front()->max_frame());
  for (const LinkPorts& lp : link_ports_) {
    CreditConfig cfg[2];
    for (int e = 0; e < 2; ++e) {
      const auto* sw = dynamic_cast<const Switch*>(lp.node[e]);
      const LinkEnd& in = sw ? sw->link(lp.port[e]) : static_cast<const Nic*>(lp.node[e])->link();
      cfg[e] = credit_config(ib, in.rate, in.delay, sw ? switch_latency_ : Time(), max_frame, scenario_file_);
    }
    for (int e = 0; e < 2; ++e) {
      if (auto* sw = dynamic_cast<Switch*>(lp.node[e])) {
        dynamic_cast<CreditControl&>(sw->flow_control()).set_credits(lp.port[e], cfg[e], cfg[1 - e].buffer_blocks);
      } else {
        static_cast<Nic*>(lp.node[e])->enable_credits(cfg[e], cfg[1 - e].buffer_blocks);
      }
    }
  }
  use_destination_routing();
}

// InfiniBand switches forward each destination LID on one port: the subnet manager's fat-tree routing spreads
// destinations over the up ports by D-mod-K (Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic for Shift
// Permutations on Real Life Fat Trees", 2010; OpenSM's ftree engine), where a switch at tier t picks
// (LID / product of the up-port counts of the tiers below t) mod its number of up ports.
void Network::use_destination_routing() {
  const std::vector<int> level = levels(graph_);
  std::map<int, uint32_t> ups;  // per switch tier: the up ports of its first switch
  std::vector<uint32_t> up_count(graph_.nodes.size(), 0);
  for (const TopoLink& l : graph_.links) {
    up_count[l.a] += level[l.b] > level[l.a];
    up_count[l.b] += level[l.a] > level[l.b];
  }
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    if (node_switch_[i] >= 0 && !ups.contains(level[i])) {
      ups[level[i]] = std::max<uint32_t>(1, up_count[i]);
    }
  }
  for (size_t si = 0; si < switches_.size(); ++si) {
    const int tier = level[switches_[si]->graph_id()];
    uint32_t div = 1;
    for (const auto& [t, n] : ups) {
      if (t < tier) {
        div *= n;
      }
    }
    Ecmp e = switches_[si]->ecmp();
    e.lid_div = div;
    switches_[si]->set_routes(initial_routes_[si], e);
  }
}

// RoCEv1 packets are Ethernet frames without an IP header: they reach only hosts of the same layer-2 domain, the
// NICs of one switch here (a fabric of several switches routes between subnets).
void Network::check_one_subnet() const {
  for (uint32_t h = 1; h < host_attach_.size(); ++h) {
    if (host_attach_[h].first != host_attach_[0].first) {
      throw InputError(scenario_file_, 0, "fabric",
                       "roce-v1 cannot join " + nics_[0]->name() + " and " + nics_[h]->name() +
                           ": they sit in different subnets (behind " + host_attach_[0].first->name() + " and " +
                           host_attach_[h].first->name() +
                           ", joined by routed switches), and RoCEv1 frames (EtherType 0x8915, no IP header) do not "
                           "cross a router; use fabric: roce-v2, or a single switch (topology type: star)");
    }
  }
}

Network::Conservation Network::conservation() const {
  Conservation c;
  for (const auto& n : nics_) {
    const NicCounters k = n->counters();
    c.sent += k.data_sent + k.ctrl_sent + (n->tcp() ? n->tcp()->segments_sent() : 0);
    c.delivered += k.data_rcvd + k.ctrl_rcvd + (n->tcp() ? n->tcp()->segments_rcvd() : 0);
    c.dropped += n->injected_drops() + k.lost_link_down + k.rx_dropped;
  }
  for (const auto& s : switches_) {
    c.dropped += s->drops_total();
  }
  // (TCP segments a kernel receiver's core has yet to process are still here: not yet delivered.)
  for (PacketKind k : {PacketKind::kData, PacketKind::kAck, PacketKind::kNak, PacketKind::kCnp,
                       PacketKind::kReadRequest, PacketKind::kTcp}) {
    for (size_t p = 0; p < engine_.partitions(); ++p) {
      c.in_network += engine_.pool(p).live(k);
    }
  }
  return c;
}

}  // namespace rocesim

namespace rocesim {

int Network::find_link(const std::string& target) const {
  const auto colon = target.rfind(':');
  for (size_t i = 0; i < link_ports_.size(); ++i) {
    for (int e = 0; e < 2; ++e) {
      const Node* n = link_ports_[i].node[e];
      if (!n->is_switch() && n->name() == target) {
        return static_cast<int>(i);
      }
      if (n->is_switch() && colon != std::string::npos && n->name() == target.substr(0, colon) &&
          target.substr(colon + 1) == std::to_string(link_ports_[i].port[e])) {
        return static_cast<int>(i);
      }
    }
  }
  return -1;
}

namespace {

// The events that change the fabric (not NIC faults), earliest first; events at one time in the order given.
std::vector<const FabricEvent*> fabric_changes_in_time_order(const std::vector<FabricEvent>& events) {
  std::vector<const FabricEvent*> order;
  for (const FabricEvent& e : events) {
    if (!e.is_fault()) {
      order.push_back(&e);
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) { return x->at < y->at; });
  return order;
}

}  // namespace

// The checks of schedule_events, run before anything is scheduled (and by `rocesim check` and `topology`, which
// schedule nothing): every event names a NIC, link or switch that exists and changes something, in time order.
void Network::check_events(const std::vector<FabricEvent>& events, const std::string& file) const {
  for (const FabricEvent& e : events) {
    if (!e.is_fault()) {
      continue;
    }
    const auto nic = std::find_if(nics_.begin(), nics_.end(), [&](const auto& n) { return n->name() == e.target; });
    if (nic == nics_.end()) {
      throw InputError(file, e.line, e.target_key(),
                       "'" + e.target + "' is not a NIC (NICs are named like " + nics_[0]->name() + ")");
    }
    if (e.kind == FabricEvent::Kind::kPauseStorm) {
      // A port acts on PFC only for the priorities PFC is enabled on (IEEE 802.1Qbb 36.1.3.2): a storm on another
      // would pause nothing in a real fabric.
      if (!(lossless_ >> e.prio & 1u)) {
        std::string enabled;
        for (int c = 0; c < 8; ++c) {
          if (lossless_ >> c & 1u) {
            enabled += (enabled.empty() ? "" : ", ") + std::to_string(c);
          }
        }
        throw InputError(file, e.line, e.key("priority"),
                         "pause_storm on priority " + std::to_string(e.prio) +
                             ", which is not lossless (switch.pfc.priorities: [" + enabled +
                             "]): switches ignore PFC frames for priorities PFC is not enabled on (IEEE 802.1Qbb)");
      }
      continue;
    }
    const Nic& n = **nic;
    if (const Bytes need = n.rx_buffer_needed(); nic_params_.rx_buffer < need) {
      throw InputError(file, e.line, "nic.rx_buffer",
                       to_string(nic_params_.rx_buffer) + " is too small for the slow receiver " + e.target + ": at " +
                           to_string(n.link().rate) + " its PFC needs " + to_string(need) +
                           " (headroom, XON gap and a frame; mlx5 port_buffer.c)");
    }
    if (e.rate >= n.link().rate) {
      throw InputError(file, e.line, e.key("rate"),
                       to_string(e.rate) + " is not below " + e.target + "'s link rate (" + to_string(n.link().rate) +
                           "): the receiver would not be slow");
    }
  }
  const std::vector<const FabricEvent*> order = fabric_changes_in_time_order(events);
  std::vector<char> link_admin_down(graph_.links.size(), 0), switch_down(switches_.size(), 0);
  for (const FabricEvent* e : order) {
    const std::string what = std::string(to_string(e->kind)) + " at " + to_string(e->at);
    if (e->on_link()) {
      const int l = find_link(e->target);
      if (l < 0) {
        throw InputError(file, e->line, e->target_key(),
                         "'" + e->target + "' is not a link: name a switch port (" + switches_[0]->name() +
                             ":0) or a NIC (" + nics_[0]->name() + ")");
      }
      if (link_admin_down[l] == static_cast<char>(!e->up())) {
        throw InputError(file, e->line, e->target_key(),
                         what + ": the link on '" + e->target + "' is " + (e->up() ? "up" : "down") + " already");
      }
      link_admin_down[l] = !e->up();
    } else {
      const int s = find_switch(e->target);
      if (s < 0) {
        throw InputError(file, e->line, e->target_key(), "'" + e->target + "' is not a switch");
      }
      if (switch_down[s] == static_cast<char>(!e->up())) {
        throw InputError(file, e->line, e->target_key(),
                         what + ": switch '" + e->target + "' is " + (e->up() ? "up" : "down") + " already");
      }
      switch_down[s] = !e->up();
    }
  }
}

int Network::find_switch(const std::string& name) const {
  for (size_t i = 0; i < switches_.size(); ++i) {
    if (switches_[i]->name() == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void Network::schedule_events(const std::vector<FabricEvent>& events, const RoutingParams& routing,
                              const std::string& file) {
  check_events(events, file);
  for (const FabricEvent& e : events) {
    if (e.is_fault()) {
      Nic& nic = **std::find_if(nics_.begin(), nics_.end(), [&](const auto& n) { return n->name() == e.target; });
      if (e.kind == FabricEvent::Kind::kPauseStorm) {
        nic.schedule_pause_storm(e.at, e.until, e.prio);
      } else {
        nic.schedule_slow_receiver(e.at, e.until, e.rate, lossless_);
      }
    }
  }
  if (std::all_of(events.begin(), events.end(), [](const FabricEvent& e) { return e.is_fault(); })) {
    return;
  }
  // Every node checks its links from now on; a frame arriving on a port left its sender the link's delay ago.
  const auto in_delay = [](const LinkEnd& out) {
    return out.peer->is_switch() ? static_cast<const Switch*>(out.peer)->link(out.peer_port).delay
                                 : static_cast<const Nic*>(out.peer)->link().delay;
  };
  for (auto& sw : switches_) {
    std::vector<std::pair<Time, Rate>> in;
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      in.push_back({in_delay(sw->link(p)), sw->link(p).rate});
    }
    sw->enable_faults(in);
  }
  for (auto& nic : nics_) {
    nic->enable_faults({{in_delay(nic->link()), nic->link().rate}});
  }
  const std::vector<const FabricEvent*> order = fabric_changes_in_time_order(events);
  std::vector<char> link_admin_down(graph_.links.size(), 0), switch_down(switches_.size(), 0);
  std::vector<char> up(graph_.links.size(), 1);
  std::vector<Rng> jitter;
  for (const auto& sw : switches_) {
    jitter.push_back(sim_.rng("routing." + sw->name()));
  }
  TableSet tables;
  for (const FabricEvent* e : order) {  // (check_events found every target)
    if (e->on_link()) {
      link_admin_down[find_link(e->target)] = !e->up();
    } else {
      switch_down[find_switch(e->target)] = !e->up();
    }
    // The links whose state changes, at both ends.
    bool changed = false;
    for (size_t i = 0; i < graph_.links.size(); ++i) {
      const TopoLink& tl = graph_.links[i];
      const auto sw_down = [&](int node) { return node_switch_[node] >= 0 && switch_down[node_switch_[node]]; };
      const char now_up = !link_admin_down[i] && !sw_down(tl.a) && !sw_down(tl.b);
      if (now_up != up[i]) {
        up[i] = now_up;
        changed = true;
        for (int end = 0; end < 2; ++end) {
          Node* node = link_ports_[i].node[end];
          Simulator& sim = engine_.sim(engine_.partition_of(node->graph_id()));
          if (now_up) {
            sim.at(e->at, node, kEvLinkUp, link_ports_[i].port[end]);
          } else {
            sim.at(e->at, node, kEvLinkDown, link_ports_[i].port[end]);
          }
        }
      }
    }
    if (!changed) {
      continue;  // e.g. a link_down of a link on a switch that is down: nothing moves
    }
    auto computed = route_tables(up, nullptr);
    for (size_t si = 0; si < switches_.size(); ++si) {
      const Time extra =
          Time::ps(static_cast<int64_t>(jitter[si].below(static_cast<uint64_t>(routing.jitter.ps()) + 1)));
      switches_[si]->schedule_routes(shared_table(tables, std::move(computed[si])),
                                     e->at + routing.convergence + extra);
    }
  }
}

}  // namespace rocesim
