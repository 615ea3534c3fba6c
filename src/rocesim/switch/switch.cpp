#include "rocesim/switch/switch.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace rocesim {

const Schema<DeadlockParams>& DeadlockParams::schema() {
  static const Schema<DeadlockParams> s = [] {
    Schema<DeadlockParams> sc("deadlock", "PFC deadlock detection during the run");
    sc.add(&DeadlockParams::detect_after, "detect_after", "0ns",
           "report a cycle of lossless queues, each paused by the next, once none has sent for this long (0: off; "
           "checked every detect_after / 4; at least 4ns, so that the check's period moves the clock)",
           [](const Time& v) -> std::optional<std::string> {
             if (v != Time() && v < Time::ns(4)) {
               return "must be 0 (off) or at least 4ns (it is checked every detect_after / 4)";
             }
             return v < Time() ? std::optional<std::string>("must not be negative") : std::nullopt;
           })
        .add(&DeadlockParams::action, "action", "stop", "on a deadlock: stop the run there, or continue",
             one_of({"stop", "continue"}));
    return sc;
  }();
  return s;
}

const Schema<PfcParams>& PfcParams::schema() {
  static const Schema<PfcParams> s = [] {
    Schema<PfcParams> sc("pfc", "priority flow control (IEEE 802.1Qbb)");
    sc.add(&PfcParams::priorities, "priorities", "[3]", "lossless priorities (RoCE convention: 3)", {}, "priority")
        .add(
            &PfcParams::headroom, "headroom", "auto",
            "headroom per ingress port and lossless priority: auto (from rate, delay, frame size), hpcc-ns3 (3 x "
            "rate x delay, the HPCC simulator's third.cc) or a size",
            [](const std::string& v) -> std::optional<std::string> {
              if (v == "auto" || v == "hpcc-ns3") {
                return std::nullopt;
              }
              try {
                parse_bytes(v);
              } catch (const UnitError& e) {
                return "must be 'auto', 'hpcc-ns3' or a size: " + e.message;
              }
              return std::nullopt;
            },
            "auto | size")
        .add(&PfcParams::xon_offset, "xon_offset", "3KB",
             "resume (XON) once shared use is this far below the pause threshold (HPCC simulator: 3 KB)")
        .add(&PfcParams::quanta, "quanta", "65535", "pause time carried by an XOFF frame, in 512-bit-time quanta",
             in_range<int64_t>(1, 65535), "quanta")
        .add(&PfcParams::response_time, "response_time", "0ns",
             "time a paused port keeps sending after the PFC frame arrived (on top of the frame on the wire)")
        .sub(&PfcParams::deadlock, "deadlock", DeadlockParams::schema())
        .sub(&PfcParams::watchdog, "watchdog", WatchdogParams::schema())
        .sub(&PfcParams::tagger, "tagger", TaggerParams::schema())
        .validate([](const PfcParams& p) -> std::optional<std::pair<std::string, std::string>> {
          for (int64_t c : p.priorities) {
            if (c < 0 || c > 7) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is not in 0..7");
            }
            if (std::count(p.priorities.begin(), p.priorities.end(), c) > 1) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is listed twice");
            }
          }
          const auto lossless = [&](int64_t c) {
            return std::find(p.priorities.begin(), p.priorities.end(), c) != p.priorities.end();
          };
          for (int64_t c : p.tagger.priorities) {
            if (!lossless(c)) {
              return std::make_pair("tagger.priorities",
                                    "priority " + std::to_string(c) + " is not lossless (pfc.priorities)");
            }
          }
          if (!p.tagger.priorities.empty() && lossless(p.tagger.lossy)) {
            return std::make_pair("tagger.lossy", "priority " + std::to_string(p.tagger.lossy) +
                                                      " is lossless (pfc.priorities): packets past the ladder must "
                                                      "go to a lossy one");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

const Schema<SwitchParams>& SwitchParams::schema() {
  static const Schema<SwitchParams> s = [] {
    Schema<SwitchParams> sc("switch", "every switch of the fabric");
    sc.add(&SwitchParams::buffer, "buffer", "16MB", "packet buffer shared by all ports", at_least(Bytes(1)))
        .add(&SwitchParams::latency, "latency", "0ns",
             "forwarding pipeline latency before a packet joins its egress queue")
        .add(
            &SwitchParams::dscp_map, "dscp_map", "0:0, 8:1, 16:2, 26:3, 32:4, 40:5, 48:6, 56:7",
            "DSCP to priority (trust DSCP): RoCE data DSCP 26 to 3, CNP DSCP 48 to 6 (NVIDIA mlnx_qos and "
            "ConnectX cnp_dscp / cnp_802p_prio defaults), class selectors elsewhere; unlisted DSCPs go to 0",
            [](const std::string& v) -> std::optional<std::string> {
              try {
                parse_dscp_map(v);
              } catch (const UnitError& e) {
                return e.message;
              }
              return std::nullopt;
            },
            "dscp:prio, ...")
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

Bytes pfc_headroom(Rate rate, Time delay, Bytes max_frame, Time response_time) {
  const Bytes in_flight = rate.bytes_in(delay * 2 + response_time) + Bytes(1);  // round up
  return max_frame * 2 + Bytes(wire::on_wire(wire::kPfcFrame)) + in_flight;
}

Bytes port_headroom(const PfcParams& p, Rate rate, Time delay, Bytes max_frame) {
  if (p.headroom == "auto") {
    return pfc_headroom(rate, delay, max_frame, p.response_time);
  }
  if (p.headroom == "hpcc-ns3") {  // its integer arithmetic: rate (b/s) x delay (ns) / 8 / 10^9, times 3
    return Bytes(rate.bps() * (delay.ps() / 1000) / 8 / 1000000000 * 3);
  }
  return parse_bytes(p.headroom);
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
               bool telemetry)
    : Node(sim, pool, std::move(name), NodeKind::kSwitch),
      mmu_(p.buffer.count(), p.admission.reserved.count(), p.pfc.xon_offset.count(),
           wire::on_wire(static_cast<int>(max_frame.count())), make_buffer_admission(p.admission)),
      max_frame_(wire::on_wire(static_cast<int>(max_frame.count()))),
      latency_(p.latency),
      sched_(make_scheduler(p.ets, static_cast<int32_t>(max_frame_))),
      ecn_at_dequeue_(p.ecn.at == "dequeue"),
      telemetry_(telemetry),
      dscp_to_prio_(parse_dscp_map(p.dscp_map)),
      rng_(sim.rng("switch." + name_)),
      params_(p) {
  for (int64_t c : p.pfc.priorities) {
    lossless_ |= static_cast<uint8_t>(1u << c);
  }
  pause_ = &pause_states_;
}

uint16_t Switch::add_port(const LinkEnd& link) {
  ports_.emplace_back();
  busy_until_.emplace_back();
  ports_.back().link = link;
  ports_.back().tx = TxLink::of(link);
  upward_.push_back(0);
  auto shared = std::find_if(markers_.begin(), markers_.end(), [&](const auto& m) { return m.first == link.rate; });
  if (shared == markers_.end()) {
    markers_.emplace_back(link.rate, make_ecn_marker(params_.ecn.for_rate(link.rate)));
    shared = markers_.end() - 1;
  }
  ports_.back().ecn = shared->second.get();
  if (ports_.back().ecn) {
    ports_.back().ecn_silent = ports_.back().ecn->silent_up_to().count();
  }
  pause_states_.emplace_back();
  return static_cast<uint16_t>(ports_.size() - 1);
}

void Switch::set_link(uint16_t port, const LinkEnd& link) {
  ports_[port].link = link;
  ports_[port].tx = TxLink::of(link);
}

void Switch::finalize(const std::string& scenario_file) {
  int64_t aside = 0;
  const Bytes frame(max_frame_ - wire::kPreambleIfg);
  for (size_t i = 0; i < ports_.size(); ++i) {
    Port& port = ports_[i];
    port.headroom = port_headroom(params_.pfc, port.link.rate, port.link.delay, frame).count();
    const auto scale = static_cast<float>(params_.admission.alpha_for(port.link.rate) / params_.admission.alpha);
    for (auto& g : port.in) {
      g.mmu.limit_scale = scale;
    }
    aside += port_set_aside(params_, Bytes(port.headroom)).count();
    const Bytes need = pfc_headroom(port.link.rate, port.link.delay, frame, params_.pfc.response_time);
    if (lossless_ && params_.pfc.headroom != "auto" && port.link.peer && Bytes(port.headroom) < need) {
      if (short_headroom_.ports++ == 0 || need > short_headroom_.need) {
        short_headroom_.need = need;
        short_headroom_.example = static_cast<uint16_t>(i);
      }
    }
  }
  mmu_.set_shared_pool(params_.buffer.count() - aside);
  if (const int missing = tags_.build(params_.pfc.tagger, dscp_to_prio_); missing >= 0) {
    throw InputError(
        scenario_file, 0, "switch.pfc.tagger.priorities",
        "Tagger moves packets to priority " + std::to_string(missing) + ", which no DSCP of switch.dscp_map maps to");
  }
  if (params_.pfc.watchdog.enabled && lossless_) {
    wd_ = std::make_unique<PfcWatchdog>(params_.pfc.watchdog, lossless_, ports_.size());
    sim_.at(params_.pfc.watchdog.poll, this, kEvWatchdog);
  }
  if (mmu_.shared_pool() <= 0) {
    throw InputError(scenario_file, 0, "switch.buffer",
                     to_string(params_.buffer) + " is too small for switch '" + name_ + "': reserved space and PFC " +
                         "headroom (" + to_string(Bytes(aside)) + ") leave no shared pool");
  }
}

void Switch::set_routes(std::shared_ptr<const RouteTable> table, const Ecmp& ecmp) {
  routes_ = std::move(table);
  route_set_ = routes_->set_of.data();
  set_offset_ = routes_->set_offset.data();
  set_ports_ = routes_->set_ports.data();
  ecmp_ = ecmp;
}

void Switch::schedule_routes(std::shared_ptr<const RouteTable> table, Time at) {
  scheduled_routes_.push_back(std::move(table));
  sim_.at(at, this, kEvRoutes, scheduled_routes_.size() - 1);
}

uint16_t RouteTable::port(const Packet& p, const Ecmp& ecmp) const {
  const uint16_t set = set_of[p.dst];
  return set_ports[set_offset[set] + ecmp.pick(p, set_offset[set + 1u] - set_offset[set])];
}

uint16_t Switch::route(const Packet& p) const {
  const uint16_t set = route_set_[p.dst];
  const uint32_t b = set_offset_[set];
  const uint32_t n = set_offset_[set + 1u] - b;
  // Hashed also when the set has one port (it picks index 0 then): whether it has one depends on the packet's
  // direction, so a branch on it mispredicted on one switch hop in three or four (cachegrind's branch
  // simulation, ft16).
  return set_ports_[b + ecmp_.pick(p, n)];
}

PortPrioCounters Switch::counters(uint16_t port, int prio) const {
  const Port& pt = ports_[port];
  const EgressClass& e = pt.out[prio];
  const IngressClass& i = pt.in[prio];
  PortPrioCounters c;
  c.tx_bytes = e.tx_bytes;
  c.tx_packets = e.tx_packets;
  c.rx_bytes = i.rx_bytes;
  c.max_queue = e.max_queue;
  c.ecn_marked = e.ecn_marked;
  std::copy(i.drops.begin(), i.drops.end(), c.drops.begin());
  std::copy(pt.pfc[prio].fault_drops.begin(), pt.pfc[prio].fault_drops.end(), c.drops.begin() + kAdmissionDrops);
  c.xoff_sent = pt.pfc[prio].xoff_sent;
  c.xon_sent = pt.pfc[prio].xon_sent;
  c.max_headroom = pt.pfc[prio].max_headroom;
  if (credits_) {
    c.credit_wait = credit_tx_[port].waited_until(prio, sim_.now());
  }
  return c;
}

int64_t Switch::drops_total() const {
  int64_t d = 0;
  for (const auto& port : ports_) {
    for (int c = 0; c < 8; ++c) {
      for (int64_t x : port.in[c].drops) {
        d += x;
      }
      for (int64_t x : port.pfc[c].fault_drops) {
        d += x;
      }
    }
  }
  return d;
}

// The prefetches are written here, not in a helper: GCC treats a function that only reads memory and prefetches
// as pure, and drops a call to it whose result is unused.
void Switch::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvArrive) {
    // The ingress group, the egress port's first line and the class that receiving the packet touches. If the
    // port is idle, sending also needs the scheduler's line: loaded only then (loading what sending needs for
    // every arrival measured 2-4 % slower on ft16 and ls-websearch; a busy port does not need it).
    const Packet& p = *reinterpret_cast<const Packet*>(arg);
    if (p.kind == PacketKind::kPfc || p.kind == PacketKind::kCredit) {
      return;
    }
    const int prio = dscp_to_prio_[p.dscp & 63];
    const uint16_t o = route(p);
    if (faults_ && o >= ports_.size()) [[unlikely]] {  // no route: only routes computed after a failure have none
      return;
    }
    const Port& out = ports_[o];
    __builtin_prefetch(&ports_[p.in_port].in[prio]);
    __builtin_prefetch(&out);
    __builtin_prefetch(&out.out[prio]);
    if (busy_until_[o] <= sim_.now()) {
      __builtin_prefetch(&out.sched);
    }
  } else if (kind == kEvTxDone) {
    const uint16_t o = txdone_port(arg);
    const Port& port = ports_[o];
    __builtin_prefetch(&port);
    __builtin_prefetch(&port.sched);
    // The packet likely to leave was loaded by the queue a few events ago: the ingress group it will release
    // (last touched when it arrived, a queueing delay ago).
    // (A stale hint may name another switch's port: check the range.)
    const Packet* p = txdone_hint(arg);
    if (p && p->in_port < ports_.size()) {
      __builtin_prefetch(&ports_[p->in_port].in[p->priority & 7]);
    }
  }
}

void Switch::receive(Packet* p) {
  if (p->kind == PacketKind::kPfc) {
    const uint16_t port = p->in_port;
    const uint8_t resumed = apply_pfc(pause_states_[port], port, *p, ports_[port].link.rate, params_.pfc.response_time);
    ports_[port].pause_armed = pause_states_[port].armed;
    pool_.release(p);
    if (resumed) {
      try_send(port);
    }
    return;
  }
  if (credits_) [[unlikely]] {
    if (p->kind == PacketKind::kCredit) {
      on_credit(p);
      return;
    }
  } else {
    p->priority = dscp_to_prio_[p->dscp & 63];
  }
  ++p->hops;
  ports_[p->in_port].in[p->priority].rx_bytes += p->frame;
  if (!admit(p)) {
    return;
  }
  if (latency_ > Time()) {
    sim_.after(latency_, this, kEvForward, reinterpret_cast<uint64_t>(p));
  } else {
    enqueue(p);
  }
}

bool Switch::admit(Packet* p) {
  Port& in = ports_[p->in_port];
  const int pg = p->priority;
  if (credits_) [[unlikely]] {  // the sender had credits for it: it fits, else the sender broke the protocol
    if (!credit_rx_[p->in_port].take(pg, p->frame)) {
      drop(p, DropReason::kBufferFull);
      return false;
    }
    return true;
  }
  IngressClass& g = in.in[pg];
  const Mmu::Admission a = mmu_.admit(g.mmu, p->frame, lossless_ & (1u << pg), in.headroom);
  if (!a.admitted) [[unlikely]] {
    drop(p, a.drop);
    return false;
  }
  p->charge = a.charge;
  if (a.charge == Mmu::kHeadroom) {
    in.pfc[pg].max_headroom = std::max(in.pfc[pg].max_headroom, g.mmu.hdrm_used);
  }
  if (a.xoff) {
    in.xoff |= static_cast<uint8_t>(1u << pg);
    in.pfc_pending |= static_cast<uint8_t>(1u << pg);
    try_send(p->in_port);
  }
  return true;
}

void Switch::release(Packet* p) {
  Port& in = ports_[p->in_port];
  const int pg = p->priority;
  if (credits_) [[unlikely]] {
    if (credit_rx_[p->in_port].release(pg, p->frame)) {
      in.pfc_pending |= static_cast<uint8_t>(1u << pg);
      try_send(p->in_port);
    }
    return;
  }
  if (mmu_.release(in.in[pg].mmu, p->frame, static_cast<Mmu::Charge>(p->charge))) {
    in.xoff &= static_cast<uint8_t>(~(1u << pg));
    in.pfc_pending |= static_cast<uint8_t>(1u << pg);
    try_send(p->in_port);
  }
}

void Switch::enqueue(Packet* p) {
  const uint16_t out = route(*p);
  int c = p->priority;
  if (faults_ || storms_dropping_ || tags_.active) [[unlikely]] {
    c = tags_.active ? tag(p, out) : c;
    if (const auto why = refused(out, c)) {
      drop_admitted(p, *why);
      return;
    }
  }
  Port& port = ports_[out];
  EgressClass& q = port.out[c];
  // InfiniBand (annex A10.2.1): a port waiting for credits is a victim of congestion downstream, not its root,
  // and does not mark.
  if (!ecn_at_dequeue_ && !(credits_ && (credit_tx_[out].waiting >> c & 1u))) {
    maybe_mark(port, q, p);
  }
  p->next = nullptr;
  if (q.tail) {
    q.tail->next = p;
  } else {
    q.head = p;
    port.view.head_bytes[c] = p->frame;
    port.view.nonempty |= static_cast<uint8_t>(1u << c);
  }
  q.tail = p;
  ++q.size;
  q.qbytes += p->frame;
  if (telemetry_) {
    port.q_total += p->frame;
  }
  q.max_queue = std::max(q.max_queue, q.qbytes);
  try_send(out);
}

std::optional<DropReason> Switch::refused(uint16_t out, int prio) {
  if (out == RouteTable::kNoRoute) {
    return DropReason::kNoRoute;
  }
  if (faults_ && (*faults_)[out].down) {
    return DropReason::kLinkDown;
  }
  if (wd_ && wd_->drops(out, prio)) {
    wd_->count_drop(out, prio);
    return DropReason::kWatchdog;
  }
  return std::nullopt;
}

int Switch::tag(Packet* p, uint16_t out) {
  const int c = p->priority;
  if (out >= ports_.size() || !upward_[out] || !upward_[p->in_port] || tags_.next[c] == c) {
    return c;
  }
  const int to = tags_.next[c];
  p->dscp = tags_.dscp[to];
  return to;
}

void Switch::poll_watchdog() {
  for (const auto& c : wd_->poll(sim_.now(), pause_states_)) {
    storm_changed(c.port, c.prio, c.storm);
  }
  if (sim_.held() > 0) {
    sim_.after(wd_->interval(), this, kEvWatchdog);
  }
}

// Storm mode: `drop` empties the queue now (and refused() drops what is routed to it), `forward` sends as if
// the peer's pauses had not come; leaving it, the queue obeys pauses again.
void Switch::storm_changed(uint16_t port, int prio, bool storm) {
  PauseState& ps = pause_states_[port];
  if (wd_->action() == PfcWatchdog::Action::kForward) {
    ps.ignored =
        storm ? static_cast<uint8_t>(ps.ignored | 1u << prio) : static_cast<uint8_t>(ps.ignored & ~(1u << prio));
    try_send(port);
  } else if (wd_->action() == PfcWatchdog::Action::kDrop) {
    storms_dropping_ += storm ? 1 : -1;
    if (storm) {
      wd_->count_drops(port, prio, flush(port, prio, DropReason::kWatchdog));
    }
  }
}

void Switch::drop(Packet* p, DropReason r) {
  const int i = static_cast<int>(r);
  ++(i < kAdmissionDrops ? ports_[p->in_port].in[p->priority].drops[i]
                         : ports_[p->in_port].pfc[p->priority].fault_drops[i - kAdmissionDrops]);
  pool_.release(p);
}

void Switch::drop_admitted(Packet* p, DropReason r) {
  release(p);
  drop(p, r);
}

// A port whose link fails loses what it queued (the frames can no longer leave) and forgets the pause its peer
// asked for; one whose link comes back tells the peer which priorities are still paused.
void Switch::link_changed(uint16_t port, bool up) {
  Port& pt = ports_[port];
  pt.pause_armed = pause_states_[port].armed;
  if (up) {
    pt.pfc_pending = pt.xoff;
    try_send(port);
    return;
  }
  pt.pfc_pending = 0;
  for (int c = 0; c < 8; ++c) {
    flush(port, c, DropReason::kLinkDown);
  }
}

int64_t Switch::flush(uint16_t port, int c, DropReason r) {
  Port& pt = ports_[port];
  EgressClass& q = pt.out[c];
  int64_t n = 0;
  while (Packet* p = q.head) {
    q.head = p->next;
    q.qbytes -= p->frame;
    if (telemetry_) {
      pt.q_total -= p->frame;
    }
    drop_admitted(p, r);
    ++n;
  }
  q.tail = nullptr;
  q.size = 0;
  pt.view.head_bytes[c] = 0;
  pt.view.nonempty &= static_cast<uint8_t>(~(1u << c));
  pt.stale &= static_cast<uint8_t>(~(1u << c));
  return n;
}

// Frames lost on a dead link: data counts as dropped at the ingress class it came in on (arriving) or was
// admitted at (leaving); PFC frames are the switch's own and count nowhere.
void Switch::lost_to_link(Packet* p, uint16_t port, bool at_egress) {
  if (p->kind == PacketKind::kPfc || p->kind == PacketKind::kCredit) {
    pool_.release(p);
    return;
  }
  if (!at_egress) {  // not yet classified here; in_port is already the port it arrived on
    p->priority = dscp_to_prio_[p->dscp & 63];
  }
  drop(p, DropReason::kLinkDown);
}

void Switch::wake_when_free(uint16_t out, int served) {
  Port& port = ports_[out];
  if ((port.view.nonempty || port.pfc_pending) && !port.txdone_pending) {
    port.txdone_pending = true;
    sim_.at(busy_until_[out], this, kEvTxDone, wake_arg(out, served));
  }
}

// The next frame out of a free port: a pending PFC frame first (MAC control frames go ahead of data and are not
// subject to pause), else the class the scheduler picks among those not paused.
void Switch::send_next(uint16_t out) {
  Port& port = ports_[out];
  if (port.pfc_pending) {
    send_pfc(out);
    return;
  }
  for (uint8_t m = port.stale; m; m &= static_cast<uint8_t>(m - 1)) {
    const int s = __builtin_ctz(m);
    port.view.head_bytes[s] = port.out[s].head->frame;
  }
  port.stale = 0;
  port.view.blocked = port.pause_armed ? pause_states_[out].paused_mask(sim_.now()) : 0;
  if (credits_) [[unlikely]] {
    const uint8_t held = credit_blocked(out);
    credit_tx_[out].hold(held, sim_.now());
    port.view.blocked |= held;
  }
  const int c = sched_->pick(port.view, port.sched);
  if (c < 0) {
    return;
  }
  EgressClass& q = port.out[c];
  Packet* p = dequeue(port, c);
  if (telemetry_) {
    stamp_telemetry(port, p);
  }
  if (ecn_at_dequeue_) {
    maybe_mark(port, q, p);
  }
  release(p);
  if (credits_) [[unlikely]] {
    credit_tx_[out].on_sent(c, p->frame);
  }
  q.tx_bytes += p->frame;
  ++q.tx_packets;
  busy_until_[out] = transmit(out, port.tx, port.tx.tx_time(p->wire_bytes(), port.link), p);
  wake_when_free(out, c);
}

Packet* Switch::dequeue(Port& port, int c) {
  EgressClass& q = port.out[c];
  Packet* p = q.head;
  q.head = p->next;
  --q.size;
  if (!q.head) {
    q.tail = nullptr;
    port.view.head_bytes[c] = 0;
    port.view.nonempty &= static_cast<uint8_t>(~(1u << c));
  } else {
    port.stale |= static_cast<uint8_t>(1u << c);
  }
  q.qbytes -= p->frame;
  if (telemetry_) {
    port.q_total -= p->frame;
  }
  return p;
}

// HPCC's in-band telemetry (Li et al., SIGCOMM 2019): each hop a data packet leaves appends the
// port's cumulative bytes sent, the time, its queue length and its rate.
void Switch::stamp_telemetry(Port& port, Packet* p) {
  port.tx_total += p->frame;
  if (p->kind != PacketKind::kData || p->int_hops() >= kMaxIntHops) {
    return;
  }
  PacketExt& x = pool_.ext(p);
  IntHop& h = x.telemetry[x.int_hops++];
  h.tx_bytes = static_cast<uint64_t>(port.tx_total);
  h.ts = sim_.now();
  h.qlen = static_cast<uint32_t>(port.q_total);
  h.rate_mbps = static_cast<uint32_t>(port.link.rate.bps() / 1000'000);
}

// One PFC frame (IEEE 802.1Qbb) for every priority whose state changed: XOFF with the configured quanta, or XON
// (quanta 0). While a priority stays paused its XOFF is refreshed at half the pause's lifetime.
void Switch::send_pfc(uint16_t out) {
  if (credits_) {
    send_credit(out);
    return;
  }
  Port& port = ports_[out];
  if (faults_ && (*faults_)[out].down) {  // nothing reaches the peer; the link's return re-signals (link_changed)
    port.pfc_pending = 0;
    return;
  }
  Packet* f = pool_.acquire(PacketKind::kPfc);
  f->frame = wire::kPfcFrame;
  PacketExt& fx = pool_.ext(f);
  fx.pfc_enable = port.pfc_pending;
  for (int c = 0; c < 8; ++c) {
    if (!(port.pfc_pending & (1u << c))) {
      continue;
    }
    if (port.xoff & (1u << c)) {
      fx.pfc_quanta[c] = static_cast<uint16_t>(params_.pfc.quanta);
      ++port.pfc[c].xoff_sent;
      sim_.after(pause_time(static_cast<int>(params_.pfc.quanta), port.link.rate) / 2, this, kEvPfcRefresh,
                 PfcRefreshArg{++port.pfc[c].refresh_gen, out, static_cast<uint8_t>(c)}.encode());
    } else {
      ++port.pfc[c].xon_sent;
    }
  }
  ++(port.pfc_pending & port.xoff ? port.pause_frames : port.resume_frames);
  port.pfc_pending = 0;
  busy_until_[out] = transmit(out, port.tx, port.tx.tx_time(f->wire_bytes(), port.link), f);
  wake_when_free(out, -1);
}

void Switch::enable_credits(std::unique_ptr<EcnMarker> fecn) {
  credits_ = true;
  credit_tx_.resize(ports_.size());
  credit_rx_.resize(ports_.size());
  markers_.clear();
  for (Port& p : ports_) {
    p.ecn = fecn.get();
    p.ecn_silent = fecn->silent_up_to().count();
  }
  markers_.emplace_back(Rate(), std::move(fecn));
}

void Switch::set_credits(uint16_t port, const CreditConfig& rx, uint32_t peer_buffer_blocks) {
  credit_rx_[port].cfg = rx;
  credit_tx_[port].limit.fill(peer_buffer_blocks);
}

void Switch::set_peer_credits(uint16_t port, uint32_t peer_buffer_blocks) {
  credit_tx_[port].limit.fill(peer_buffer_blocks);
}

int64_t Switch::credit_overflows() const {
  int64_t n = 0;
  for (const CreditRx& r : credit_rx_) {
    n += r.overflows;
  }
  return n;
}

uint8_t Switch::credit_blocked(uint16_t out) const {
  const Port& port = ports_[out];
  uint8_t m = 0;
  for (uint8_t q = port.view.nonempty; q; q &= static_cast<uint8_t>(q - 1)) {
    const int c = __builtin_ctz(q);
    m |= static_cast<uint8_t>(!credit_tx_[out].fits(c, port.view.head_bytes[c]) << c);
  }
  return m;
}

// A flow control packet from the peer: its VL's new limit; the port may send again.
void Switch::on_credit(Packet* p) {
  const uint16_t port = p->in_port;
  const int vl = p->priority;
  const Packet* head = ports_[port].out[vl].head;
  credit_tx_[port].on_credit(vl, p->psn, head ? head->frame : 0, sim_.now());
  pool_.release(p);
  try_send(port);
}

// One flow control packet (IBTA vol 1, 7.9.4) for the lowest VL with credits to return; the others follow.
void Switch::send_credit(uint16_t out) {
  Port& port = ports_[out];
  const int vl = __builtin_ctz(port.pfc_pending);
  port.pfc_pending &= static_cast<uint8_t>(port.pfc_pending - 1);
  Packet* f = pool_.acquire(PacketKind::kCredit);
  f->frame = wire::kIbFlowControl;
  f->flags = Packet::kFlagIb;
  f->priority = static_cast<uint8_t>(vl);
  f->psn = credit_rx_[out].advertise(vl);
  busy_until_[out] = transmit(out, port.tx, port.tx.tx_time(f->wire_bytes(), port.link), f);
  wake_when_free(out, -1);
}

uint64_t Switch::wake_arg(uint16_t out, int served) const {
  const Port& port = ports_[out];
  const uint8_t ne = port.view.nonempty;
  if (!ne) {
    return txdone_arg(out);
  }
  return txdone_arg(out, port.out[served >= 0 && (ne & (1u << served)) ? served : __builtin_ctz(ne)].head);
}

void Switch::tx_done(uint16_t port) {
  ports_[port].txdone_pending = false;
  try_send(port);
}

void Switch::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kEvForward) {
    enqueue(reinterpret_cast<Packet*>(arg));
  } else if (kind == kEvRoutes) {
    if (arg >= routes_installed_) {
      set_routes(scheduled_routes_[arg], ecmp_);
      routes_installed_ = arg + 1;
    }
  } else if (kind == kEvWatchdog) {
    poll_watchdog();
  } else if (kind == kEvPfcRefresh) {
    const auto [gen, port, c] = PfcRefreshArg::decode(arg);
    // Only the latest XOFF's refresh counts; an XOFF sent since then has its own.
    if ((ports_[port].xoff & (1u << c)) && gen == ports_[port].pfc[c].refresh_gen) {
      ports_[port].pfc_pending |= static_cast<uint8_t>(1u << c);
      try_send(port);
    }
  }
}

}  // namespace rocesim
