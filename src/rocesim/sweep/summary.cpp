#include "rocesim/sweep/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace rocesim {

const SummaryColumn kSweepColumns[] = {
    {"flows_total", "/flows/total"},
    {"flows_completed", "/flows/completed"},
    {"fct_slowdown_p50", "/fct_slowdown/p50"},
    {"fct_slowdown_p95", "/fct_slowdown/p95"},
    {"fct_slowdown_p99", "/fct_slowdown/p99"},
    {"fct_p50_ns", "/fct_ns/p50"},
    {"fct_p99_ns", "/fct_ns/p99"},
    {"fct_max_ns", "/fct_ns/max"},
    {"drops", "/drops/total"},
    {"lossless_drops", "/drops/lossless"},
    {"pause_frames", "/pfc/pause_frames"},
    {"ecn_marked", "/ecn/marked"},
    {"cnp_sent", "/cnp/sent"},
    {"retransmits", "/transport/retransmits"},
    {"cpu_core_s", "/cpu/core_seconds"},
    {"cpu_max_server_s", "/cpu/max_server_core_seconds"},
    {"sim_time_ns", "/sim_time_ns"},
    {"wall_time_s", "/wall_time_s"},
};
const size_t kSweepColumnCount = std::size(kSweepColumns);

namespace {

std::string cell(const nlohmann::json& j, const char* pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.is_object() || !j.contains(p) || j[p].is_null()) {
    return "";
  }
  const nlohmann::json& v = j[p];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// A string field of a collectives_by_op entry, or "" (a summary.json edited by hand may hold anything).
std::string text_field(const nlohmann::json& c, const char* key) {
  return c.is_object() && c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : "";
}

// The (workload, operation) pairs of summary.json's collectives_by_op in any of the runs, in the order they first
// appear (the first run's first).
std::vector<std::pair<std::string, std::string>> collective_ops(
    const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, j] : runs) {
    if (!j.is_object() || !j.contains("collectives_by_op") || !j["collectives_by_op"].is_array()) {
      continue;
    }
    for (const nlohmann::json& c : j["collectives_by_op"]) {
      std::pair<std::string, std::string> key{text_field(c, "workload"), text_field(c, "op")};
      if (!key.second.empty() && std::find(out.begin(), out.end(), key) == out.end()) {
        out.push_back(std::move(key));
      }
    }
  }
  return out;
}

size_t collective_workloads(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  std::vector<std::string> seen;
  for (const auto& [workload, op] : collective_ops(runs)) {
    if (std::find(seen.begin(), seen.end(), workload) == seen.end()) {
      seen.push_back(workload);
    }
  }
  return seen.size();
}

// `key` of the collectives_by_op entry of (workload, op) in `j`, or "" where it has none.
std::string collective_cell(const nlohmann::json& j, const std::string& workload, const std::string& op,
                            const char* key) {
  if (!j.is_object() || !j.contains("collectives_by_op") || !j["collectives_by_op"].is_array()) {
    return "";
  }
  for (const nlohmann::json& c : j["collectives_by_op"]) {
    if (text_field(c, "workload") == workload && text_field(c, "op") == op && c.contains(key) && !c[key].is_null()) {
      return c[key].dump();
    }
  }
  return "";
}

}  // namespace

std::string run_status(RunState state, const SweepRun& run, const std::map<std::string, int>& exit_codes) {
  const auto it = exit_codes.find(run.name);
  // An interrupted run exits 128 + the signal with its partial results: partial, not failed.
  if (state != RunState::kComplete && state != RunState::kPartial && it != exit_codes.end() && it->second != 0) {
    return "failed";
  }
  return to_string(state);
}

std::string sweep_summary_csv(const Manifest& m, const std::string& sweep_dir,
                              const std::map<std::string, int>& exit_codes) {
  std::string out = "run";
  for (const GridAxis& a : m.axes) {
    out += "," + csv_field(a.key);
  }
  out += ",seed,status";
  for (const SummaryColumn& c : kSweepColumns) {
    out += std::string(",") + c.column;
  }
  out += "\n";
  for (const SweepRun& r : m.runs) {
    const nlohmann::json summary = run_summary(sweep_dir, r);
    const RunState state = state_of(summary, r);
    const nlohmann::json j = state == RunState::kComplete || state == RunState::kPartial ? summary : nlohmann::json();
    const std::string status = run_status(state, r, exit_codes);
    out += r.name;
    for (const auto& [k, v] : r.point.values) {
      out += "," + csv_field(v);
    }
    out += "," + (r.point.seed ? std::to_string(*r.point.seed) : cell(j, "/scenario/seed"));
    out += "," + status;
    for (const SummaryColumn& c : kSweepColumns) {
      out += "," + csv_field(cell(j, c.pointer));
    }
    out += "\n";
  }
  return out;
}

std::string compare_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  std::vector<std::vector<std::string>> rows{{"result"}};
  for (size_t i = 0; i < runs.size(); ++i) {
    rows[0].push_back(runs[i].first);
    if (i > 0) {
      rows[0].push_back("ratio");
    }
  }
  // One row: each run's value of `get`, and its ratio to the first run's where both are numbers.
  const auto add_row = [&](const std::string& name, const auto& get) {
    std::vector<std::string> row{name};
    const std::string first = get(runs.front().second);
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string v = get(runs[i].second);
      row.push_back(v.empty() ? "-" : v);
      if (i > 0) {
        std::string ratio = "-";
        try {
          const double a = std::stod(first), b = std::stod(v);
          if (a != 0) {
            ratio = fmt::format("{:.3f}", b / a);
          }
        } catch (const std::exception&) {
        }
        row.push_back(ratio);
      }
    }
    rows.push_back(std::move(row));
  };
  for (const SummaryColumn& c : kSweepColumns) {
    add_row(c.column, [&c](const nlohmann::json& j) { return cell(j, c.pointer); });
  }
  const bool named = collective_workloads(runs) > 1;
  for (const auto& [workload, op] : collective_ops(runs)) {
    const auto field = [&, w = workload, o = op](const char* key) {
      return [=](const nlohmann::json& j) { return collective_cell(j, w, o, key); };
    };
    const std::string label = named ? fmt::format("{} ({})", op, workload) : op;
    add_row(fmt::format("{} busbw_GBps", label), field("busbw_GBps"));
    add_row(fmt::format("{} time_us", label), field("time_us"));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t k = 0; k < r.size(); ++k) {
      width[k] = std::max(width[k], r[k].size());
    }
  }
  std::string out;
  for (const auto& r : rows) {
    for (size_t k = 0; k < r.size(); ++k) {
      out += k == 0 ? fmt::format("{:<{}}", r[k], width[k]) : fmt::format("  {:>{}}", r[k], width[k]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace rocesim
