#include "rocesim/io/report_html.hpp"

#include <string_view>

#include "rocesim/core/error.hpp"

namespace rocesim {

// Embedded at build time (cmake/embed.cmake): uPlot from npm, and report/app.js and report/report.css.
extern const std::string_view kUplotJs, kUplotCss, kReportJs, kReportCss;

namespace {

constexpr std::string_view kDataOpen = R"(<script type="application/json" id="rocesim-data">)";
constexpr std::string_view kDataClose = "</script>";

// JSON inside a <script> element: "</script" would end it early and "<!--" would change how the browser reads
// the rest, so every "<" (which JSON has only inside strings) is written as the same character's escape.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// The run data the page draws (analysis/report.hpp's report_data), checked element by element: a report whose
// data was edited or truncated is bad input naming the file and the element, not a JSON type error later.
void check_run(const nlohmann::json& run, const std::string& file, const std::string& at) {
  const auto bad = [&](const std::string& key, const std::string& expected) {
    return InputError(file, 0, key, "not a rocesim report (expected " + expected + ")");
  };
  if (!run.is_object()) {
    throw bad(at, "an object with a run's data");
  }
  const auto field = [&](const nlohmann::json& obj, const std::string& obj_at, const char* key,
                         nlohmann::json::value_t type, const char* expected) -> const nlohmann::json& {
    const auto it = obj.find(key);
    const std::string where = obj_at + "." + key;
    if (it == obj.end()) {
      throw bad(where, expected);
    }
    // Integers and floats are both numbers to the page.
    const bool number = type == nlohmann::json::value_t::number_float && it->is_number();
    if (!number && it->type() != type) {
      throw bad(where, expected);
    }
    return *it;
  };
  using T = nlohmann::json::value_t;
  field(run, at, "name", T::string, "a string");
  field(run, at, "summary", T::object, "an object");
  const nlohmann::json& cdf = field(run, at, "cdf", T::object, "an object");
  for (const char* key : {"fct_ns", "slowdown"}) {
    const nlohmann::json& points = field(cdf, at + ".cdf", key, T::array, "a list of [value, fraction] pairs");
    for (size_t i = 0; i < points.size(); ++i) {
      const nlohmann::json& p = points[i];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
        throw bad(at + ".cdf." + key + "." + std::to_string(i), "a [value, fraction] pair of numbers");
      }
    }
  }
  for (const char* key : {"top_flows", "top_ports"}) {
    const nlohmann::json& rows = field(run, at, key, T::array, "a list of objects");
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_object()) {
        throw bad(at + "." + key + "." + std::to_string(i), "an object");
      }
    }
  }
  const nlohmann::json& topo = field(run, at, "topology", T::object, "an object");
  const nlohmann::json& nodes = field(topo, at + ".topology", "nodes", T::array, "a list of objects");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_object()) {
      throw bad(at + ".topology.nodes." + std::to_string(i), "an object");
    }
  }
  const nlohmann::json& links = field(topo, at + ".topology", "links", T::array, "a list of objects");
  for (size_t i = 0; i < links.size(); ++i) {
    const std::string l_at = at + ".topology.links." + std::to_string(i);
    if (!links[i].is_object()) {
      throw bad(l_at, "an object");
    }
    // The page looks both ends up among the nodes.
    for (const char* end : {"from", "to"}) {
      const auto it = links[i].find(end);
      if (it == links[i].end() || !it->is_number_unsigned() || it->get<uint64_t>() >= nodes.size()) {
        throw bad(l_at + "." + end, "the index of a node");
      }
    }
  }
  if (run.contains("timeseries")) {
    const nlohmann::json& ts = field(run, at, "timeseries", T::object, "an object");
    field(ts, at + ".timeseries", "t_ns", T::array, "a list");
    const nlohmann::json& series = field(ts, at + ".timeseries", "series", T::array, "a list");
    for (size_t i = 0; i < series.size(); ++i) {
      const std::string s_at = at + ".timeseries.series." + std::to_string(i);
      if (!series[i].is_object()) {
        throw bad(s_at, "an object");
      }
      field(series[i], s_at, "values", T::array, "a list");
    }
  }
}

}  // namespace

std::string report_html(const std::vector<nlohmann::json>& runs, const std::string& note) {
  const nlohmann::json data = {{"version", ROCESIM_VERSION}, {"runs", runs}, {"note", note}};
  std::string h;
  h += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>rocesim report</title>\n<style>\n";
  h += kUplotCss;
  h += "\n</style>\n<style>\n";
  h += kReportCss;
  h += "\n</style>\n</head>\n<body>\n<div id=\"app\"></div>\n";
  h += kDataOpen;
  h += script_safe(data.dump());
  h += kDataClose;
  h += "\n<script>\n";
  h += kUplotJs;
  h += "\n</script>\n<script>\n";
  h += kReportJs;
  h += "\n</script>\n</body>\n</html>\n";
  return h;
}

std::vector<nlohmann::json> report_runs(const std::string& html, const std::string& file) {
  const size_t open = html.find(kDataOpen);
  const size_t from = open == std::string::npos ? open : open + kDataOpen.size();
  const size_t close = from == std::string::npos ? from : html.find(kDataClose, from);
  if (close == std::string::npos) {
    throw InputError(file, 0, "", "not a rocesim report (no run data in it)");
  }
  const nlohmann::json data = nlohmann::json::parse(html.substr(from, close - from), nullptr, false);
  if (!data.is_object() || !data.contains("runs") || !data["runs"].is_array() || data["runs"].empty()) {
    throw InputError(file, 0, "", "not a rocesim report (its run data is not readable)");
  }
  const nlohmann::json& runs = data["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    check_run(runs[i], file, "runs." + std::to_string(i));
  }
  return data["runs"].get<std::vector<nlohmann::json>>();
}

}  // namespace rocesim
