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
  return data["runs"].get<std::vector<nlohmann::json>>();
}

}  // namespace rocesim
