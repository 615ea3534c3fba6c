#include "rocesim/io/scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rocesim/io/output.hpp"
#include "rocesim/switch/presets.hpp"
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
// Where each YAML document of a text starts, for the first `most` of them. yaml-cpp 0.7's LoadAll loops forever,
// allocating, on a stray flow indicator such as a leading ',' (jbeder/yaml-cpp issue 1040; fixed by pull request
// 1319, after the version Debian 12 ships): its parser reports a document without consuming the token. Counting
// with a bounded loop finds that (a second document starting where the first did) without looping.
std::vector<YAML::Mark> document_starts(const std::string& text, size_t most) {
  struct Starts final : YAML::EventHandler {
    std::vector<YAML::Mark> at;
    void OnDocumentStart(const YAML::Mark& m) override { at.push_back(m); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  } starts;
  std::istringstream in(text);
  YAML::Parser parser(in);
  while (starts.at.size() < most && parser.HandleNextDocument(starts)) {
  }
  return starts.at;
}

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
  if (sc.nic.irn()) {
    throw InputError(sc.file, line_of(root["nic"]["loss_recovery"]), "nic.loss_recovery",
                     "irn is RoCE without PFC (Mittal et al., SIGCOMM 2018); InfiniBand's credits never drop a "
                     "packet, so it has no loss recovery to replace: use go_back_n or fabric: roce-v2");
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
// and no two the same. That none is the name of another result is checked when the run's outputs are made.
void check_output_names(Scenario& sc, const YAML::Node& root) {
  if (sc.capture && !sc.capture->file.empty()) {
    sc.named_results.push_back({"capture.file", sc.capture->file, line_of(root["capture"]["file"])});
  }
  const YAML::Node hpcc = root["output"] ? root["output"]["hpcc"] : YAML::Node();
  for (const auto& [key, name] : {std::pair{"fct", &sc.output.hpcc.fct}, std::pair{"pfc", &sc.output.hpcc.pfc},
                                  std::pair{"qlen", &sc.output.hpcc.qlen}}) {
    if (!name->empty()) {
      sc.named_results.push_back(
          {std::string("output.hpcc.") + key, *name, hpcc && hpcc[key] ? line_of(hpcc[key]) : 0});
    }
  }
  for (size_t i = 0; i < sc.named_results.size(); ++i) {
    const Scenario::NamedResult& r = sc.named_results[i];
    if (const auto bad = result_name_error(r.name)) {
      throw InputError(sc.file, r.line, r.key, *bad);
    }
    for (size_t j = 0; j < i; ++j) {
      if (sc.named_results[j].name == r.name) {
        throw InputError(sc.file, r.line, r.key, "the same file name as " + sc.named_results[j].key);
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
    const std::vector<YAML::Mark> docs = document_starts(text, 2);
    if (docs.size() > 1 && docs[1].pos == docs[0].pos) {
      throw InputError(file, docs[1].line + 1, "",
                       fmt::format("malformed YAML: nothing can be read from column {} on", docs[1].column + 1));
    }
    if (docs.size() > 1) {
      throw InputError(file, docs[1].line + 1, "",
                       "a second YAML document (after '---'): a scenario is one document; remove it or the '---'");
    }
    root = YAML::Load(text);
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
  YAML::Node nic = root["nic"];
  sc.nic_preset = apply_nic_preset(nic, ctx);
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
  sc.balance =
      parse_balance(root["routing"].IsMap() ? root["routing"]["balance"] : YAML::Node(), ctx, "routing.balance");
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
  balance_registry().describe(out);
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
