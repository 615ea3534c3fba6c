#include "rocesim/io/hpcc_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "rocesim/core/error.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/core/units.hpp"
#include "rocesim/topology/routing.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace fs = std::filesystem;
namespace {

struct Entry {
  std::string value;
  int line = 0;
};

// Durations and sizes in rocesim's own exact notation ("4s", "300us", "32MB").
std::string us(double v) { return to_string(Time::ps(std::llround(v * 1e6))); }
std::string ns(double v) { return to_string(Time::ps(std::llround(v * 1e3))); }
std::string seconds(double v) { return to_string(Time::ps(std::llround(v * 1e12))); }
std::string megabytes(double v) { return to_string(Bytes(std::llround(v * 1e6))); }
std::string decimal(double v) {
  std::ostringstream os;
  os.precision(12);
  os << std::fixed << v;
  std::string s = os.str();
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') {
    s.pop_back();
  }
  return s;
}

}  // namespace

// As its scratch/third.cc computes it: CalculateRoute's search from every host, then the loop over host pairs.
std::optional<Time> hpcc_max_rtt(const TopologyGraph& g, int64_t payload) {
  if (static_cast<double>(g.hosts.size()) * static_cast<double>(g.links.size() + g.nodes.size()) > 1e9) {
    return std::nullopt;
  }
  const Adjacency adj = adjacency(g, std::vector<char>(g.links.size(), 1));
  Time longest;
  std::vector<char> seen(g.nodes.size());
  std::vector<Time> delay(g.nodes.size()), tx(g.nodes.size());
  std::vector<int> queue;
  for (const int src : g.hosts) {
    std::fill(seen.begin(), seen.end(), 0);
    queue.assign(1, src);
    seen[src] = 1;
    delay[src] = tx[src] = Time();
    for (size_t head = 0; head < queue.size(); ++head) {
      const int u = queue[head];
      if (u != src && g.nodes[u].is_nic()) {
        longest = std::max(longest, delay[u] * 2 + tx[u]);
        continue;
      }
      for (const Arc& a : adj[u]) {
        if (!seen[a.node]) {
          seen[a.node] = 1;
          delay[a.node] = delay[u] + g.links[a.link].delay;
          tx[a.node] = tx[u] + g.links[a.link].rate.tx_time(Bytes(payload));
          queue.push_back(a.node);
        }
      }
    }
  }
  return longest;
}

HpccImport import_hpcc_config(const std::string& config, const std::string& scenario_dir) {
  check_input_file(config, config, 0, "");
  std::ifstream in(config);
  if (!in) {
    throw InputError(config, 0, "", fs::exists(config) ? "cannot read the file" : "no such file");
  }
  std::map<std::string, Entry> kv;
  std::string line;
  int lineno = 0;
  while (next_content_line(in, line, lineno, '#')) {
    std::istringstream ss(line);
    std::string key;
    if (!(ss >> key)) {
      continue;
    }
    std::string value, word;
    while (ss >> word) {
      value += (value.empty() ? "" : " ") + word;
    }
    kv[key] = {value, lineno};
  }
  HpccImport out;
  std::set<std::string> used;
  const auto get = [&](const std::string& k) -> const Entry* {
    used.insert(k);
    auto it = kv.find(k);
    return it == kv.end() ? nullptr : &it->second;
  };
  const auto number = [&](const std::string& k) -> std::optional<double> {
    const Entry* e = get(k);
    if (!e) {
      return std::nullopt;
    }
    try {
      size_t pos = 0;
      const double v = std::stod(e->value, &pos);
      if (pos != e->value.size()) {
        throw std::invalid_argument("");
      }
      return v;
    } catch (...) {
      throw InputError(config, e->line, k, "expected a number, got '" + e->value + "'");
    }
  };
  const auto rate = [&](const std::string& k) -> std::optional<std::string> {
    const Entry* e = get(k);
    if (!e) {
      return std::nullopt;
    }
    try {
      parse_rate(e->value);
    } catch (const UnitError& u) {
      throw InputError(config, e->line, k, u.message);
    }
    return e->value;
  };
  const auto path = [&](const std::string& k) -> std::string {
    const Entry* e = get(k);
    if (!e) {
      throw InputError(config, 0, k, "missing; the config must name it");
    }
    fs::path p(e->value);
    if (p.is_relative() && !fs::exists(p)) {
      p = fs::path(config).parent_path() / p;
    }
    if (!fs::exists(p)) {
      throw InputError(config, e->line, k, "cannot find '" + e->value + "' (from here or the config's folder)");
    }
    return fs::relative(fs::absolute(p), fs::absolute(scenario_dir.empty() ? "." : scenario_dir)).string();
  };
  const auto warn_unless = [&](const std::string& k, const std::string& ok_value, const std::string& why) {
    if (const Entry* e = get(k); e && e->value != ok_value) {
      out.warnings.push_back(config + ":" + std::to_string(e->line) + ": " + k + " " + e->value + " ignored: " + why);
    }
  };

  YAML::Node sc(YAML::NodeType::Map);
  sc["name"] = fs::path(config).stem().string();
  sc["seed"] = 1;
  const std::string topo = path("TOPOLOGY_FILE");
  const std::string flows = path("FLOW_FILE");
  sc["topology"]["type"] = "hpcc";
  sc["topology"]["path"] = topo;
  if (auto t = number("SIMULATOR_STOP_TIME")) {
    sc["stop"] = seconds(*t);
  }
  YAML::Node sw(YAML::NodeType::Map), nic(YAML::NodeType::Map), cc(YAML::NodeType::Map);
  if (auto v = number("BUFFER_SIZE")) {
    sw["buffer"] = megabytes(*v);
  }
  if (auto v = number("PACKET_PAYLOAD_SIZE")) {
    nic["mtu"] = static_cast<int64_t>(*v);
  }
  if (auto v = number("L2_ACK_INTERVAL")) {
    nic["ack_interval"] = std::max<int64_t>(1, static_cast<int64_t>(*v));
    if (*v < 1) {
      out.warnings.push_back(config + ": L2_ACK_INTERVAL 0 (no ACKs) is not modelled; rocesim ACKs every packet");
    }
  }
  if (auto v = number("ACK_HIGH_PRIO"); v && *v != 0) {
    nic["ack_priority"] = 6;  // the strict class of the default ETS
  }
  // Lossless priorities: every priority group the flow file uses (that simulator makes data queues lossless).
  {
    const fs::path flow_path = fs::path(scenario_dir.empty() ? "." : scenario_dir) / flows;
    check_input_file(flow_path, config, 0, "FLOW_FILE");
    std::ifstream ff(flow_path);
    std::set<int64_t> pgs;
    std::string l;
    std::getline(ff, l);
    while (std::getline(ff, l)) {
      std::istringstream ss(l);
      int64_t a, b, pg;
      if (ss >> a >> b >> pg && pg >= 0 && pg <= 7) {
        pgs.insert(pg);
      }
    }
    if (pgs.empty()) {
      pgs.insert(3);
    }
    YAML::Node pr(YAML::NodeType::Sequence);
    for (int64_t p : pgs) {
      pr.push_back(p);
    }
    sw["pfc"]["priorities"] = pr;
    sw["pfc"]["priorities"].SetStyle(YAML::EmitterStyle::Flow);
  }
  if (auto v = number("USE_DYNAMIC_PFC_THRESHOLD"); v && *v == 0) {
    out.warnings.push_back(config + ": USE_DYNAMIC_PFC_THRESHOLD 0: rocesim keeps its dynamic threshold");
  }
  // Its MMU (switch-mmu.cc, third.cc): 4 KiB reserved per port and queue, resume 3 KiB below the threshold,
  // headroom 3 x rate x delay per port, and a PFC threshold of the free shared buffer >> shift, the shift 3 at the
  // NIC rate and one less per doubling of the port's rate (alpha 1/8, 1/4, 1/2, 1).
  sw["admission"]["type"] = "dynamic";
  sw["admission"]["reserved"] = "4KiB";
  sw["admission"]["alpha"] = 0.125;
  sw["pfc"]["xon_offset"] = "3KiB";
  sw["pfc"]["headroom"] = "hpcc-ns3";
  {
    std::ifstream in(fs::path(scenario_dir.empty() ? "." : scenario_dir) / topo);
    const TopologyGraph g = read_hpcc_topology(in, topo);
    std::optional<int64_t> nic_rate;
    std::set<int64_t> rates;
    for (const TopoLink& l : g.links) {
      const bool a_host = g.nodes[l.a].is_nic(), b_host = g.nodes[l.b].is_nic();
      if (!nic_rate && (a_host || b_host)) {
        nic_rate = l.rate.bps();
      }
      rates.insert(l.rate.bps());
    }
    std::string by_rate;
    for (int64_t r : rates) {
      int shift = 3;
      for (int64_t x = r; nic_rate && x > *nic_rate && shift > 0; x /= 2) {
        --shift;
      }
      if (shift != 3) {
        by_rate += fmt::format("{}{} {}", by_rate.empty() ? "" : "; ", to_string(Rate::bps(r)), 1.0 / (1 << shift));
      }
    }
    if (!by_rate.empty()) {
      sw["admission"]["alpha_by_rate"] = by_rate;
    }
  }
  if (auto v = number("ENABLE_QCN"); v && *v == 0) {
    sw["ecn"]["type"] = "none";
  } else {
    // That simulator marks as a packet leaves its egress queue, against the queue behind it (switch-node.cc,
    // SwitchNotifyDequeue): the receiver hears of the queue as it is, not as it was when the packet joined it.
    sw["ecn"]["at"] = "dequeue";
  }
  // Count-prefixed per-rate ECN lists: "KMIN_MAP 3 25000000000 100 40000000000 160 100000000000 400" (KB).
  {
    const Entry* kmin = get("KMIN_MAP");
    const Entry* kmax = get("KMAX_MAP");
    const Entry* pmax = get("PMAX_MAP");
    if (kmin || kmax || pmax) {
      if (!(kmin && kmax && pmax)) {
        throw InputError(config, 0, "KMIN_MAP", "KMIN_MAP, KMAX_MAP and PMAX_MAP go together");
      }
      const auto parse_map = [&](const Entry& e, const std::string& k) {
        std::istringstream ss(e.value);
        int64_t n = 0;
        std::map<int64_t, double> m;
        if (!(ss >> n) || n < 0) {
          throw InputError(config, e.line, k, "expected a count, then that many 'rate value' pairs");
        }
        for (int64_t i = 0; i < n; ++i) {
          int64_t r = 0;
          double v = 0;
          if (!(ss >> r >> v) || r <= 0) {
            throw InputError(
                config, e.line, k,
                "the count says " + std::to_string(n) + " pairs; pair " + std::to_string(i + 1) + " is bad");
          }
          m[r] = v;
        }
        std::string extra;
        if (ss >> extra) {
          throw InputError(config, e.line, k, "more values than the count " + std::to_string(n) + " announces");
        }
        return m;
      };
      const auto mn = parse_map(*kmin, "KMIN_MAP"), mx = parse_map(*kmax, "KMAX_MAP"),
                 pm = parse_map(*pmax, "PMAX_MAP");
      std::string by_rate;
      for (const auto& [r, v] : mn) {
        if (!mx.count(r) || !pm.count(r)) {
          throw InputError(config, kmin->line, "KMIN_MAP",
                           "rate " + std::to_string(r) + " is missing from KMAX_MAP or PMAX_MAP");
        }
        by_rate += (by_rate.empty() ? "" : "; ") + to_string(Rate::bps(r)) + " " +
                   to_string(Bytes(std::llround(v * 1000))) + " " + to_string(Bytes(std::llround(mx.at(r) * 1000))) +
                   " " + decimal(pm.at(r));
      }
      sw["ecn"]["by_rate"] = by_rate;
    }
  }
  const auto mode = number("CC_MODE").value_or(1);
  if (mode == 1) {
    cc["type"] = "dcqcn";
    // The HPCC simulator's "Mellanox" DCQCN (alibaba-edu/High-Precision-Congestion-Control
    // simulation/src/point-to-point/model/rdma-hw.cc): timer-driven increase, no byte counter, alpha 1 on the
    // first CNP, no per-step decrease floor.
    cc["byte_counter"] = "0B";
    cc["initial_alpha"] = 1.0;
    // Its receiver flags the ACK of every CE-marked packet as a CNP (rdma-hw.cc, ReceiveUdp), with no interval;
    // its sender checks for CNPs every RATE_DECREASE_INTERVAL from the first one and cuts then
    // (CheckRateDecreaseMlx).
    cc["min_time_between_cnps"] = "0us";
    cc["cut_on_period_end"] = true;
    cc["min_dec_factor"] = 0.0;
    if (auto v = number("ALPHA_RESUME_INTERVAL")) {
      cc["alpha_update_period"] = us(*v);
    }
    if (auto v = number("RATE_DECREASE_INTERVAL")) {
      cc["rate_reduce_monitor_period"] = us(*v);
    }
    if (auto v = number("RP_TIMER")) {
      cc["rate_increase_period"] = us(*v);
    }
    if (auto v = number("EWMA_GAIN")) {
      cc["g"] = *v;
    }
    if (auto v = number("FAST_RECOVERY_TIMES")) {
      cc["fast_recovery_steps"] = static_cast<int64_t>(*v);
    }
    if (auto v = rate("RATE_AI")) {
      cc["rate_ai"] = *v;
    }
    if (auto v = rate("RATE_HAI")) {
      cc["rate_hai"] = *v;
    }
    if (auto v = rate("MIN_RATE")) {
      cc["min_rate"] = *v;
    }
    if (auto v = number("CLAMP_TARGET_RATE")) {
      cc["clamp_target_rate"] = *v != 0;
    }
  } else if (mode == 3) {
    cc["type"] = "hpcc";
    if (auto v = number("U_TARGET")) {
      cc["eta"] = *v;
    }
    if (auto v = number("MI_THRESH")) {
      cc["max_stage"] = static_cast<int64_t>(*v);
    }
    if (auto v = rate("RATE_AI")) {
      cc["rate_ai"] = *v;
    }
    if (auto v = rate("MIN_RATE")) {
      cc["min_rate"] = *v;
    }
    // HAS_WIN 0: paced at W/T alone; VAR_WIN 0: the window stays at line rate x T (rdma-hw.cc, GetWin).
    if (const Entry* e = get("HAS_WIN"); e && e->value == "0") {
      cc["window"] = "none";
    } else if (const Entry* v = get("VAR_WIN"); v && v->value == "0") {
      cc["window"] = "fixed";
    }
    warn_unless("FAST_REACT", "1", "rocesim's HPCC always reacts per ACK");
    // GLOBAL_T 1 (as its run.py writes configs): every flow's T is the fabric's largest base RTT.
    if (const Entry* e = get("GLOBAL_T"); e && e->value == "1") {
      std::ifstream in(fs::path(scenario_dir.empty() ? "." : scenario_dir) / topo);
      const auto max_rtt = hpcc_max_rtt(read_hpcc_topology(in, topo), number("PACKET_PAYLOAD_SIZE").value_or(1000));
      if (max_rtt) {
        cc["base_rtt"] = to_string(*max_rtt);
      } else {
        out.warnings.push_back(config + ":" + std::to_string(e->line) +
                               ": GLOBAL_T 1 ignored: the fabric is too large to search every pair of hosts; each "
                               "flow's own round trip is its T");
      }
    }
    warn_unless("MULTI_RATE", "0", "not modelled");
    warn_unless("SAMPLE_FEEDBACK", "0", "not modelled");
  } else if (mode == 7) {
    // Its TIMELY (rdma-hw.cc, UpdateRateTimely): alpha, beta, T_low, T_high and min RTT are attribute defaults
    // there, and rocesim's; the config gives the steps and the floor.
    cc["type"] = "timely";
    for (const auto& [key, field] :
         {std::pair{"RATE_AI", "rate_ai"}, std::pair{"RATE_HAI", "rate_hai"}, std::pair{"MIN_RATE", "min_rate"}}) {
      if (auto v = rate(key)) {
        cc[field] = *v;
      }
    }
  } else if (mode == 8) {
    cc["type"] = "dctcp";
    warn_unless("DCTCP_RATE_AI", "", "rocesim's DCTCP is window-based");
  } else {
    const Entry* e = get("CC_MODE");
    throw InputError(config, e ? e->line : 0, "CC_MODE",
                     decimal(mode) + " is not available in rocesim (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP)");
  }
  nic["cc"] = cc;
  sc["switch"] = sw;
  sc["nic"] = nic;
  YAML::Node w(YAML::NodeType::Map);
  w["type"] = "hpcc-flows";
  w["path"] = flows;
  sc["workload"].push_back(w);
  // Its paths: its ECMP hash, with the flows' destination port (the flow file's fourth column; the hash takes one
  // for all flows, as that simulator's traffic generator writes).
  sc["routing"]["ecmp"] = "hpcc-ns3";
  {
    std::ifstream in(fs::path(scenario_dir.empty() ? "." : scenario_dir) / flows);
    std::string line;
    std::set<std::string> dports;
    std::getline(in, line);  // the count
    while (std::getline(in, line)) {
      std::istringstream ss(line);
      std::string src, dst, pg, dport;
      if (ss >> src >> dst >> pg >> dport) {
        dports.insert(dport);
      }
    }
    if (!dports.empty()) {
      sc["routing"]["ecmp_dport"] = *dports.begin();
    }
    if (dports.size() > 1) {
      out.warnings.push_back(config + ": FLOW_FILE: flows have " + std::to_string(dports.size()) +
                             " destination ports; the ECMP hash uses " + *dports.begin() + " for all");
    }
  }
  // Outputs in that simulator's formats, under their file names (without folders).
  YAML::Node hp(YAML::NodeType::Map);
  const auto outname = [&](const std::string& k, const std::string& field) {
    if (const Entry* e = get(k)) {
      hp[field] = fs::path(e->value).filename().string();
    }
  };
  outname("FCT_OUTPUT_FILE", "fct");
  outname("PFC_OUTPUT_FILE", "pfc");
  outname("QLEN_MON_FILE", "qlen");
  if (auto v = number("QLEN_MON_START")) {
    hp["qlen_start"] = ns(*v);
  }
  if (get("QLEN_MON_FILE")) {
    hp["qlen_interval"] = "100ns";  // its monitor's period (third.cc, qlen_mon_interval)
  }
  if (auto v = number("QLEN_MON_END")) {
    hp["qlen_end"] = ns(*v);
  }
  if (hp.size() > 0) {
    sc["output"]["hpcc"] = hp;
  }
  // Keys read but not honoured.
  warn_unless("L2_BACK_TO_ZERO", "0", "rocesim recovers with go-back-N from the NAKed PSN");
  warn_unless("L2_CHUNK_SIZE", "0", "not modelled");
  if (auto v = number("ERROR_RATE_PER_LINK"); v && *v != 0) {
    out.warnings.push_back(config + ":" + std::to_string(get("ERROR_RATE_PER_LINK")->line) + ": ERROR_RATE_PER_LINK " +
                           decimal(*v) + " ignored: links are loss-free");
  }
  if (const Entry* e = get("LINK_DOWN")) {
    std::istringstream ss(e->value);
    double t = 0;
    if ((ss >> t) && t != 0) {
      out.warnings.push_back(config + ":" + std::to_string(e->line) + ": LINK_DOWN " + e->value +
                             " ignored: link failures are not modelled yet");
    }
  }
  warn_unless("ENABLE_TRACE", "0", "no mix.tr trace; use a capture section for packet traces");
  for (const char* k : {"TRACE_FILE",
                        "TRACE_OUTPUT_FILE",
                        "ALPHA_RESUME_INTERVAL",
                        "RATE_DECREASE_INTERVAL",
                        "RP_TIMER",
                        "EWMA_GAIN",
                        "FAST_RECOVERY_TIMES",
                        "RATE_HAI",
                        "CLAMP_TARGET_RATE",
                        "U_TARGET",
                        "MI_THRESH",
                        "HAS_WIN",
                        "VAR_WIN",
                        "FAST_REACT",
                        "INT_MULTI",
                        "GLOBAL_T",
                        "MULTI_RATE",
                        "SAMPLE_FEEDBACK",
                        "DCTCP_RATE_AI",
                        "ACK_HIGH_PRIO"}) {
    get(k);  // known keys that only matter for another CC_MODE
  }
  for (const auto& [k, e] : kv) {
    if (!used.count(k)) {
      out.warnings.push_back(config + ":" + std::to_string(e.line) + ": " + printable(k) +
                             " ignored: not modelled by rocesim");
    }
  }
  YAML::Emitter em;
  em << sc;
  out.yaml = "# Imported from " + config + " by rocesim import hpcc.\n" + std::string(em.c_str()) + "\n";
  for (const auto& w2 : out.warnings) {
    out.yaml += "# warning: " + w2 + "\n";
  }
  return out;
}

}  // namespace rocesim
