#include "rocesim/run/summary.hpp"

#include <algorithm>
#include <cmath>

#include "rocesim/analysis/highlights.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/pfc_rollup.hpp"
#include "rocesim/analysis/results.hpp"

namespace rocesim {

namespace {

nlohmann::json number_or_null(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

// Host CPU core-seconds the transports used (RDMA: posting work requests; kernel TCP: its stack and copies), per
// server (the sum of its NICs'): the total, and the busiest server.
nlohmann::json cpu_json(const Network& net) {
  double total = 0, most = 0;
  std::string busiest;
  for (size_t s = 0; s < net.num_servers(); ++s) {
    double used = 0;
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
          {"max_server_core_seconds", most},
          {"max_server", busiest.empty() ? nlohmann::json(nullptr) : nlohmann::json(busiest)}};
}

}  // namespace

nlohmann::json summary_json(Simulation& s, const RunInfo& info) {
  Network& net = s.net();
  nlohmann::json j;
  j["sim_time_ns"] = s.now().ps() / 1000;
  j["wall_time_s"] = info.wall_time_s;
  if (info.partial) {
    j["partial"] = true;  // the run was cut short at sim_time_ns
    j["partial_reason"] = info.partial_reason;
  }
  j["events"] = s.events();
  j["events_per_s"] = info.wall_time_s > 0 ? static_cast<double>(s.events()) / info.wall_time_s : 0.0;
  j["warnings"] = s.warnings();
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
  if (s.scenario().output.flows != "all") {
    j["message_groups"] = message_groups_json(net, s.scenario().output.flows);
  }
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
    const NicCounters& k = n->counters();
    drops += k.rx_dropped;
    lossless_drops += k.rx_dropped_lossless;
    if (k.rx_dropped) {
      by_reason["nic_rx_buffer"] = by_reason.value("nic_rx_buffer", int64_t{0}) + k.rx_dropped;
    }
  }
  int64_t cnps = 0, data_sent = 0;
  // Packet-hops: frames that crossed one link (every frame a NIC or a switch port put on the wire).
  int64_t hops = pause_frames + resume_frames;
  for (const auto& n : net.nics()) {
    cnps += n->counters().cnps_sent;
    data_sent += n->counters().data_sent;
    hops += n->counters().data_sent + n->counters().ctrl_sent;
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
  const nlohmann::json rollup = pfc_rollup_json(net, s.now());
  j["pfc_by_tier"] = rollup["by_tier"];
  j["pfc_by_rail"] = rollup["by_rail"];
  const std::vector<uint32_t> faulty = faulty_endpoints(net, s.scenario().events);
  nlohmann::json spread = nlohmann::json::array();
  for (const FabricEvent& e : s.scenario().events) {
    if (e.is_fault()) {
      spread.push_back(spread_json(pause_spread(net, e.target, e.prio, s.now())));
    }
  }
  if (!spread.empty()) {
    j["pause_spread"] = spread;
  }
  if (info.baseline) {
    const auto v = victim_flows(net, *info.baseline, faulty, kVictimThreshold);
    int64_t candidates = 0, unfinished = 0;
    for (const auto& f : net.flows()) {
      candidates += !touches(f, faulty);
    }
    for (const Victim& x : v) {
      unfinished += x.fct == Time::max();
    }
    j["victims"] = {{"flows", v.size()},
                    {"unfinished", unfinished},
                    {"of", candidates},
                    {"threshold", kVictimThreshold},
                    {"file", "victims.csv"}};
  }
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
  const auto cons = net.conservation();
  j["cpu"] = cpu_json(net);
  j["packets"] = {{"sent", cons.sent},
                  {"delivered", cons.delivered},
                  {"dropped", cons.dropped},
                  {"in_network", cons.in_network},
                  {"conserved", cons.holds()}};
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : slowdown_by_size(net, parse_bucket_edges(s.scenario().output.buckets), warmup)) {
    buckets.push_back({{"lo_bytes", b.lo},
                       {"hi_bytes", b.hi < 0 ? nlohmann::json(nullptr) : nlohmann::json(b.hi)},
                       {"flows", b.flows},
                       {"p50", b.flows ? nlohmann::json(b.p50) : nlohmann::json(nullptr)},
                       {"p95", b.flows ? nlohmann::json(b.p95) : nlohmann::json(nullptr)},
                       {"p99", b.flows ? nlohmann::json(b.p99) : nlohmann::json(nullptr)}});
  }
  j["fct_slowdown_by_size"] = buckets;
  nlohmann::json per_workload = nlohmann::json::array();
  {
    // Per workload, by the workload each message came from (applications post messages during the run too).
    const size_t nw = s.workload_flow_counts().size();
    std::vector<size_t> created(nw, 0), done(nw, 0);
    std::vector<std::vector<const FlowRecord*>> of(nw);
    for (const auto& f : net.flows()) {
      if (f.spec.workload < nw) {
        ++created[f.spec.workload];
        done[f.spec.workload] += f.done;
        of[f.spec.workload].push_back(&f);
      }
    }
    for (size_t w = 0; w < nw; ++w) {
      per_workload.push_back({{"type", s.resolved()["workload"][w]["type"]},
                              {"created", created[w]},
                              {"finished", done[w]},
                              {"unfinished", created[w] - done[w]},
                              {"fct_ns", fct_ns_json(of[w], warmup)}});
    }
  }
  j["workloads"] = per_workload;
  for (const auto& r : s.reports()) {
    const nlohmann::json part = r->summary();
    for (const auto& [key, value] : part.items()) {
      if (j.contains(key) && j[key].is_array() && value.is_array()) {
        for (const auto& v : value) {
          j[key].push_back(v);
        }
      } else {
        j[key] = value;
      }
    }
  }
  j["scenario"] = s.resolved();
  return j;
}

std::vector<std::pair<std::string, std::string>> report_files(const Simulation& s) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : s.reports()) {
    for (auto& [name, content] : r->files()) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& f) { return f.first == name; });
      if (it == out.end()) {
        out.push_back({name, content});
      } else if (name.size() > 4 && name.substr(name.size() - 4) == ".csv") {
        it->second += content.substr(content.find('\n') + 1);  // one header
      } else {
        it->second += content;
      }
    }
  }
  return out;
}

}  // namespace rocesim
