#include "rocesim/analysis/highlights.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rocesim/analysis/headlines.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {
namespace {

constexpr size_t kShown = 3;

nlohmann::json or_null(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

// The first `kShown` of `v` by `key`, largest first (ties: the order given, which is the network's).
template <typename T, typename K>
std::vector<T> top(std::vector<T> v, K key) {
  std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) > key(b); });
  v.resize(std::min(v.size(), kShown));
  return v;
}

}  // namespace

nlohmann::json fct_ns_json(const std::vector<const FlowRecord*>& flows, Time warmup) {
  std::vector<double> fct;
  for (const FlowRecord* f : flows) {
    if (measured(*f, warmup)) {
      fct.push_back(static_cast<double>((f->end - f->spec.start).ps()) / 1000.0);
    }
  }
  const double max = fct.empty() ? std::nan("") : *std::max_element(fct.begin(), fct.end());
  return {{"p50", or_null(percentile(fct, 0.5))}, {"p99", or_null(percentile(fct, 0.99))}, {"max", or_null(max)}};
}

nlohmann::json highlights_json(const Network& net, Time warmup, Time now) {
  nlohmann::json j;
  int64_t measured_flows = 0, unfinished = 0, warm = 0, delivered = 0, offered = 0, unfinished_delivered = 0,
          unfinished_size = 0;
  struct Receiver {
    uint32_t host = 0;
    int64_t bytes = 0, flows = 0;
    Time first = Time::max(), last;
  };
  std::vector<Receiver> rx(net.num_hosts());
  for (const FlowRecord& f : net.flows()) {
    measured_flows += measured(f, warmup);
    warm += f.spec.start < warmup;
    delivered += f.delivered;
    offered += f.spec.size.count();
    if (!f.done && !f.failed) {
      ++unfinished;
      unfinished_delivered += f.delivered;
      unfinished_size += f.spec.size.count();
    }
    // The payload's receiver: the responder, but the requester of an RDMA READ (IBTA vol 1, 9.4).
    const uint32_t receiver = f.spec.op == RdmaOp::kRead ? f.spec.src : f.spec.dst;
    Receiver& r = rx[receiver];
    r.host = receiver;
    r.bytes += f.delivered;
    ++r.flows;
    r.first = std::min(r.first, f.spec.start);
    r.last = std::max(r.last, f.done ? f.end : now);
  }
  j["coverage"] = {{"measured_flows", measured_flows},
                   {"unfinished_flows", unfinished},
                   {"unfinished_delivered_bytes", unfinished_delivered},
                   {"unfinished_size_bytes", unfinished_size},
                   {"warmup_ns", warmup.ps() / 1000},
                   {"warmup_flows", warm},
                   {"delivered_bytes", delivered},
                   {"offered_bytes", offered}};

  nlohmann::json receivers = nlohmann::json::array();
  for (const Receiver& r : top(rx, [](const Receiver& x) { return x.bytes; })) {
    if (r.bytes == 0) {
      continue;
    }
    const Time span = r.last - r.first;
    receivers.push_back({{"endpoint", r.host},
                         {"nic", net.nics()[r.host]->name()},
                         {"flows", r.flows},
                         {"delivered_bytes", r.bytes},
                         {"goodput_gbps", span > Time() ? static_cast<double>(r.bytes) * 8e3 / span.ps() : 0.0}});
  }
  j["receivers"] = receivers;

  struct Queue {
    std::string port, peer;
    int prio = 0;
    int64_t bytes = 0;
    Rate rate;
  };
  struct Paused {
    std::string port;
    int prio = 0;
    Time paused;
  };
  std::vector<Queue> queues;
  std::vector<Paused> paused;
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      const std::string name = sw->name() + ":" + std::to_string(p);
      for (int c = 0; c < 8; ++c) {
        if (const int64_t q = sw->counters(p, c).max_queue; q > 0) {
          queues.push_back({name, sw->link(p).peer ? sw->link(p).peer->name() : "", c, q, sw->link(p).rate});
        }
        if (const Time t = paused_for(sw->pause_state(p), c, now); t > Time()) {
          paused.push_back({name, c, t});
        }
      }
    }
  }
  for (const auto& n : net.nics()) {
    for (int c = 0; c < 8; ++c) {
      if (const Time t = paused_for(n->pause_state(), c, now); t > Time()) {
        paused.push_back({n->name(), c, t});
      }
    }
  }
  nlohmann::json deepest = nlohmann::json::array();
  for (const Queue& q : top(queues, [](const Queue& x) { return x.bytes; })) {
    deepest.push_back({{"port", q.port},
                       {"peer", q.peer},
                       {"priority", q.prio},
                       {"max_queue_bytes", q.bytes},
                       {"drain_ns", static_cast<double>(q.rate.tx_time(Bytes(q.bytes)).ps()) / 1000.0},
                       {"rate_gbps", q.rate.gbps_f()}});
  }
  j["deepest_queues"] = deepest;
  nlohmann::json most = nlohmann::json::array();
  for (const Paused& p : top(paused, [](const Paused& x) { return x.paused; })) {
    most.push_back({{"port", p.port}, {"priority", p.prio}, {"paused_ns", static_cast<double>(p.paused.ps()) / 1e3}});
  }
  j["most_paused"] = most;
  return j;
}

std::string highlights_table(const nlohmann::json& s) {
  std::string t;
  // FCTs answer flow workloads only; with others beside them, each flow workload's own.
  const bool all_fct = only_fct(s);
  const auto& f = s["fct_ns"];
  if (all_fct && !f["p50"].is_null()) {
    t += fmt::format("  FCT              p50 {}  p99 {}  max {}\n", time_text(f["p50"].get<double>()),
                     time_text(f["p99"].get<double>()), time_text(f["max"].get<double>()));
  }
  // With several workloads, each one's FCTs too: an incast's beside the background's.
  if (s.contains("workloads") && (s["workloads"].size() > 1 || !all_fct)) {
    for (size_t w = 0; w < s["workloads"].size(); ++w) {
      const auto& wl = s["workloads"][w];
      if (!wl.value("fct", true)) {
        continue;
      }
      const auto& wf = wl["fct_ns"];
      const std::string title = fmt::format("  {:16} ", fmt::format("workload.{}", w));
      if (wf["p50"].is_null()) {
        t += title + fmt::format("{}: no measured flow ({} of {} finished)\n", wl["type"].get<std::string>(),
                                 wl["finished"].get<int64_t>(), wl["created"].get<int64_t>());
      } else {
        t += title + fmt::format("{}: FCT p50 {}  p99 {}  max {} ({} of {} finished)\n", wl["type"].get<std::string>(),
                                 time_text(wf["p50"].get<double>()), time_text(wf["p99"].get<double>()),
                                 time_text(wf["max"].get<double>()), wl["finished"].get<int64_t>(),
                                 wl["created"].get<int64_t>());
      }
    }
  }
  const auto& c = s["coverage"];
  if (!reports_fct(s)) {
    // a perftest's or a collective's messages: its own lines say what ended
  } else if (!all_fct) {
    // Beside application messages: the flow workloads' own unfinished flows.
    if (const int64_t unfinished = workload_counts(s, true).unfinished; unfinished > 0) {
      t += fmt::format("  not in the FCTs  {} unfinished flows\n", unfinished);
    }
  } else if (c["unfinished_flows"].get<int64_t>() > 0) {
    t += fmt::format("  not in the FCTs  {} unfinished flows ({} delivered of {})\n",
                     c["unfinished_flows"].get<int64_t>(), size_text(c["unfinished_delivered_bytes"].get<double>()),
                     size_text(c["unfinished_size_bytes"].get<double>()));
  }
  if (reports_fct(s) && c["warmup_flows"].get<int64_t>() > 0) {
    t += fmt::format("  warm-up          {} flows started before {} (output.warmup): not in the percentiles\n",
                     c["warmup_flows"].get<int64_t>(), time_text(c["warmup_ns"].get<double>()));
  }
  const auto line = [&](const char* title, const nlohmann::json& items, auto&& item) {
    std::string l;
    for (const auto& x : items) {
      if (!l.empty()) {
        l += "; ";
      }
      l += item(x);
    }
    if (!l.empty()) {
      t += fmt::format("  {:16} {}\n", title, l);
    }
  };
  line("receivers", s["receivers"], [](const nlohmann::json& r) {
    return fmt::format("{} (endpoint {}) {} at {:.1f} Gb/s", r["nic"].get<std::string>(), r["endpoint"].get<int>(),
                       size_text(r["delivered_bytes"].get<double>()), r["goodput_gbps"].get<double>());
  });
  line("deepest queues", s["deepest_queues"], [](const nlohmann::json& q) {
    return fmt::format("{} -> {} p{} {} ({} to drain at {:g} Gb/s)", q["port"].get<std::string>(),
                       q["peer"].get<std::string>(), q["priority"].get<int>(),
                       size_text(q["max_queue_bytes"].get<double>()), time_text(q["drain_ns"].get<double>()),
                       q["rate_gbps"].get<double>());
  });
  line("most paused", s["most_paused"], [](const nlohmann::json& p) {
    return fmt::format("{} p{} {}", p["port"].get<std::string>(), p["priority"].get<int>(),
                       time_text(p["paused_ns"].get<double>()));
  });
  return t;
}

}  // namespace rocesim
