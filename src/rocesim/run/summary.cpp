#include "rocesim/run/summary.hpp"

#include <algorithm>

namespace rocesim {
namespace {

// Adds `more` to `into`, a file of a name already there joined to it.
void join(OutputFiles& into, OutputFiles more) {
  for (auto& [name, content] : more) {
    auto it = std::find_if(into.begin(), into.end(), [&](const auto& f) { return f.first == name; });
    if (it == into.end()) {
      into.emplace_back(std::move(name), std::move(content));
    } else if (name.ends_with(".csv")) {
      it->second += content.substr(content.find('\n') + 1);  // one header
    } else {
      it->second += content;
    }
  }
}

std::vector<std::string> names_of(const OutputFiles& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    out.push_back(f.first);
  }
  return out;
}

}  // namespace

nlohmann::json summary_json(const Simulation& s, const RunInfo& info) {
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
  j["scenario"] = s.resolved();
  for (const auto& o : s.outputs()) {
    merge_summary(j, o->summary(info));
  }
  return j;
}

OutputFiles result_files(const Simulation& s, const RunInfo& info, const nlohmann::json& summary,
                         const std::string& label) {
  OutputFiles out;
  for (const auto& o : s.outputs()) {
    const std::vector<std::string> written = names_of(out);
    join(out, o->files(OutputContext{info, summary, written, label}));
  }
  return out;
}

OutputFiles report_files(const Simulation& s) {
  const RunInfo info;
  const nlohmann::json summary = nlohmann::json::object();
  const std::vector<std::string> written;
  OutputFiles out;
  for (const auto& r : s.reports()) {
    join(out, r->files(OutputContext{info, summary, written, ""}));
  }
  return out;
}

}  // namespace rocesim
