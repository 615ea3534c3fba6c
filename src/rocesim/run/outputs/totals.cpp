#include <algorithm>
#include <cmath>

#include "rocesim/analysis/highlights.hpp"
#include "rocesim/analysis/pfc_rollup.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {

namespace {

// RDMA data packets that arrived past the next expected PSN, in all and by depth (PSNs past it: 1, 2-3, 4-7, ...;
// the last bucket open-ended), from every NIC's counters.
nlohmann::json reorder_json(const std::array<int64_t, kReorderBuckets>& depth) {
  int64_t total = 0;
  nlohmann::json by_depth = nlohmann::json::array();
  for (int b = 0; b < kReorderBuckets; ++b) {
    total += depth[b];
    if (depth[b] > 0) {
      const bool last = b + 1 == kReorderBuckets;
      by_depth.push_back({{"from", int64_t{1} << b},
                          {"to", last ? nlohmann::json(nullptr) : nlohmann::json((int64_t{1} << (b + 1)) - 1)},
                          {"packets", depth[b]}});
    }
  }
  return {{"packets", total}, {"by_depth", by_depth}};
}

nlohmann::json number_or_null(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

// Host CPU core-seconds per server: what its NICs' transports used (RDMA: posting work requests; kernel TCP: its
// stack and copies) and its applications' host work (staging copies through host memory without GPUDirect RDMA):
// the total, the staging part, and the busiest server.
nlohmann::json cpu_json(const Network& net) {
  double total = 0, most = 0, staging = 0;
  std::string busiest;
  for (size_t s = 0; s < net.num_servers(); ++s) {
    double used = net.server(s).cpu_busy().sec_f();
    staging += used;
    for (size_t k = 0; k < net.server(s).num_nics(); ++k) {
      used += net.nics()[net.server(s).endpoint(k)]->cpu_time().sec_f();
    }
    total += used;
    if (used > most) {
      most = used;
      busiest = net.server(s).name();
    }
  }
  return {{"core_seconds", total},
          {"staging_core_seconds", staging},
          {"max_server_core_seconds", most},
          {"max_server", busiest.empty() ? nlohmann::json(nullptr) : nlohmann::json(busiest)}};
}

// InfiniBand's counterpart of pauses: time a switch port's or a NIC's virtual lane held its head packet for want
// of credits (ports.csv and nics.csv credit_wait_ns), in all and where it was longest.
nlohmann::json credits_json(const Network& net, Time now) {
  struct Wait {
    std::string where;
    int vl = 0;
    Time waited;
  };
  std::vector<Wait> waits;
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      for (int c = 0; c < 8; ++c) {
        if (const Time w = sw->counters(p, c).credit_wait; w > Time()) {
          waits.push_back({sw->name() + ":" + std::to_string(p), c, w});
        }
      }
    }
  }
  for (const auto& n : net.nics()) {
    if (const CreditTx* ct = n->credit_tx()) {
      for (int c = 0; c < 8; ++c) {
        if (const Time w = ct->waited_until(c, now); w > Time()) {
          waits.push_back({n->name(), c, w});
        }
      }
    }
  }
  Time total;
  for (const Wait& w : waits) {
    total += w.waited;
  }
  // Longest first; equal waits in the order of the fabric's ports.
  std::stable_sort(waits.begin(), waits.end(), [](const Wait& a, const Wait& b) { return a.waited > b.waited; });
  nlohmann::json most = nlohmann::json::array();
  for (size_t i = 0; i < waits.size() && i < 3; ++i) {
    most.push_back({{"port", waits[i].where}, {"vl", waits[i].vl}, {"wait_ns", waits[i].waited.ns_f()}});
  }
  return {{"wait_ns", total.ns_f()}, {"lanes_waiting", waits.size()}, {"most_waiting", most}};
}

// summary.json's totals: flows and their FCT, the highlights, drops, PFC, ECN, CNPs, transport, CPU, packets, and
// what the PFC watchdog and the deadlock detector found.
class Totals final : public Output {
 public:
  explicit Totals(const Simulation& s) : s_(s) {}
  OutputFiles files(const OutputContext&) override { return {}; }
  nlohmann::json summary(const RunInfo& info) const override;

 private:
  const Simulation& s_;
};

nlohmann::json Totals::summary(const RunInfo& info) const {
  const Simulation& s = s_;
  const Network& net = s.net();
  nlohmann::json j;
  if (const auto& preset = s.scenario().preset) {
    nlohmann::json over = nlohmann::json::array();
    for (const PresetUse::Override& o : preset->overrides) {
      over.push_back({{"key", o.key}, {"value", o.value}, {"preset_value", o.preset_value}});
    }
    j["switch_preset"] = {{"name", preset->name}, {"overridden", over}};
  }
  int64_t completed = 0, failed = 0, retx = 0, timeouts = 0, naks = 0, rnr = 0;
  const Time warmup = s.scenario().output.warmup;
  std::vector<double> sd;
  std::vector<const FlowRecord*> all;
  for (const auto& f : net.flows()) {
    all.push_back(&f);
    retx += f.retransmits;
    timeouts += f.timeouts;
    naks += f.naks;
    rnr += f.rnr_naks;
    failed += f.failed;
    completed += f.done;
    if (measured(f, warmup)) {
      sd.push_back(slowdown(f.end - f.spec.start, f.ideal_fct));
    }
  }
  const int64_t total = static_cast<int64_t>(net.flows().size());
  j["flows"] = {
      {"total", total}, {"completed", completed}, {"failed", failed}, {"unfinished", total - completed - failed}};
  j["fct_slowdown"] = {{"p50", number_or_null(percentile(sd, 0.5))},
                       {"p95", number_or_null(percentile(sd, 0.95))},
                       {"p99", number_or_null(percentile(sd, 0.99))}};
  j["fct_ns"] = fct_ns_json(all, warmup);
  const nlohmann::json highlights = highlights_json(net, warmup, s.now());
  for (const auto& [key, value] : highlights.items()) {
    j[key] = value;
  }
  int64_t drops = 0, lossless_drops = 0, pause_frames = 0, resume_frames = 0, marked = 0;
  nlohmann::json by_reason = nlohmann::json::object();
  uint8_t lossless = 0;
  for (int64_t c : s.scenario().sw.pfc.priorities) {
    lossless |= static_cast<uint8_t>(1u << c);
  }
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      for (int c = 0; c < 8; ++c) {
        const auto& k = sw->counters(p, c);
        for (int r = 0; r < kDropReasons; ++r) {
          drops += k.drops[r];
          if (lossless & (1u << c)) {
            lossless_drops += k.drops[r];
          }
          if (k.drops[r]) {
            const std::string name = to_string(static_cast<DropReason>(r));
            by_reason[name] = by_reason.value(name, int64_t{0}) + k.drops[r];
          }
        }
        marked += k.ecn_marked;
      }
      pause_frames += sw->pfc_pause_frames(p);
      resume_frames += sw->pfc_resume_frames(p);
    }
  }
  // Frames a NIC's receive buffer had no room for (a slow receiver on a lossy priority) are lost too.
  for (const auto& n : net.nics()) {
    const NicCounters k = n->counters();
    drops += k.rx_dropped;
    lossless_drops += k.rx_dropped_lossless;
    if (k.rx_dropped) {
      by_reason["nic_rx_buffer"] = by_reason.value("nic_rx_buffer", int64_t{0}) + k.rx_dropped;
    }
  }
  int64_t cnps = 0, data_sent = 0;
  // Packet-hops: frames that crossed one link (every frame a NIC or a switch port put on the wire).
  int64_t hops = pause_frames + resume_frames;
  std::array<int64_t, kReorderBuckets> reorder{};
  for (const auto& n : net.nics()) {
    const NicCounters k = n->counters();
    cnps += k.cnps_sent;
    data_sent += k.data_sent;
    hops += k.data_sent + k.ctrl_sent;
    for (int b = 0; b < kReorderBuckets; ++b) {
      reorder[b] += k.reorder_depth[b];
    }
  }
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      for (int c = 0; c < 8; ++c) {
        hops += sw->counters(p, c).tx_packets;
      }
    }
  }
  j["packet_hops"] = hops;
  j["packet_hops_per_s"] = info.wall_time_s > 0 ? static_cast<double>(hops) / info.wall_time_s : 0.0;
  j["drops"] = {{"total", drops}, {"lossless", lossless_drops}, {"by_reason", by_reason}};
  j["pfc"] = {{"pause_frames", pause_frames}, {"resume_frames", resume_frames}};
  if (net.fabric() == wire::Fabric::kInfiniband) {
    j["credits"] = credits_json(net, s.now());
  }
  const nlohmann::json rollup = pfc_rollup_json(net, s.now());
  j["pfc_by_tier"] = rollup["by_tier"];
  j["pfc_by_rail"] = rollup["by_rail"];
  if (s.scenario().sw.pfc.watchdog.enabled) {
    nlohmann::json storms = nlohmann::json::array();
    int64_t dropped = 0;
    for (const auto& sw : net.switches()) {
      if (!sw->watchdog()) {
        continue;
      }
      for (const Storm& st : sw->watchdog()->storms()) {
        storms.push_back({{"switch", sw->name()},
                          {"port", st.port},
                          {"priority", st.prio},
                          {"start_ns", st.start.ps() / 1000},
                          {"end_ns", st.end < Time() ? nlohmann::json() : nlohmann::json(st.end.ps() / 1000)},
                          {"dropped", st.dropped}});
        dropped += st.dropped;
      }
    }
    j["pfc_watchdog"] = {
        {"enabled", true}, {"action", s.scenario().sw.pfc.watchdog.action}, {"storms", storms}, {"dropped", dropped}};
  } else {
    j["pfc_watchdog"] = {{"enabled", false}};
  }
  if (const DeadlockDetector* d = s.deadlock()) {
    nlohmann::json cycles = nlohmann::json::array();
    for (const DeadlockReport& r : d->deadlocks()) {
      cycles.push_back({{"formed_at_ns", r.formed_at.ps() / 1000},
                        {"detected_at_ns", r.detected_at.ps() / 1000},
                        {"priority", r.priority},
                        {"queues", r.queues}});
    }
    j["deadlock"] = {
        {"checked", true}, {"detected", !cycles.empty()}, {"stopped_run", d->stopped_run()}, {"cycles", cycles}};
  } else {
    j["deadlock"] = {{"checked", false}};
  }
  j["ecn"] = {{"marked", marked}};
  j["cnp"] = {{"sent", cnps}};
  j["transport"] = {{"data_packets_sent", data_sent},
                    {"retransmits", retx},
                    {"timeouts", timeouts},
                    {"naks", naks},
                    {"rnr_naks", rnr}};
  j["reorder"] = reorder_json(reorder);
  const auto cons = net.conservation();
  j["cpu"] = cpu_json(net);
  j["packets"] = {{"sent", cons.sent},
                  {"delivered", cons.delivered},
                  {"dropped", cons.dropped},
                  {"in_network", cons.in_network},
                  {"conserved", cons.holds()}};
  return j;
}

}  // namespace

OutputKind totals_output() {
  return {"totals",
          "summary.json's totals: flows, FCT, drops, PFC, ECN, transport, CPU, packets, watchdog, deadlock",
          {},
          [](Simulation& s) { return std::make_unique<Totals>(s); }};
}

}  // namespace rocesim
