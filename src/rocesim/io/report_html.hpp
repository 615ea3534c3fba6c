// report.html: one self-contained page (its scripts, styles and data inline; nothing fetched) that draws the
// report data of one or more runs (analysis/report.hpp) in a browser.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rocesim {

// The page for `runs` (each a report_data() object), overlaid: a column or a colour per run; `note`, if any, is
// shown at the top.
std::string report_html(const std::vector<nlohmann::json>& runs, const std::string& note = "");

// The runs a report.html written by report_html() holds. Throws InputError naming `file` if it holds none.
std::vector<nlohmann::json> report_runs(const std::string& html, const std::string& file);

}  // namespace rocesim
