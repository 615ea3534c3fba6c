#include "rocesim/analysis/trace.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "rocesim/analysis/results.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {

const Schema<TraceParams>& TraceParams::schema() {
  static const Schema<TraceParams> s = [] {
    Schema<TraceParams> sc("trace", "a timeline for Perfetto (ui.perfetto.dev), written to trace.json");
    sc.add(&TraceParams::nodes, "nodes", "",
           "nodes to trace: 'all', or NIC and switch names, comma-separated; empty: no trace", {}, "names")
        .add(&TraceParams::start, "start", "0ns", "first event", at_least(Time()))
        .add(&TraceParams::stop, "stop", "1000s", "no events after this time")
        .add(&TraceParams::interval, "interval", "1us", "how often queue depths and flow rates are read",
             at_least(Time::ns(1)))
        .add(&TraceParams::max_events, "max_events", "1000000",
             "stop recording at this many events (the trace says how many it left out)", at_least<int64_t>(1))
        .validate([](const TraceParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.stop <= p.start) {  // an empty window traces nothing: a mistake, as for capture
            return std::make_pair("stop", "must be after start");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

namespace {

// Trace-event timestamps are microseconds; six decimals keep every picosecond.
std::string us(Time t) { return fmt::format("{:.6f}", static_cast<double>(t.ps()) / 1e6); }

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

Trace::Trace(const TraceParams& p, Engine& engine, Network& net, const std::string& file)
    : p_(p), engine_(engine), net_(net), frames_(engine) {
  std::vector<Node*> all;
  for (const auto& n : net.nics()) {
    all.push_back(n.get());
  }
  for (const auto& s : net.switches()) {
    all.push_back(s.get());
  }
  std::set<Node*> chosen;
  if (p.nodes == "all") {
    chosen.insert(all.begin(), all.end());
  } else {
    std::stringstream ss(p.nodes);
    std::string name;
    while (std::getline(ss, name, ',')) {
      name = trim(name);
      if (name.empty()) {
        continue;
      }
      const auto it = std::find_if(all.begin(), all.end(), [&](Node* n) { return n->name() == name; });
      if (it == all.end()) {
        throw InputError(file, 0, "output.trace.nodes", "'" + name + "' is not a NIC or switch of the fabric");
      }
      chosen.insert(*it);
    }
  }
  std::vector<int> nic_of(net.nics().size(), -1);
  for (Node* n : all) {  // fabric order: NICs, then switches
    if (!chosen.count(n)) {
      continue;
    }
    traced_.push_back({n, {}, {}});
    if (n->is_switch()) {
      auto* sw = static_cast<Switch*>(n);
      traced_.back().last.assign(sw->num_ports() * 8, -1);
      for (uint16_t port = 0; port < sw->num_ports(); ++port) {
        taps_.push_back(std::make_unique<PortTap>(*this, *n, port, engine.partition_of(n->graph_id())));
      }
    } else {
      taps_.push_back(std::make_unique<PortTap>(*this, *n, 0, engine.partition_of(n->graph_id())));
    }
  }
  for (size_t i = 0; i < traced_.size(); ++i) {
    if (!traced_[i].node->is_switch()) {
      for (size_t h = 0; h < net.nics().size(); ++h) {
        if (net.nics()[h].get() == traced_[i].node) {
          nic_of[h] = static_cast<int>(i);
        }
      }
    }
  }
  for (uint32_t f = 0; f < net.setup_flows(); ++f) {
    if (const int t = nic_of[net.flow_path(f).sender]; t >= 0) {
      traced_[t].flows.push_back(f);
    }
  }
  for (Traced& t : traced_) {
    if (!t.node->is_switch()) {
      t.last.assign(t.flows.size(), -1);
    }
  }
  scanned_.assign(net.nics().size(), 0);
  record_at_.assign(net.setup_flows(), {kNone, kNone});
  for (const auto& t : taps_) {
    t->node.add_tap(t->port, t.get());
  }
  if (!traced_.empty()) {
    engine.watch(this, p.start);
  }
}

Trace::~Trace() {
  for (const auto& t : taps_) {
    t->node.remove_tap(t->port, t.get());
  }
}

void Trace::event(const std::string& e) {
  out_ += e;
  out_ += ",\n";
  ++events_;
}

void Trace::frame(size_t part, const Node& from, uint16_t port, Time start, const Packet& p) {
  // A CNP is an instant where a NIC sends it, not at each switch that forwards it; PFC frames go one hop.
  const bool cnp = p.kind == PacketKind::kCnp && !from.is_switch();
  if (!in_window(start) || (!cnp && p.kind != PacketKind::kPfc)) {
    return;
  }
  const uint32_t pid = from.graph_id() + 1;
  if (p.kind == PacketKind::kCnp) {
    frames_.add(part, fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":0,"ts":{},"name":"CNP","args":{{"flow":{}}}}})",
                                  pid, us(start), p.flow));
    return;
  }
  std::string prios;
  bool pause = false;
  for (int c = 0; c < 8; ++c) {
    if (p.ext && (p.ext->pfc_enable & (1u << c))) {
      prios += fmt::format("{}{}", prios.empty() ? "" : ",", c);
      pause = pause || p.ext->pfc_quanta[c] > 0;
    }
  }
  frames_.add(part, fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":0,"ts":{},"name":"PFC {}","args":{{"port":{},)"
                                R"("priorities":[{}]}}}})",
                                pid, us(start), pause ? "XOFF" : "XON", port, prios));
}

void Trace::collect() {
  frames_.drain([&](std::string&& e) {
    if (room()) {
      event(e);
    }
  });
}

Time Trace::look(Time now) {
  collect();
  sample(now);
  const Time next = now + p_.interval;
  return next <= p_.stop ? next : Time::max();
}

const FlowRecord* Trace::posted_record(uint32_t id) {
  if (record_at_[id].first == kNone) {
    for (size_t h = 0; h < net_.nics().size(); ++h) {
      const auto& recs = net_.nics()[h]->records();
      for (; scanned_[h] < recs.size(); ++scanned_[h]) {
        const uint32_t rid = recs[scanned_[h]].id;
        if (rid < record_at_.size()) {
          record_at_[rid] = {static_cast<uint32_t>(h), static_cast<uint32_t>(scanned_[h])};
        }
      }
    }
  }
  const auto [nic, index] = record_at_[id];
  return nic == kNone ? nullptr : &net_.nics()[nic]->records()[index];
}

// Counters are written when they change (Perfetto holds a counter's value until its next sample).
void Trace::sample(Time now) {
  const std::string ts = us(now);
  for (Traced& t : traced_) {
    const uint32_t pid = t.node->graph_id() + 1;
    if (t.node->is_switch()) {
      const auto* sw = static_cast<const Switch*>(t.node);
      for (uint16_t port = 0; port < sw->num_ports(); ++port) {
        for (int c = 0; c < 8; ++c) {
          const int64_t q = sw->queued_bytes(port, c);
          int64_t& last = t.last[port * 8u + c];
          if (q != last && (q > 0 || last > 0) && room()) {
            event(fmt::format(R"({{"ph":"C","pid":{},"ts":{},"name":"queue port {} p{}","args":{{"bytes":{}}}}})", pid,
                              ts, port, c, q));
            last = q;
          }
        }
      }
      continue;
    }
    for (size_t i = 0; i < t.flows.size(); ++i) {
      const FlowRecord* f = posted_record(t.flows[i]);
      const bool active = f != nullptr && !f->done && !f->failed;
      const auto at = net_.flow_path(t.flows[i]);
      const int64_t mbps = active ? net_.nic(at.sender).qp_rate(at.send_qpn).bps() / 1000000 : 0;
      if (mbps != t.last[i] && (active || t.last[i] > 0) && room()) {
        event(fmt::format(R"({{"ph":"C","pid":{},"ts":{},"name":"rate flow {}","args":{{"gbps":{:.3f}}}}})", pid, ts,
                          t.flows[i], static_cast<double>(mbps) / 1000.0));
        t.last[i] = mbps;
      }
    }
  }
}

std::string Trace::json() const {
  std::string s = "{\"traceEvents\": [\n";
  const std::vector<FlowRecord>& flows = net_.flows();
  for (const Traced& t : traced_) {
    const uint32_t pid = t.node->graph_id() + 1;
    s += fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":{}}}}},)", pid,
                     quoted(t.node->name() + (t.node->is_switch() ? " (switch)" : " (NIC)")));
    s += "\n";
    for (uint32_t id : t.flows) {
      const FlowRecord& f = flows[id];
      const Time end = f.done || f.failed ? f.end : engine_.now();
      if (f.spec.start > p_.stop || end < p_.start || end < f.spec.start) {
        continue;  // outside the window, or not started when the run ended
      }
      const std::string& dst = net_.nics()[f.spec.dst]->name();
      s += fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}}}},)", pid, id + 1,
                       quoted("flow " + std::to_string(id) + " to " + dst));
      s += "\n";
      s += fmt::format(
          R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":{},"args":{{"flow":{},"size_bytes":{},"status":"{}"{}}}}},)",
          pid, id + 1, us(f.spec.start), us(end - f.spec.start),
          quoted(std::string(to_string(f.spec.op)) + " " + std::to_string(f.spec.size.count()) + " B to " + dst), id,
          f.spec.size.count(),
          f.done     ? "ok"
          : f.failed ? "failed"
                     : "unfinished",
          f.done ? fmt::format(R"(,"slowdown":{:.4f})", slowdown(f.end - f.spec.start, f.ideal_fct)) : "");
      s += "\n";
    }
  }
  s += out_;
  s += fmt::format(R"({{"ph":"M","pid":0,"name":"process_name","args":{{"name":"rocesim"}}}})");
  s += fmt::format("\n], \"displayTimeUnit\": \"ns\", \"otherData\": {{\"events_left_out\": {}}}}}\n", dropped_);
  return s;
}

std::vector<std::string> Trace::notes() const {
  if (dropped_ == 0) {
    return {};
  }
  return {fmt::format("trace.json stopped at output.trace.max_events ({}): {} later events left out", p_.max_events,
                      dropped_)};
}

}  // namespace rocesim
