#include "rocesim/analysis/hpcc_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rocesim {

const Schema<HpccOutputParams>& HpccOutputParams::schema() {
  static const Schema<HpccOutputParams> s = [] {
    Schema<HpccOutputParams> sc("hpcc outputs", "files in the HPCC ns-3 simulator's formats");
    sc.add(&HpccOutputParams::fct, "fct", "", "fct.txt-style flow completion file name (empty: none)", {}, "file")
        .add(&HpccOutputParams::pfc, "pfc", "", "pfc.txt-style PFC event file name (empty: none)", {}, "file")
        .add(&HpccOutputParams::qlen, "qlen", "", "queue-length histogram file name (empty: none)", {}, "file")
        .add(&HpccOutputParams::qlen_start, "qlen_start", "0ns", "queue sampling starts", at_least(Time()))
        .add(&HpccOutputParams::qlen_end, "qlen_end", "1000s", "queue sampling ends")
        .add(&HpccOutputParams::qlen_interval, "qlen_interval", "1us",
             "queue sampling interval (the HPCC simulator samples every 100 ns)", at_least(Time::ns(1)))
        .validate([](const HpccOutputParams& p) -> std::optional<std::pair<std::string, std::string>> {
          // Equal is allowed: the HPCC simulator's own configs give QLEN_MON_START = QLEN_MON_END.
          if (p.qlen_end < p.qlen_start) {
            return std::make_pair("qlen_end", "must not be before qlen_start");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

HpccOutputs::HpccOutputs(const HpccOutputParams& p, Engine& engine, Network& net)
    : p_(p), engine_(engine), net_(net), pfc_lines_(engine) {
  if (!p.pfc.empty()) {
    for (const auto& s : net.switches()) {
      s->add_pfc_observer(this);
    }
    for (const auto& n : net.nics()) {
      n->add_pfc_observer(this);
    }
  }
  if (!p.qlen.empty()) {
    qlen_.resize(net.switches().size());
    for (size_t i = 0; i < qlen_.size(); ++i) {
      qlen_[i].resize(net.switches()[i]->num_ports());
    }
    engine.watch(this, p.qlen_start);
  }
}

HpccOutputs::~HpccOutputs() {
  for (const auto& s : net_.switches()) {
    s->remove_pfc_observer(this);
  }
  for (const auto& n : net_.nics()) {
    n->remove_pfc_observer(this);
  }
}

void HpccOutputs::on_pfc(const Node& node, uint16_t port, bool pause) {
  const size_t part = engine_.partition_of(node.graph_id());
  pfc_lines_.add(part, fmt::format("{} {} {} {} {}\n", engine_.sim(part).now().ps() / 1000, node.graph_id(),
                                   node.is_switch() ? 1 : 0, port + 1, pause ? 1 : 0));
}

void HpccOutputs::collect() {
  pfc_lines_.drain([&](std::string&& line) { pfc_ += line; });
}

Time HpccOutputs::look(Time now) {
  for (size_t i = 0; i < qlen_.size(); ++i) {
    const Switch& sw = *net_.switches()[i];
    for (uint16_t port = 0; port < sw.num_ports(); ++port) {
      int64_t bytes = 0;
      for (int c = 0; c < 8; ++c) {
        bytes += sw.queued_bytes(port, c);
      }
      auto& h = qlen_[i][port];
      const size_t kb = static_cast<size_t>(bytes / 1000);
      if (h.size() < kb + 1) {
        h.resize(kb + 1);
      }
      ++h[kb];
    }
  }
  qlen_last_ = now;
  const Time next = now + p_.qlen_interval;
  return next <= p_.qlen_end ? next : Time::max();
}

std::string HpccOutputs::qlen_txt() const {
  std::string out = fmt::format("time: {}\n", qlen_last_.ps() / 1000);
  for (size_t i = 0; i < qlen_.size(); ++i) {
    for (size_t port = 0; port < qlen_[i].size(); ++port) {
      out += fmt::format("{} {}", net_.switches()[i]->graph_id(), port + 1);
      for (uint32_t c : qlen_[i][port]) {
        out += fmt::format(" {}", c);
      }
      out += "\n";
    }
  }
  return out;
}

Time HpccOutputs::standalone_fct(const FlowRecord& f) const {
  const bool read = f.spec.op == RdmaOp::kRead;
  const auto hops = read ? net_.path(f.spec.dst, f.spec.src, f.sport) : net_.path(f.spec.src, f.spec.dst, f.sport);
  const int64_t mtu = f.spec.size.count() > 0 ? net_.mtu() : 1;
  Rate b = hops.front().first;
  Time rtt;
  for (const auto& [rate, delay] : hops) {
    b = std::min(b, rate);
    rtt += delay * 2 + rate.tx_time(Bytes(mtu));
  }
  const int64_t pkts = (f.spec.size.count() - 1) / mtu + 1;
  const int64_t header = wire::on_wire(wire::roce_frame(0, 0));  // headers, ICRC, FCS, preamble and gap per packet
  return rtt + b.tx_time(Bytes(f.spec.size.count() + pkts * header));
}

std::string HpccOutputs::fct_txt() const {
  std::vector<const FlowRecord*> done;
  for (const auto& f : net_.flows()) {
    if (f.done) {
      done.push_back(&f);
    }
  }
  std::stable_sort(done.begin(), done.end(), [](const FlowRecord* a, const FlowRecord* b) { return a->end < b->end; });
  std::string out;
  const auto& g = net_.graph();
  for (const FlowRecord* f : done) {
    out += fmt::format("{:08x} {:08x} {} {} {} {} {} {}\n", hpcc_ip(static_cast<uint32_t>(g.hosts[f->spec.src])),
                       hpcc_ip(static_cast<uint32_t>(g.hosts[f->spec.dst])), f->sport, f->spec.app_port,
                       f->spec.size.count(), f->spec.start.ps() / 1000, (f->end - f->spec.start).ps() / 1000,
                       standalone_fct(*f).ps() / 1000);
  }
  return out;
}

OutputFiles HpccOutputs::files(const OutputContext&) {
  OutputFiles out;
  if (!p_.fct.empty()) {
    out.emplace_back(p_.fct, fct_txt());
  }
  if (!p_.pfc.empty()) {
    out.emplace_back(p_.pfc, pfc_txt());
  }
  if (!p_.qlen.empty()) {
    out.emplace_back(p_.qlen, qlen_txt());
  }
  return out;
}

}  // namespace rocesim
