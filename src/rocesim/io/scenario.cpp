#include "rocesim/io/scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rocesim/io/output.hpp"
#include "rocesim/switch/presets.hpp"
#include "rocesim/workload/offered_load.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {

const Schema<ScenarioParams>& ScenarioParams::schema() {
  static const Schema<ScenarioParams> s = [] {
    Schema<ScenarioParams> sc("scenario", "the top level of a scenario file");
    sc.add(&ScenarioParams::seed, "seed", "1", "seed of every random stream; same seed, same results",
           at_least<int64_t>(0))
        .add(&ScenarioParams::stop, "stop", "10ms",
             "simulated time at which the run ends (earlier if every flow is done)", at_least(Time::ps(1)))
        .add(&ScenarioParams::name, "name", "scenario", "a name for the results")
        .add(&ScenarioParams::fabric, "fabric", "roce-v2",
             "link layer under RDMA: roce-v2 (Ethernet, IPv4, UDP), roce-v1 (Ethernet only, EtherType 0x8915: one "
             "switch), infiniband (credit-based flow control per VL, LRH framing, routing by destination; see "
             "infiniband.*)",
             one_of({"roce-v2", "roce-v1", "infiniband"}))
        .reserved("infiniband", "credit-based flow control with fabric: infiniband, see infiniband.*")
        .reserved("topology", "the fabric, see topology.*")
        .reserved("switch", "see switch.*")
        .reserved("nic", "see nic.*")
        .reserved("server", "what is inside each server (GPUs, PCIe, NVLink), see server.*")
        .reserved("tcp", "TCP connections (workload transport: tcp or iwarp), see tcp.*")
        .reserved("workload", "a list of traffic generators, see workload[].*")
        .reserved("capture", "packet capture, see capture.*")
        .reserved("routing", "how routes follow fabric events, see routing.*")
        .reserved("events", "links and switches that fail and come back during the run, see events[].*")
        .reserved("output", "analysis outputs, see output.*")
        .reserved("engine", "how the run is executed (threads, partitions), see engine.*");
    return sc;
  }();
  return s;
}

void apply_override(YAML::Node& root, const std::string& assignment, const std::string& file) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set", 0, assignment, "expected KEY=VALUE, e.g. switch.ecn.kmin=200KB");
  }
  const std::string key = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError("--set", 0, key, "bad value: " + e.msg);
  }
  std::vector<std::string> parts;
  std::stringstream ss(key);
  std::string part;
  while (std::getline(ss, part, '.')) {
    parts.push_back(part);
  }
  // Walk down, creating mappings as needed. yaml-cpp nodes are handles, so assigning through them edits root.
  YAML::Node cur = root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const std::string& p = parts[i];
    if (cur.IsSequence()) {
      size_t idx = 0;
      try {
        idx = std::stoul(p);
      } catch (...) {
        throw InputError("--set", 0, key, "'" + p + "' must be a list index");
      }
      if (idx >= cur.size()) {
        throw InputError("--set", 0, key,
                         "list index " + p + " out of range (" + std::to_string(cur.size()) + " items)");
      }
      if (last) {
        cur[idx] = value;
        return;
      }
      YAML::Node next = cur[idx];
      cur.reset(next);
      continue;
    }
    if (cur.IsScalar()) {
      // `cc: dcqcn` becomes `cc: {type: dcqcn}` so that its parameters can be set.
      YAML::Node m(YAML::NodeType::Map);
      m["type"] = cur.Scalar();
      cur = m;
    }
    if (last) {
      cur[p] = value;
      return;
    }
    if (!cur[p] || cur[p].IsNull()) {
      cur[p] = YAML::Node(YAML::NodeType::Map);
    }
    YAML::Node next = cur[p];
    cur.reset(next);
  }
}

InputError attribute_to_override(const InputError& e, const std::vector<std::string>& overrides) {
  // The most specific --set that covers the key: with `nic.cc=hpcc` and `nic.cc.eta=0`, an error in nic.cc.eta is
  // the second's. Of two equal keys the later is the value parsed.
  const std::string* best = nullptr;
  size_t best_length = 0;
  for (const auto& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    if ((e.key() == key || e.key().rfind(key + ".", 0) == 0) && (best == nullptr || key.size() >= best_length)) {
      best = &o;
      best_length = key.size();
    }
  }
  if (best != nullptr) {
    return InputError("--set " + *best, 0, e.key(), e.problem());
  }
  // A key with no line in the file that a --set's path passes through was made by that --set (`--set a.b.c=1`
  // creates the unknown key `a`).
  if (e.line() <= 0 && !e.key().empty()) {
    for (auto o = overrides.rbegin(); o != overrides.rend(); ++o) {
      if (o->substr(0, o->find('=')).rfind(e.key() + ".", 0) == 0) {
        return InputError("--set " + *o, 0, e.key(), e.problem());
      }
    }
  }
  return e;
}

wire::Fabric fabric_of(const std::string& name) {
  return name == "infiniband" ? wire::Fabric::kInfiniband
         : name == "roce-v1"  ? wire::Fabric::kRoceV1
                              : wire::Fabric::kRoceV2;
}

namespace {
// What InfiniBand does not have or rocesim does not model on it: errors for what cannot run, a warning for
// settings that mean nothing there (docs/scenario.md, "Fabrics").
void check_fabric(Scenario& sc, const YAML::Node& root) {
  if (sc.top.fabric != "infiniband") {
    if (root["infiniband"]) {
      sc.fabric_warnings.push_back(fmt::format("{}:{}: infiniband: has no effect with fabric: {}", sc.file,
                                               line_of(root["infiniband"]), sc.top.fabric));
    }
    return;
  }
  if (!sc.events.empty()) {
    throw InputError(sc.file, line_of(root["events"]), "events",
                     "fabric: infiniband does not model link failures or NIC faults (its links' credits would "
                     "have to be re-initialised); remove events or use fabric: roce-v2");
  }
  if (sc.capture) {
    throw InputError(sc.file, line_of(root["capture"]), "capture",
                     "captures are Ethernet (pcap); fabric: infiniband has no Ethernet frames to write");
  }
  const YAML::Node sw = root["switch"];
  if (sw.IsMap() && sw["pfc"]) {
    sc.fabric_warnings.push_back(
        fmt::format("{}:{}: switch.pfc: has no effect with fabric: infiniband: credits keep every virtual lane "
                    "lossless, and no PFC frame is sent",
                    sc.file, line_of(sw["pfc"])));
  }
  if (sw.IsMap() && sw["ecn"]) {
    sc.fabric_warnings.push_back(
        fmt::format("{}:{}: switch.ecn: has no effect with fabric: infiniband: switches mark FECN by "
                    "infiniband.fecn_threshold and infiniband.marking_rate",
                    sc.file, line_of(sw["ecn"])));
  }
  for (const char* key : {"admission", "buffer"}) {
    if (sw.IsMap() && sw[key]) {
      sc.fabric_warnings.push_back(
          fmt::format("{}:{}: switch.{}: has no effect with fabric: infiniband: each port's buffer per virtual lane is "
                      "infiniband.vl_buffer",
                      sc.file, line_of(sw[key]), key));
    }
  }
}

Scenario parse_scenario_tree(YAML::Node root, const std::string& file, const std::string& base_dir,
                             std::optional<int64_t> seed_override);

// The result files a scenario names (capture.file, output.hpcc.*): each a plain file name in the output folder,
// none the name of another result, so that no result replaces another or leaves the folder.
void check_output_names(const Scenario& sc, const YAML::Node& root) {
  std::vector<std::tuple<std::string, std::string, YAML::Node>> named;  // key, name, where the scenario says it
  if (sc.capture && !sc.capture->file.empty()) {
    named.emplace_back("capture.file", sc.capture->file, root["capture"]["file"]);
  }
  const YAML::Node hpcc = root["output"] ? root["output"]["hpcc"] : YAML::Node();
  for (const auto& [key, name] : {std::pair{"fct", &sc.output.hpcc.fct}, std::pair{"pfc", &sc.output.hpcc.pfc},
                                  std::pair{"qlen", &sc.output.hpcc.qlen}}) {
    if (!name->empty()) {
      named.emplace_back(std::string("output.hpcc.") + key, *name, hpcc ? hpcc[key] : YAML::Node());
    }
  }
  const auto& fixed = fixed_result_names();
  for (size_t i = 0; i < named.size(); ++i) {
    const auto& [key, name, at] = named[i];
    if (const auto bad = result_name_error(name)) {
      throw InputError(sc.file, line_of(at), key, *bad);
    }
    const bool own = key == "capture.file" && (name == "capture.pcap" || name == "capture.pcapng");
    if (!own && std::find(fixed.begin(), fixed.end(), name) != fixed.end()) {
      throw InputError(sc.file, line_of(at), key,
                       "'" + name + "' is a result rocesim writes under that name (docs/outputs.md); choose another");
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::get<1>(named[j]) == name) {
        throw InputError(sc.file, line_of(at), key, "the same file name as " + std::get<0>(named[j]));
      }
    }
  }
}

// The nodes a scenario's tree may expand to, aliases counted at each use: far above any real scenario (its flow
// lists live in flow files), far below what a few nested aliases reach ("billion laughs": 9 levels of 9 make 9^9).
constexpr size_t kMaxExpandedNodes = 1'000'000;

// Walks the tree once before anything else reads it. YAML allows a key twice in a mapping only in the sense that
// a parser may pick either copy (YAML 1.2, 3.2.1.1 says keys are unique); yaml-cpp keeps both and lookups find
// the first: a repeated key is an error. An alias inside the node it names (`a: &x [*x]`) makes the tree a cycle
// that every later walk would follow forever, and nested aliases expand exponentially: both are errors here.
class TreeCheck {
 public:
  explicit TreeCheck(const std::string& file) : file_(file) {}
  void walk(const YAML::Node& n, const std::string& path) {
    if (++visited_ > kMaxExpandedNodes) {
      throw InputError(file_, line_of(n), path,
                       fmt::format("the scenario expands to more than {} values (aliases used inside aliases?); "
                                   "write it without nested aliases",
                                   kMaxExpandedNodes));
    }
    if (!n.IsMap() && !n.IsSequence()) {
      return;
    }
    for (const YAML::Node& up : ancestors_) {
      if (up.is(n)) {
        throw InputError(file_, line_of(n), path, "an alias inside the value it names: the value would never end");
      }
    }
    ancestors_.push_back(n);
    if (n.IsMap()) {
      std::vector<std::pair<std::string, int>> seen;
      for (const auto& kv : n) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
        const std::string at = path.empty() ? key : path + "." + key;
        for (const auto& [k, line] : seen) {
          if (kv.first.IsScalar() && k == key) {
            const std::string where =
                line == line_of(kv.first) ? "" : fmt::format(" (lines {} and {})", line, line_of(kv.first));
            throw InputError(file_, line_of(kv.first), at, "given twice" + where + "; give each key once");
          }
        }
        seen.emplace_back(key, line_of(kv.first));
        walk(kv.second, at);
      }
    } else {
      for (size_t i = 0; i < n.size(); ++i) {
        walk(n[i], path + "." + std::to_string(i));
      }
    }
    ancestors_.pop_back();
  }

 private:
  const std::string& file_;
  std::vector<YAML::Node> ancestors_;
  size_t visited_ = 0;
};

void check_tree(const YAML::Node& root, const std::string& file) { TreeCheck(file).walk(root, ""); }
}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& file, const std::string& base_dir,
                        const std::vector<std::string>& overrides, std::optional<int64_t> seed_override) {
  // Names and strings reach summary.json, which is UTF-8: other bytes are refused here, not after the run.
  if (const size_t bad = invalid_utf8(text); bad != std::string::npos) {
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    throw InputError(file, line, "", fmt::format("byte {} is not UTF-8 text", bad));
  }
  for (const std::string& o : overrides) {
    if (invalid_utf8(o) != std::string::npos) {
      throw InputError("--set", 0, o, "not UTF-8 text");
    }
  }
  YAML::Node root;
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1) {
      throw InputError(file, line_of(docs[1]), "",
                       "a second YAML document (after '---'): a scenario is one document; remove it or the '---'");
    }
    root = docs.empty() ? YAML::Node() : docs.front();
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  }
  if (root.IsNull()) {
    root = YAML::Node(YAML::NodeType::Map);
  }
  if (!root.IsMap()) {
    throw InputError(file, line_of(root), "", "a scenario is a YAML mapping (seed:, stop:, topology:, ...)");
  }
  check_tree(root, file);
  for (const auto& o : overrides) {
    apply_override(root, o, file);
  }
  try {
    check_tree(root, file);  // an override's value may repeat a key, or hold an alias, too
    Scenario sc = parse_scenario_tree(root, file, base_dir, seed_override);
    sc.overrides = overrides;
    return sc;
  } catch (const InputError& e) {
    throw attribute_to_override(e, overrides);
  }
}

namespace {
Scenario parse_scenario_tree(YAML::Node root, const std::string& file, const std::string& base_dir,
                             std::optional<int64_t> seed_override) {
  Scenario sc;
  const ParseCtx ctx{file, &sc.inputs};
  sc.file = file;
  sc.base_dir = base_dir;
  sc.top = ScenarioParams::schema().parse(root, ctx, "");
  if (seed_override) {
    sc.top.seed = *seed_override;
  }
  YAML::Node sw = root["switch"];
  sc.preset = apply_switch_preset(sw, ctx);
  sc.sw = SwitchParams::schema().parse(sw, ctx, "switch");
  const YAML::Node nic = root["nic"];
  sc.nic = NicParams::schema().parse(nic, ctx, "nic");
  sc.cc = parse_cc(nic.IsMap() ? nic["cc"] : YAML::Node(), ctx, "nic.cc");
  const YAML::Node tcp = root["tcp"];
  sc.tcp = TcpParams::schema().parse(tcp, ctx, "tcp");
  sc.tcp_cc = parse_tcp_cc(tcp.IsMap() ? tcp["cc"] : YAML::Node(), ctx, "tcp.cc");
  YAML::Node server = root["server"];
  sc.server_preset = apply_server_preset(server, ctx);
  sc.server = ServerParams::schema().parse(server, ctx, "server");
  sc.graph = build_topology(root["topology"], ctx, base_dir);
  sc.workload_node = root["workload"];
  sc.routing = RoutingParams::schema().parse(root["routing"], ctx, "routing");
  sc.engine_node = root["engine"];
  sc.output_node = root["output"];
  sc.engine = EngineParams::schema().parse(sc.engine_node, ctx, "engine");
  sc.ib = InfinibandParams::schema().parse(root["infiniband"], ctx, "infiniband");
  sc.events = parse_fabric_events(root["events"], ctx);
  sc.output = OutputParams::schema().parse(root["output"], ctx, "output");
  if (root["capture"] && !root["capture"].IsNull()) {
    sc.capture = CaptureParams::schema().parse(root["capture"], ctx, "capture");
  }
  check_fabric(sc, root);
  check_output_names(sc, root);
  if (sc.workload_node.IsDefined() && !sc.workload_node.IsNull() && !sc.workload_node.IsSequence()) {
    throw InputError(file, line_of(sc.workload_node), "workload", "expected a list of workloads (- type: ...)");
  }
  return sc;
}
}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       std::optional<int64_t> seed_override) {
  check_input_file(path, path, 0, "");
  std::ifstream in(path);
  if (!in) {
    throw InputError(path, 0, "", std::filesystem::exists(path) ? "cannot read the file" : "no such file");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const auto dir = std::filesystem::path(path).parent_path();
  Scenario sc = parse_scenario(ss.str(), path, dir.empty() ? "." : dir.string(), overrides, seed_override);
  sc.inputs.insert(sc.inputs.begin(), path);
  return sc;
}

Simulation::Simulation(Scenario sc) : sc_(std::move(sc)) {
  try {
    engine_ = std::make_unique<Engine>(static_cast<uint64_t>(sc_.top.seed), plan_partitions(), threads_);
    build();
  } catch (const InputError& e) {
    throw attribute_to_override(e, sc_.overrides);
  }
}

namespace {

// What a run holds, estimated from above (measured: about 3 KB per NIC and switch port on a k=92 fat-tree; 1.0 to
// 1.3 KB per flow with cc none, DCQCN and HPCC for its queue pair, congestion state and record, plus its results
// row; 540-600 B per collective message kept, from 128 to 512 GPUs), with the forwarding tables
// (route_table_bytes). `records`: collective messages' records kept (one per message, or per group).
double estimated_memory(const TopologyGraph& g, size_t flows, double records = 0) {
  constexpr double kBase = 32e6, kPerPort = 4096, kPerFlow = 2048, kPerRecord = 640;
  size_t switches = 0;
  for (const auto& n : g.nodes) {
    switches += n.is_nic() ? 0 : 1;
  }
  const double ports = 2.0 * static_cast<double>(g.links.size());
  return kBase + kPerPort * ports + route_table_bytes(switches, g.hosts.size()) +
         kPerFlow * static_cast<double>(flows) + kPerRecord * records;
}

// Refuses the run if its estimate is above the limit; returns the estimate.
double check_memory(const Scenario& sc, size_t flows, const std::string& key, int line, double records = 0) {
  const double need = estimated_memory(sc.graph, flows, records);
  if (sc.memory_limit > 0 && need > sc.memory_limit) {
    throw InputError(sc.file, line, key,
                     fmt::format("the run would need about {:.3g} GB ({} nodes, {} links, {} flows{}), above the "
                                 "{:.3g} GB that {} leaves it: simulate less{}",
                                 need / 1e9, sc.graph.nodes.size(), sc.graph.links.size(), flows,
                                 records > 0 ? fmt::format(", {:.0f} collective message records", records) : "",
                                 sc.memory_limit / 1e9, sc.memory_limit_source,
                                 records > 0 && sc.output.flows != "aggregate" && sc.output.flows != "off"
                                     ? ", or keep collective messages per call (output.flows: aggregate)"
                                     : ""));
  }
  return need;
}

}  // namespace

Partitioning Simulation::plan_partitions() {
  threads_ = resolve_threads(sc_.engine.threads);
  const wire::Fabric fabric = fabric_of(sc_.top.fabric);
  const std::vector<std::string>& assign = sc_.engine.assign;
  if (!assign.empty() && sc_.engine.partitions != "auto" &&
      std::stoll(sc_.engine.partitions) != static_cast<int64_t>(assign.size())) {
    throw InputError(sc_.file, line_of(sc_.engine_node["partitions"]), "engine.partitions",
                     fmt::format("{} partitions, but engine.assign gives {}: leave it out, or make them agree",
                                 sc_.engine.partitions, assign.size()));
  }
  const size_t units = sc_.graph.nodes.empty() ? 0 : [&] {
    const std::vector<uint32_t> u = units_of(sc_.graph);
    return static_cast<size_t>(*std::max_element(u.begin(), u.end())) + 1;
  }();
  size_t parts = assign.empty() ? static_cast<size_t>(threads_) : assign.size();
  if (assign.empty() && sc_.engine.partitions != "auto") {
    parts = static_cast<size_t>(std::stoll(sc_.engine.partitions));
    if (parts > units) {
      throw InputError(sc_.file, line_of(sc_.engine_node["partitions"]), "engine.partitions",
                       fmt::format("{} partitions, but the network has only {} switches and servers to share out "
                                   "(a switch, or a server with its NICs, is never cut)",
                                   parts, units));
    }
  }
  if (assign.empty()) {
    parts = std::max<size_t>(1, std::min(parts, units));
  }
  if (parts > 1) {
    if (const size_t joins = zero_delay_joins(sc_.graph); joins > 0) {
      notes_.push_back(
          fmt::format("engine: {} link{} without delay keep the nodes at their ends in one partition "
                      "(a cut needs latency): {} switches and servers to share out",
                      joins, joins == 1 ? "" : "s", units));
    }
  }
  if (!assign.empty()) {
    try {
      return partition_named(sc_.graph, assign, fabric);
    } catch (const AssignmentError& e) {
      const YAML::Node n = sc_.engine_node["assign"];
      const YAML::Node at = e.partition < assign.size() && n.IsSequence() ? n[e.partition] : n;
      throw InputError(
          sc_.file, line_of(at), "engine.assign",
          e.partition < assign.size() ? fmt::format("partition {}: {}", e.partition, e.message) : e.message);
    }
  }
  return partition_fabric(sc_.graph, parts, fabric);
}

void Simulation::build() {
  check_memory(sc_, 0, "topology", 0);
  net_ = std::make_unique<Network>(*engine_, sc_.graph, sc_.sw, sc_.nic, *sc_.cc, fabric_of(sc_.top.fabric), sc_.file);
  if (net_->fabric() == wire::Fabric::kInfiniband) {
    net_->use_credits(sc_.ib);
  }
  net_->schedule_events(sc_.events, sc_.routing, sc_.file);
  if (sc_.routing.ecmp == "hpcc-ns3") {
    net_->use_hpcc_ecmp(static_cast<uint16_t>(sc_.routing.ecmp_dport));
  }
  net_->attach_servers(sc_.server, sc_.file);
  net_->set_tcp(sc_.tcp, *sc_.tcp_cc);
  const ParseCtx ctx{sc_.file, &sc_.inputs};
  WorkloadContext wc{
      static_cast<uint32_t>(net_->num_hosts()), sc_.top.stop, sc_.base_dir, {}, {}, {}, {}, sc_.server.gpus};
  for (uint32_t h = 0; h < net_->num_hosts(); ++h) {
    wc.host_rate.push_back(net_->nic(h).link().rate);
    wc.endpoint_names.push_back(net_->nic(h).name());
  }
  for (size_t s = 0; s < net_->num_servers(); ++s) {
    wc.server_nics.emplace_back();
    for (size_t k = 0; k < net_->server(s).num_nics(); ++k) {
      wc.server_nics.back().push_back(net_->server(s).endpoint(k));
    }
  }
  wc.node_host.assign(sc_.graph.nodes.size(), -1);
  for (size_t h = 0; h < sc_.graph.hosts.size(); ++h) {
    wc.node_host[sc_.graph.hosts[h]] = static_cast<int>(h);
  }
  nlohmann::json workloads = nlohmann::json::array();
  std::vector<std::string> deferred_warnings;
  if (sc_.workload_node.IsSequence()) {
    for (size_t i = 0; i < sc_.workload_node.size(); ++i) {
      const std::string path = "workload." + std::to_string(i);
      Rng rng = sim().rng(path);
      WorkloadFlows w = generate_workload(sc_.workload_node[i], ctx, path, wc, rng);
      check_memory(sc_, net_->setup_flows() + w.flows.size(), path, line_of(sc_.workload_node[i]));
      const auto base = static_cast<int64_t>(net_->setup_flows());
      bool tcp_lossless = false;
      for (FlowSpec& f : w.flows) {
        if (f.after >= 0) {
          f.after += base;  // an index into this workload's flows becomes a flow id
        }
        if (!net_->priority_usable(f.priority)) {
          throw InputError(sc_.file, line_of(sc_.workload_node[i]), path + ".priority",
                           "no DSCP in switch.dscp_map selects priority " + std::to_string(f.priority));
        }
        f.workload = static_cast<uint16_t>(i);
        if (f.transport != Transport::kRdma && net_->fabric() == wire::Fabric::kInfiniband) {
          throw InputError(sc_.file, line_of(sc_.workload_node[i]["transport"]), path + ".transport",
                           std::string(to_string(f.transport)) +
                               " runs over Ethernet and IP; fabric: infiniband carries RDMA only (IP over "
                               "InfiniBand is not modelled)");
        }
        uses_tcp_ = uses_tcp_ || f.transport != Transport::kRdma;
        tcp_lossless = tcp_lossless ||
                       (f.transport == Transport::kTcp &&
                        std::ranges::find(sc_.sw.pfc.priorities, int64_t{f.priority}) != sc_.sw.pfc.priorities.end());
        net_->add_flow(f);
      }
      if (w.install) {
        if (auto report = w.install(*net_, static_cast<uint16_t>(i))) {
          reports_.push_back(std::move(report));
        }
      }
      // Kernel TCP recovers from loss; on a lossless class it is paused instead, and its pauses reach the RDMA
      // traffic sharing the class.
      if (tcp_lossless && !sc_.tcp.lossless_ok) {
        deferred_warnings.push_back(fmt::format(
            "{}:{}: {}.transport: kernel TCP on priority {}, which switch.pfc.priorities makes lossless: it is paused "
            "instead of dropping, and its pauses hold the RDMA traffic of that priority; give the workload a lossy "
            "priority (e.g. priority: 0), or set tcp.lossless_ok: true if this is meant",
            sc_.file, line_of(sc_.workload_node[i]["transport"]), path, w.flows.front().priority));
      }
      workloads.push_back(w.resolved);
      workload_flows_.push_back(w.flows.size());
    }
  }
  keep_records();
  warnings_ = sc_.graph.warnings;
  warnings_.insert(warnings_.end(), sc_.fabric_warnings.begin(), sc_.fabric_warnings.end());
  warnings_.insert(warnings_.end(), deferred_warnings.begin(), deferred_warnings.end());
  if (sc_.preset) {
    for (const PresetUse::Override& o : sc_.preset->overrides) {
      warnings_.push_back(fmt::format("{}: {} is {}, not switch.preset {}'s {}: the scenario's value applies", sc_.file,
                                      o.key, o.value, sc_.preset->name, o.preset_value));
    }
  }
  if (sc_.server_preset) {
    for (const PresetUse::Override& o : sc_.server_preset->overrides) {
      warnings_.push_back(fmt::format("{}: {} is {}, not server.preset {}'s {}: the scenario's value applies", sc_.file,
                                      o.key, o.value, sc_.server_preset->name, o.preset_value));
    }
  }
  // Explicit PFC headroom below what a link needs: frames sent after XOFF overflow it and are dropped.
  {
    int ports = 0;
    Bytes need;
    std::string example;
    for (const auto& sw : net_->switches()) {
      const Switch::ShortHeadroom& h = sw->short_headroom();
      if (h.ports > 0 && (ports == 0 || h.need > need)) {
        need = h.need;
        example = sw->name() + ":" + std::to_string(h.example);
      }
      ports += h.ports;
    }
    if (ports > 0) {
      warnings_.push_back(fmt::format(
          "{}: switch.pfc.headroom {} is below what {} switch port(s) need for their links (up to {}, at {}): frames "
          "in flight after a pause can overflow it and be dropped (headroom_overflow); auto sizes it per link",
          sc_.file, sc_.sw.pfc.headroom, ports, to_string(need), example));
    }
  }
  for (std::string& w : overload_warnings(*net_, sc_.top.stop)) {
    warnings_.push_back(sc_.file + ": " + w);
  }
  if (sc_.capture) {
    capture_ = std::make_unique<Capture>(*sc_.capture, *net_, *engine_, sc_.file);
  }
  timeseries_ = std::make_unique<TimeSeries>(sc_.output.timeseries, *engine_, *net_, sc_.file);
  if (sc_.sw.pfc.deadlock.detect_after > Time()) {
    deadlock_ = std::make_unique<DeadlockDetector>(sc_.sw.pfc.deadlock, sc_.sw.pfc.priorities, *engine_, *net_);
  }
  if (sc_.output.hpcc.any()) {
    hpcc_ = std::make_unique<HpccOutputs>(sc_.output.hpcc, *engine_, *net_);
  }
  if (sc_.output.trace.enabled()) {
    trace_ = std::make_unique<Trace>(sc_.output.trace, *engine_, *net_, sc_.file);
  }
  resolved_ = ScenarioParams::schema().dump(sc_.top);
  resolved_["topology"] = sc_.graph.resolved;
  resolved_["switch"] = SwitchParams::schema().dump(sc_.sw);
  if (sc_.preset) {  // the values above already hold the preset's; summary.json says which keys overrode it
    resolved_["switch"]["preset"] = sc_.preset->name;
  }
  resolved_["nic"] = NicParams::schema().dump(sc_.nic);
  resolved_["nic"]["cc"] = sc_.cc->dump();
  if (sc_.top.fabric == "infiniband") {
    resolved_["infiniband"] = InfinibandParams::schema().dump(sc_.ib);
  }
  if (uses_tcp_) {
    resolved_["tcp"] = TcpParams::schema().dump(sc_.tcp);
    resolved_["tcp"]["cc"] = sc_.tcp_cc->dump();
    resolved_["tcp"]["cpu_cores"] = sc_.server.cpu_cores;
    resolved_["tcp"]["cpu_ghz"] = sc_.server.cpu_ghz;
  }
  if (sc_.server.gpus > 0) {
    resolved_["server"] = ServerParams::schema().dump(sc_.server);
    if (sc_.server_preset) {
      resolved_["server"]["preset"] = sc_.server_preset->name;
    }
  }
  resolved_["workload"] = workloads;
  resolved_["output"] = OutputParams::schema().dump(sc_.output);
  resolved_["routing"] = RoutingParams::schema().dump(sc_.routing);
  if (!sc_.events.empty()) {
    nlohmann::json ev = nlohmann::json::array();
    for (const FabricEvent& e : sc_.events) {
      nlohmann::json one = {{"at", to_string(e.at)},
                            {"type", to_string(e.kind)},
                            {e.is_fault()  ? "nic"
                             : e.on_link() ? "link"
                                           : "switch",
                             e.target}};
      if (e.is_fault()) {
        one["priority"] = e.prio;
        one["until"] = e.until == Time::max() ? nlohmann::json() : nlohmann::json(to_string(e.until));
      }
      if (e.kind == FabricEvent::Kind::kSlowReceiver) {
        one["rate"] = to_string(e.rate);
      }
      ev.push_back(one);
    }
    resolved_["events"] = ev;
  }
  if (sc_.capture) {
    resolved_["capture"] = CaptureParams::schema().dump(*sc_.capture);
  }
}

void Simulation::keep_records() {
  // Past this many collective messages, auto keeps them per call and queue pair (one kept each is about 600 MB).
  constexpr double kAutoAggregate = 1e6;
  const ExpectedTraffic& e = net_->expected();
  std::string& mode = sc_.output.flows;
  if (mode == "auto") {
    const bool many = e.messages > kAutoAggregate;
    const bool fits =
        sc_.memory_limit <= 0 || estimated_memory(sc_.graph, net_->setup_flows(), e.messages) <= sc_.memory_limit;
    mode = many || !fits ? "aggregate" : "all";
    if (mode == "aggregate") {
      notes_.push_back(
          fmt::format("output.flows: {:.0f} collective messages{}: each call's messages are summed per queue pair in "
                      "messages.csv (output.flows: all keeps a flows.csv row for each)",
                      e.messages,
                      fits ? ""
                           : fmt::format(", too many to keep one record each in the {:.3g} GB that {} leaves",
                                         sc_.memory_limit / 1e9, sc_.memory_limit_source)));
    }
  }
  net_->group_records(mode != "all");
  const YAML::Node& out = sc_.output_node;
  // Not set: the line of the workloads that post the messages.
  const int line = out.IsMap() && out["flows"] ? line_of(out["flows"]) : line_of(sc_.workload_node);
  memory_estimate_ =
      check_memory(sc_, net_->setup_flows(), "output.flows", line, mode == "all" ? e.messages : e.groups);
}

double Simulation::run(const std::function<void(const RunProgress&)>& progress, uint64_t progress_every) {
  const auto t0 = std::chrono::steady_clock::now();
  if (engine_->held() > 0) {
    engine_->run(sc_.top.stop, progress, progress_every);
  }
  if (capture_) {
    capture_->collect();
  }
  if (trace_) {
    trace_->collect();
  }
  if (hpcc_) {
    hpcc_->collect();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<ParamDoc> all_params() {
  std::vector<ParamDoc> out;
  ScenarioParams::schema().describe("", out);
  topology_registry().describe(out);
  SwitchParams::schema().describe("switch", out);
  NicParams::schema().describe("nic", out);
  ServerParams::schema().describe("server", out);
  cc_registry().describe(out);
  TcpParams::schema().describe("tcp", out);
  InfinibandParams::schema().describe("infiniband", out);
  tcp_cc_registry().describe(out);
  workload_registry().describe(out, "workload[].type", "workload");
  RoutingParams::schema().describe("routing", out);
  EngineParams::schema().describe("engine", out);
  describe_fabric_events(out);
  CaptureParams::schema().describe("capture", out);
  OutputParams::schema().describe("output", out);
  // Reserved keys are documented by their own sections.
  std::vector<ParamDoc> filtered;
  for (auto& d : out) {
    if (d.type == "string" && d.default_text.empty() && d.key.find('.') == std::string::npos && d.key != "name") {
      continue;
    }
    filtered.push_back(d);
  }
  return filtered;
}

std::string scenario_reference_markdown() {
  std::string md =
      "# Scenario reference\n\n"
      "Generated from the parameter declarations in the source (`rocesim params --markdown`); a test keeps this\n"
      "file in step with them. Sizes take B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024);\n"
      "times take ps, ns, us, ms, s; rates take bps, Kbps, Mbps, Gbps, Tbps. `topology[leaf-spine].leaves` means\n"
      "the key `leaves` of a `topology` whose `type` is `leaf-spine`.\n\n"
      "| key | type | default | doc |\n|---|---|---|---|\n";
  for (const auto& d : all_params()) {
    md += "| `" + d.key + "` | " + d.type + (d.unit.empty() ? "" : " (" + d.unit + ")") + " | " +
          (d.default_text.empty() ? "" : "`" + d.default_text + "`") + " | " + d.doc + " |\n";
  }
  return md;
}

}  // namespace rocesim
