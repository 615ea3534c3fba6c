// Explicit flows from a CSV file with the header `src,dst,size,start,priority,operation`, e.g.
//   0,5,1MB,10us,3,write
//   host0.nic1,host4.nic1,1MB,10us,3,write
// An endpoint is its index (what outputs call a host) or its NIC's name.
// Sizes and times take units; operation is write, read (src reads size bytes from dst) or send (to a receive the
// responder has posted).
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocesim/core/text.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct FlowFileParams {
  std::string path;
  static const Schema<FlowFileParams>& schema() {
    static const Schema<FlowFileParams> s =
        Schema<FlowFileParams>("flows workload", "flows from a CSV file")
            .reserved("type", "flows")
            .reserved("transport", kTransportDoc)
            .add(&FlowFileParams::path, "path", "flows.csv",
                 "CSV file (src,dst,size,start,priority,operation; src and dst are endpoint indices or NIC "
                 "names), relative to the scenario");
    return s;
  }
};

int64_t parse_endpoint(const std::string& s, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) {
      return static_cast<int64_t>(i);
    }
  }
  if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) {
    return ParamTraits<int64_t>::parse(s);
  }
  throw UnitError{"no endpoint is named '" + s + "' (an index, or a NIC's name such as '" +
                  (names.empty() ? std::string("host0") : names.back()) + "')"};
}
}  // namespace

std::vector<FlowSpec> read_flow_csv(std::istream& in, const std::string& file, uint32_t hosts,
                                    const std::vector<std::string>& names) {
  std::vector<FlowSpec> flows;
  std::string line;
  int lineno = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim(line).empty() || trim(line)[0] == '#') {
      continue;
    }
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) {
      cols.push_back(trim(c));
    }
    if (!header) {
      if (cols != std::vector<std::string>{"src", "dst", "size", "start", "priority", "operation"}) {
        throw InputError(file, lineno, "header", "expected 'src,dst,size,start,priority,operation'");
      }
      header = true;
      continue;
    }
    if (cols.size() != 6) {
      throw InputError(file, lineno, "row", "expected 6 columns, got " + std::to_string(cols.size()));
    }
    FlowSpec f;
    const char* col = "src";
    try {
      const int64_t src = parse_endpoint(cols[0], names);
      col = "dst";
      const int64_t dst = parse_endpoint(cols[1], names);
      for (int64_t h : {src, dst}) {
        if (h < 0 || h >= hosts) {
          throw UnitError{"host " + std::to_string(h) + " does not exist (0.." + std::to_string(hosts - 1) + ")"};
        }
      }
      if (src == dst) {
        throw UnitError{"a flow needs two different hosts"};
      }
      f.src = static_cast<uint32_t>(src);
      f.dst = static_cast<uint32_t>(dst);
      col = "size";
      f.size = parse_bytes(cols[2]);
      if (const auto bad = flow_size_error(f.size)) {
        throw UnitError{*bad};
      }
      col = "start";
      f.start = parse_time(cols[3]);
      col = "priority";
      const int64_t prio = ParamTraits<int64_t>::parse(cols[4]);
      if (prio < 0 || prio > 7) {
        throw UnitError{"priority must be 0..7"};
      }
      f.priority = static_cast<int>(prio);
      col = "operation";
      if (!parse_op(cols[5], f.op)) {
        throw UnitError{"unknown operation '" + cols[5] + "' (write, read or send)"};
      }
    } catch (const UnitError& e) {
      throw InputError(file, lineno, col, e.message);
    }
    flows.push_back(f);
  }
  if (!header) {
    throw InputError(file, 0, "header", "empty flow file");
  }
  return flows;
}

namespace {
WorkloadFlows generate_flow_file(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                 const WorkloadContext& wc, Rng&) {
  const FlowFileParams p = FlowFileParams::schema().parse(n, ctx, path);
  InputFile f = open_input(p.path, wc.base_dir, ctx, n["path"], path + ".path");
  WorkloadFlows out;
  out.flows = read_flow_csv(f.in, f.path, wc.hosts, wc.endpoint_names);
  out.resolved = FlowFileParams::schema().dump(p);
  return out;
}

}  // namespace

static WorkloadEntry flow_file_workload() {
  return {"flows", "flows from a CSV file", generate_flow_file, describe_schema<FlowFileParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> flow_file_workload_registered(workload_registry(), flow_file_workload());
}  // namespace

}  // namespace rocesim
