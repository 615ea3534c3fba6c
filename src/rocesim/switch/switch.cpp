#include "rocesim/switch/switch.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace rocesim {

const Schema<SwitchParams>& SwitchParams::schema() {
  static const Schema<SwitchParams> s = [] {
    Schema<SwitchParams> sc("switch", "every switch of the fabric");
    sc.add(&SwitchParams::buffer, "buffer", "16MB", "packet buffer shared by all ports", at_least(Bytes(1)))
        .add(&SwitchParams::latency, "latency", "0ns",
             "forwarding pipeline latency before a packet joins its egress queue")
        .add(&SwitchParams::dscp_map, "dscp_map", "0:0, 8:1, 16:2, 26:3, 32:4, 40:5, 48:6, 56:7",
             "DSCP to priority (trust DSCP): RoCE data DSCP 26 to 3, CNP DSCP 48 to 6 (NVIDIA mlnx_qos and "
             "ConnectX cnp_dscp / cnp_802p_prio defaults), class selectors elsewhere; unlisted DSCPs go to 0",
             parses(parse_dscp_map), "dscp:prio, ...")
        .reserved("preset", "nvidia-roce-lossless or sonic-lossless: real gear's QoS as defaults (see docs/model.md)")
        .sub(&SwitchParams::admission, "admission", BufferParams::schema())
        .sub(&SwitchParams::pfc, "pfc", PfcParams::schema())
        .sub(&SwitchParams::ecn, "ecn", EcnParams::schema())
        .sub(&SwitchParams::ets, "ets", EtsParams::schema());
    return sc;
  }();
  return s;
}

std::array<uint8_t, 64> parse_dscp_map(const std::string& s) {
  std::array<uint8_t, 64> m{};
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    if (item.find_first_not_of(" \t") == std::string::npos) {
      continue;
    }
    if (colon == std::string::npos) {
      throw UnitError{"bad DSCP map entry '" + item + "' (expected dscp:priority)"};
    }
    int dscp = -1, prio = -1;
    try {
      dscp = std::stoi(item.substr(0, colon));
      prio = std::stoi(item.substr(colon + 1));
    } catch (...) {
      throw UnitError{"bad DSCP map entry '" + item + "' (expected dscp:priority)"};
    }
    if (dscp < 0 || dscp > 63 || prio < 0 || prio > 7) {
      throw UnitError{"bad DSCP map entry '" + item + "' (DSCP 0..63, priority 0..7)"};
    }
    m[static_cast<size_t>(dscp)] = static_cast<uint8_t>(prio);
  }
  return m;
}

Bytes port_set_aside(const SwitchParams& p, Bytes headroom) {
  return p.admission.reserved * 8 + headroom * static_cast<int64_t>(p.pfc.priorities.size());
}

const char* to_string(DropReason r) {
  switch (r) {
    case DropReason::kSharedLimit:
      return "shared_limit";
    case DropReason::kHeadroomOverflow:
      return "headroom_overflow";
    case DropReason::kBufferFull:
      return "buffer_full";
    case DropReason::kLinkDown:
      return "link_down";
    case DropReason::kNoRoute:
      return "no_route";
    case DropReason::kWatchdog:
      return "watchdog";
  }
  return "?";
}

Switch::Switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p, Bytes max_frame,
               bool telemetry, std::unique_ptr<EcnMarker> marker)
    : Node(sim, pool, std::move(name), NodeKind::kSwitch),
      params_(p),
      marker_(std::move(marker)),
      max_frame_(wire::on_wire(static_cast<int>(max_frame.count()))),
      lossless_(p.pfc.lossless()),
      telemetry_(telemetry),
      latency_(p.latency),
      sched_(make_scheduler(p.ets, static_cast<int32_t>(max_frame_))),
      dscp_to_prio_(parse_dscp_map(p.dscp_map)),
      rng_(sim.rng("switch." + name_)) {
  pause_ = &pause_states_;
}

uint16_t Switch::add_port(const LinkEnd& link) {
  ports_.emplace_back();
  busy_until_.emplace_back();
  ports_.back().link = link;
  ports_.back().tx = TxLink::of(link);
  upward_.push_back(0);
  const EcnMarker* ecn = marker_.get();
  if (!marker_) {
    auto shared = std::find_if(markers_.begin(), markers_.end(), [&](const auto& m) { return m.first == link.rate; });
    if (shared == markers_.end()) {
      markers_.emplace_back(link.rate, make_ecn_marker(params_.ecn.for_rate(link.rate)));
      shared = markers_.end() - 1;
    }
    ecn = shared->second.get();
  }
  ports_.back().ecn = ecn;
  if (ecn) {
    ports_.back().ecn_silent = static_cast<int32_t>(std::min<int64_t>(ecn->silent_up_to().count(), INT32_MAX));
  }
  pause_states_.emplace_back();
  return static_cast<uint16_t>(ports_.size() - 1);
}

void Switch::set_link(uint16_t port, const LinkEnd& link) {
  ports_[port].link = link;
  ports_[port].tx = TxLink::of(link);
}

void Switch::finalize(const std::string& scenario_file) {
  scenario_file_ = scenario_file;
  if (params_.pfc.watchdog.enabled && lossless_) {
    wd_ = std::make_unique<PfcWatchdog>(params_.pfc.watchdog, lossless_, ports_.size());
    sim_.at(params_.pfc.watchdog.poll, this, kEvWatchdog);
  }
  build_stages();
  flow_control().finalize(port_links(), name_, scenario_file);
  ready();
}

std::vector<LinkEnd> Switch::port_links() const {
  std::vector<LinkEnd> links;
  for (const Port& p : ports_) {
    links.push_back(p.link);
  }
  return links;
}

void Switch::build_stages() {
  const std::vector<LinkEnd> links = port_links();
  stages_ = make_egress_stages(EgressStageContext{*this, sim_, pool_, params_, links, upward_, dscp_to_prio_,
                                                  telemetry_, faults_ != nullptr, wd_.get(), scenario_file_});
  on_route_.clear();
  on_leave_.clear();
  stage_hooks_ = 0;
  for (const auto& s : stages_) {
    const uint8_t h = s->hooks();
    stage_hooks_ |= h;
    if (h & EgressStage::kRoute) {
      on_route_.push_back(s.get());
    }
    if (h & EgressStage::kLeave) {
      on_leave_.push_back(s.get());
    }
  }
  sole_leave_ = on_leave_.size() == 1 ? on_leave_.front() : nullptr;
}

void Switch::set_routes(std::shared_ptr<const RouteTable> table, const Ecmp& ecmp) {
  routes_ = std::move(table);
  route_set_ = routes_->set_of.data();
  set_offset_ = routes_->set_offset.data();
  set_ports_ = routes_->set_ports.data();
  ecmp_ = ecmp;
  if (balancer_) {
    balancer_->sets_changed(routes_->set_offset.size() - 1);
  }
}

void Switch::set_balancer(std::unique_ptr<LoadBalancer> balancer) {
  balancer_ = std::move(balancer);
  if (balancer_ && routes_) {
    balancer_->sets_changed(routes_->set_offset.size() - 1);
  }
}

uint16_t Switch::balanced_route(const Packet& p) {
  const uint16_t set = route_set_[p.dst];
  const uint32_t b = set_offset_[set];
  const uint32_t n = set_offset_[set + 1u] - b;
  if (n == 1) {  // (also an unreachable destination's set, whose one "port" is kNoRoute)
    return set_ports_[b];
  }
  const Load load{ports_, busy_until_, *this};
  return set_ports_[b + balancer_->pick(p, set, set_ports_ + b, n, sim_.now(), load)];
}

void Switch::schedule_routes(std::shared_ptr<const RouteTable> table, Time at) {
  scheduled_routes_.push_back(std::move(table));
  sim_.at(at, this, kEvRoutes, scheduled_routes_.size() - 1);
}

void Switch::install_routes(uint64_t index) {
  if (index >= routes_installed_) {
    set_routes(scheduled_routes_[index], ecmp_);
    routes_installed_ = index + 1;
  }
}

uint16_t RouteTable::port(const Packet& p, const Ecmp& ecmp) const {
  const uint16_t set = set_of[p.dst];
  return set_ports[set_offset[set] + ecmp.pick(p, set_offset[set + 1u] - set_offset[set])];
}

PortPrioCounters Switch::counters(uint16_t port, int prio) const {
  const Port& pt = ports_[port];
  const EgressClass& e = pt.out[prio];
  PortPrioCounters c;
  c.tx_bytes = e.tx_bytes;
  c.tx_packets = e.tx_packets;
  c.max_queue = e.max_queue;
  c.ecn_marked = e.ecn_marked;
  std::copy(pt.fault_drops[prio].begin(), pt.fault_drops[prio].end(), c.drops.begin() + kAdmissionDrops);
  flow_control().count(port, prio, c);
  return c;
}

int64_t Switch::drops_total() const {
  int64_t d = 0;
  for (uint16_t port = 0; port < ports_.size(); ++port) {
    for (int c = 0; c < 8; ++c) {
      for (int64_t x : counters(port, c).drops) {
        d += x;
      }
    }
  }
  return d;
}

void Switch::poll_watchdog() {
  for (const auto& c : wd_->poll(sim_.now(), pause_states_)) {
    storm_changed(c.port, c.prio, c.storm);
  }
  if (sim_.held() > 0) {
    sim_.after(wd_->interval(), this, kEvWatchdog);
  }
}

}  // namespace rocesim
