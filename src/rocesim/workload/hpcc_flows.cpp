// The HPCC ns-3 simulator's flow file (docs/hpcc-compat.md): the number of flows, then one flow per line,
//   src dst pg dport size start_time        node ids, priority group, destination port, bytes, seconds
// e.g. "2 1 3 100 200000 2.000001". Flows are RDMA WRITEs on priority `pg`.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rocesim/core/text.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct HpccFlowParams {
  std::string path;
  static const Schema<HpccFlowParams>& schema() {
    static const Schema<HpccFlowParams> s =
        Schema<HpccFlowParams>("hpcc-flows workload", "a flow file in the HPCC ns-3 simulator's format")
            .reserved("type", "hpcc-flows")
            .reserved("transport", kTransportDoc)
            .add(&HpccFlowParams::path, "path", "flow.txt", "the file, relative to the scenario file");
    return s;
  }
};
}  // namespace

std::vector<FlowSpec> read_hpcc_flows(std::istream& in, const std::string& f, const std::vector<int>& node_host) {
  std::string line;
  int lineno = 0;
  int64_t count = -1;
  if (!next_content_line(in, line, lineno) || !(std::istringstream(line) >> count) || count < 0) {
    throw InputError(f, std::max(lineno, 1), "header", "expected the number of flows on the first line");
  }
  std::vector<FlowSpec> flows;
  const auto node = [&](int64_t id, const char* what) -> uint32_t {
    if (id < 0 || static_cast<size_t>(id) >= node_host.size()) {
      throw InputError(
          f, lineno, what,
          "node " + std::to_string(id) + " does not exist (0.." + std::to_string(node_host.size() - 1) + ")");
    }
    if (node_host[static_cast<size_t>(id)] < 0) {
      throw InputError(f, lineno, what, "node " + std::to_string(id) + " is a switch; flows go between hosts");
    }
    return static_cast<uint32_t>(node_host[static_cast<size_t>(id)]);
  };
  // Source ports as that simulator numbers them: 10000, 10001, ... per (src, dst) pair (scratch/third.cc,
  // portNumder), so that its ECMP hash (routing.ecmp: hpcc-ns3) puts each flow on the same path.
  std::map<std::pair<uint32_t, uint32_t>, uint16_t> next_sport;
  for (int64_t k = 0; k < count; ++k) {
    if (!next_content_line(in, line, lineno)) {
      throw InputError(f, lineno, "flows",
                       "the first line says " + std::to_string(count) + " flows, the file has " + std::to_string(k));
    }
    std::istringstream ss(line);
    int64_t src = 0, dst = 0, pg = 0, dport = 0, size = 0;
    double start = 0;
    if (!(ss >> src >> dst >> pg >> dport >> size >> start)) {
      throw InputError(f, lineno, "flow", "expected 'src dst pg dport size start_time'");
    }
    FlowSpec fl;
    fl.src = node(src, "src");
    fl.dst = node(dst, "dst");
    if (fl.src == fl.dst) {
      throw InputError(f, lineno, "dst", "a flow needs two different hosts");
    }
    if (pg < 0 || pg > 7) {
      throw InputError(f, lineno, "pg", "priority group must be 0..7");
    }
    if (const auto bad = flow_size_error(Bytes(size))) {
      throw InputError(f, lineno, "size", *bad);
    }
    if (!(start >= 0) || !(start <= 1e6)) {  // Time holds 9.2e6 s in picoseconds
      throw InputError(f, lineno, "start_time", "must be a number of seconds from 0 to 1e6");
    }
    if (dport < 0 || dport > 65535) {
      throw InputError(f, lineno, "dport", "must be 0..65535");
    }
    fl.priority = static_cast<int>(pg);
    fl.app_port = static_cast<uint16_t>(dport);
    fl.size = Bytes(size);
    fl.start = Time::ps(std::llround(start * 1e12));
    fl.sport = next_sport.try_emplace({fl.src, fl.dst}, uint16_t{10000}).first->second++;
    flows.push_back(fl);
  }
  if (next_content_line(in, line, lineno)) {
    throw InputError(f, lineno, "flows", "more lines than the " + std::to_string(count) + " flows announced");
  }
  return flows;
}

namespace {
WorkloadFlows generate_hpcc_flows(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                  const WorkloadContext& wc, Rng&) {
  const HpccFlowParams p = HpccFlowParams::schema().parse(n, ctx, path);
  InputFile f = open_input(p.path, wc.base_dir, ctx, n["path"], path + ".path");
  WorkloadFlows out;
  out.flows = read_hpcc_flows(f.in, f.path, wc.node_host);
  out.resolved = HpccFlowParams::schema().dump(p);
  return out;
}

}  // namespace

static WorkloadEntry hpcc_flows_workload() {
  return {"hpcc-flows", "the HPCC ns-3 flow file", generate_hpcc_flows, describe_schema<HpccFlowParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> hpcc_flows_workload_registered(workload_registry(), hpcc_flows_workload());
}  // namespace

}  // namespace rocesim
