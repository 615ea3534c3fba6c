// What the commands share: loading a scenario, telling the user, reading and writing whole files.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim::cli {

// Warnings quote the input: control bytes in it are shown escaped, never sent to the terminal.
void warn(const std::string& w);
// The scenario at `path` (the built-in default if empty), with its memory limit.
Scenario load(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed);
// A scenario from the HPCC ns-3 simulator's config.txt; its warnings go to stderr.
Scenario load_hpcc(const std::string& config, const std::vector<std::string>& sets, std::optional<int64_t> seed);
// The simulation's warnings and notes, on stderr.
void print_warnings(const Simulation& s);
// Writes one file whole (a temporary, renamed into place), with no interrupt cutting it short.
// `inputs`: the files the command read, which the output must not replace.
void write_whole(const std::string& path, const std::string& text, const std::vector<std::string>& inputs = {});
std::string read_text(const std::string& path);
// How a report names a run: its result folder's last component.
std::string run_label(const std::string& dir);
// The report data of the run in `dir` (its report.html), labelled `label`.
nlohmann::json run_report(const std::string& dir, const std::string& label);
// This program's path.
std::string self_exe();

}  // namespace rocesim::cli
