#include "rocesim/net/network.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <sstream>

namespace rocesim {

Network::Network(Simulator& sim, const TopologyGraph& g, const SwitchParams& sw, const NicParams& nic,
                 const CcAlgorithm& cc, const std::string& scenario_file)
    : sim_(sim), graph_(g), flows_(sim), nic_params_(nic), switch_latency_(sw.latency), rng_(sim.rng("network.flows")) {
  // A NIC marks each priority with the smallest DSCP that the switches map to it (trust DSCP end to end).
  const auto dscp_to_prio = parse_dscp_map(sw.dscp_map);
  for (int d = 63; d >= 0; --d) {
    prio_to_dscp_[dscp_to_prio[d]] = static_cast<uint8_t>(d);
    prio_has_dscp_[dscp_to_prio[d]] = true;
  }
  int_bytes_ = cc.wants_telemetry() ? kIntHeaderBytes : 0;
  const Bytes max_frame(wire::roce_frame(static_cast<int>(nic.mtu), wire::kReth) + int_bytes_);
  node_switch_.assign(g.nodes.size(), -1);
  std::vector<int> node_host(g.nodes.size(), -1);
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    node_host[g.hosts[h]] = static_cast<int>(h);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.nodes[i].is_host) {
      node_switch_[i] = static_cast<int>(switches_.size());
      switches_.push_back(std::make_unique<Switch>(sim, pool_, g.nodes[i].name, sw, max_frame, cc.wants_telemetry()));
      switches_.back()->set_graph_id(static_cast<uint32_t>(i));
    }
  }
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    nics_.push_back(std::make_unique<Nic>(sim, pool_, g.nodes[g.hosts[h]].name, static_cast<uint32_t>(h), nic, cc,
                                          flows_, prio_to_dscp_));
    nics_.back()->set_graph_id(static_cast<uint32_t>(g.hosts[h]));
  }
  host_attach_.assign(g.hosts.size(), {nullptr, 0});
  // Wire the ports: each link gives one port at each end; the peer fields are filled once both ends exist.
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
    for (int e = 0; e < 2; ++e) {
      const LinkEnd end{node[1 - e], port[1 - e], l.rate, l.delay};
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
  for (auto& s : switches_) {
    s->finalize(scenario_file);
  }
  // The event wheel should hold every arrival: a link's delay plus the largest frame's serialisation.
  Time reach;
  for (const TopoLink& l : g.links) {
    reach = std::max(reach, l.delay + l.rate.tx_time(Bytes(wire::on_wire(static_cast<int>(max_frame.count())))));
  }
  sim_.ensure_horizon(reach * 2);
  build_routes(scenario_file);
  flows_.on_finish([this](uint32_t id) {
    if (id < dependents_.size()) {
      for (uint32_t d : dependents_[id]) {
        nics_[flows_[d].spec.src]->start_now(flows_[d].send_qpn);
      }
    }
  });
}

// Shortest paths by breadth-first search from each destination host; a switch's next hops towards host h are
// all its ports whose neighbour is one hop closer to h (equal-cost multipath). Hosts never forward.
void Network::build_routes(const std::string& scenario_file) {
  const size_t nn = graph_.nodes.size();
  const size_t nh = graph_.hosts.size();
  // Adjacency: per node, (neighbour, local port).
  std::vector<std::vector<std::pair<int, uint16_t>>> adj(nn);
  std::vector<uint16_t> next_port(nn, 0);
  for (const TopoLink& l : graph_.links) {
    adj[l.a].push_back({l.b, next_port[l.a]++});
    adj[l.b].push_back({l.a, next_port[l.b]++});
  }
  std::vector<std::vector<uint32_t>> offsets(switches_.size(), std::vector<uint32_t>(nh + 1, 0));
  std::vector<std::vector<uint16_t>> next(switches_.size());
  std::vector<int> dist(nn);
  for (size_t h = 0; h < nh; ++h) {
    std::fill(dist.begin(), dist.end(), -1);
    std::deque<int> q;
    const int target = graph_.hosts[h];
    dist[target] = 0;
    q.push_back(target);
    while (!q.empty()) {
      const int u = q.front();
      q.pop_front();
      if (graph_.nodes[u].is_host && u != target) {
        continue;
      }
      for (const auto& [v, port] : adj[u]) {
        if (dist[v] < 0) {
          dist[v] = dist[u] + 1;
          q.push_back(v);
        }
      }
    }
    for (size_t s = 0; s < nn; ++s) {
      if (node_switch_[s] < 0) {
        if (static_cast<int>(s) != target && dist[s] < 0) {
          throw InputError(scenario_file, 0, "topology",
                           "host '" + graph_.nodes[s].name + "' cannot reach host '" + graph_.nodes[target].name + "'");
        }
        continue;
      }
      const int si = node_switch_[s];
      offsets[si][h] = static_cast<uint32_t>(next[si].size());
      if (dist[s] > 0) {
        for (const auto& [v, port] : adj[s]) {
          if (dist[v] == dist[s] - 1 && (!graph_.nodes[v].is_host || v == target)) {
            next[si].push_back(port);
          }
        }
      }
      if (next[si].size() == offsets[si][h]) {
        next[si].push_back(0);  // unreachable from here; never used by a routed packet
      }
    }
  }
  // Switches with equal tables share one (see RouteTable).
  std::map<RouteTable, std::shared_ptr<const RouteTable>> tables;
  for (size_t si = 0; si < switches_.size(); ++si) {
    offsets[si][nh] = static_cast<uint32_t>(next[si].size());
    RouteTable t(offsets[si], next[si]);
    auto it = tables.find(t);
    if (it == tables.end()) {
      auto shared = std::make_shared<const RouteTable>(t);
      it = tables.emplace(std::move(t), std::move(shared)).first;
    }
    Rng r = sim_.rng("ecmp." + switches_[si]->name());
    switches_[si]->set_routes(it->second, r.next());
  }
  route_tables_ = tables.size();
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
  for (int guard = 0; guard < 64; ++guard) {
    const auto* sw = dynamic_cast<const Switch*>(at);
    if (!sw) {
      break;
    }
    const uint16_t port = sw->route(probe);
    const LinkEnd& l = sw->link(port);
    hops.push_back({l.rate, l.delay});
    at = l.peer;
  }
  return hops;
}

Time Network::ideal_fct(uint32_t src, uint32_t dst, Bytes size, uint16_t sport, RdmaOp op) const {
  const bool read = op == RdmaOp::kRead;
  const auto hops = read ? path(dst, src, sport) : path(src, dst, sport);
  const int64_t mtu = nic_params_.mtu;
  const int64_t n = std::max<int64_t>(1, (size.count() + mtu - 1) / mtu);
  // Extended headers per packet position: RETH on a WRITE's first packet, AETH on a READ response's first and
  // last, none on SEND.
  const auto ext = [&](bool first, bool last) {
    switch (op) {
      case RdmaOp::kWrite:
        return first ? wire::kReth : 0;
      case RdmaOp::kRead:
        return (first || last) ? wire::kAeth : 0;
      case RdmaOp::kSend:
        break;
    }
    return 0;
  };
  const auto data_wire = [&](int64_t payload, bool first, bool last) {
    return int64_t{wire::on_wire(wire::roce_frame(static_cast<int>(payload), ext(first, last)) + int_bytes_)};
  };
  const int64_t first_wire = data_wire(std::min(mtu, size.count()), true, n == 1);
  int64_t total_wire = first_wire;
  if (n > 1) {
    total_wire += (n - 2) * data_wire(mtu, false, false) + data_wire(size.count() - (n - 1) * mtu, false, true);
  }
  Rate bottleneck = hops.front().first;
  for (const auto& hop : hops) {
    bottleneck = std::min(bottleneck, hop.first);
  }
  const Time stream = bottleneck.tx_time(Bytes(total_wire - first_wire));
  if (!read) {
    return round_trip(hops, Bytes(first_wire)) + stream;
  }
  // READ: the request crosses to the responder; the responses stream back; the last one completes it.
  const Bytes request(wire::on_wire(wire::roce_frame(0, wire::kReth)));
  Time t = switch_latency_ * static_cast<int64_t>(2 * (hops.size() - 1));
  for (const auto& [rate, delay] : hops) {
    t += delay * 2 + rate.tx_time(request) + rate.tx_time(Bytes(first_wire));
  }
  return t + stream;
}

Time Network::round_trip(const std::vector<std::pair<Rate, Time>>& hops, Bytes first_wire) const {
  const Bytes ack(wire::on_wire(wire::kAckFrame + int_bytes_));
  Time t;
  for (const auto& [rate, delay] : hops) {
    t += delay * 2 + rate.tx_time(first_wire) + rate.tx_time(ack);
  }
  return t + switch_latency_ * static_cast<int64_t>(2 * (hops.size() - 1));
}

Time Network::base_rtt(uint32_t src, uint32_t dst, uint16_t sport) const {
  return round_trip(path(src, dst, sport),
                    Bytes(wire::on_wire(wire::roce_frame(static_cast<int>(nic_params_.mtu), 0) + int_bytes_)));
}

uint32_t Network::add_flow(const FlowSpec& spec) {
  FlowRecord r;
  r.spec = spec;
  r.sport = static_cast<uint16_t>(49152 + rng_.below(16384));  // ephemeral range: the ECMP entropy of the QP
  // The data moves from the responder to the requester in a READ.
  const bool read = spec.op == RdmaOp::kRead;
  const uint32_t from = read ? spec.dst : spec.src, to = read ? spec.src : spec.dst;
  r.ideal_fct = ideal_fct(spec.src, spec.dst, spec.size, r.sport, spec.op);
  r.base_rtt = base_rtt(from, to, r.sport);
  const uint32_t id = flows_.add(r);
  const uint32_t rq = nics_[to]->add_recv_qp(id, read);
  const uint32_t sq = nics_[from]->add_send_qp(id, rq, read);
  nics_[to]->set_recv_peer(rq, sq);
  flows_[id].send_qpn = sq;
  if (spec.after >= 0) {
    // Only WRITE/SEND chains from one sender: the sender's NIC itself sees the first flow end.
    if (static_cast<uint32_t>(spec.after) >= id || flows_[static_cast<uint32_t>(spec.after)].spec.src != spec.src ||
        read) {
      throw std::invalid_argument("a flow can only wait for an earlier WRITE or SEND flow of the same sender");
    }
    if (dependents_.size() <= static_cast<size_t>(spec.after)) {
      dependents_.resize(static_cast<size_t>(spec.after) + 1);
    }
    dependents_[static_cast<size_t>(spec.after)].push_back(id);
  }
  return id;
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

Network::Conservation Network::conservation() const {
  Conservation c;
  for (const auto& n : nics_) {
    c.sent += n->counters().data_sent + n->counters().ctrl_sent;
    c.delivered += n->counters().data_rcvd + n->counters().ctrl_rcvd;
    c.dropped += n->injected_drops();
  }
  for (const auto& s : switches_) {
    c.dropped += s->drops_total();
  }
  for (PacketKind k :
       {PacketKind::kData, PacketKind::kAck, PacketKind::kNak, PacketKind::kCnp, PacketKind::kReadRequest}) {
    c.in_network += pool_.live(k);
  }
  return c;
}

}  // namespace rocesim
