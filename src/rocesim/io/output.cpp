#include "rocesim/io/output.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace rocesim {

ResultWriter::~ResultWriter() {
  for (const auto& [tmp, final_path] : staged_) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
  }
}

void ResultWriter::stage(const std::string& name, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder '" + dir_ + "': " + ec.message());
  }
  const std::string final_path = path(name);
  const std::string tmp = dir_ + "/." + name + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw std::runtime_error("cannot write '" + tmp + "'");
  }
  out << content;
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write '" + tmp + "'");
  }
  staged_.push_back({tmp, final_path});
}

std::vector<std::string> ResultWriter::names() const {
  std::vector<std::string> out;
  for (const auto& [tmp, final_path] : staged_) {
    out.push_back(std::filesystem::path(final_path).filename().string());
  }
  return out;
}

std::vector<std::string> ResultWriter::previous_outputs() const {
  std::ifstream in(path("summary.json"));
  if (!in) {
    return {};
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::vector<std::string> out;
  if (j.is_object() && j.contains("files") && j["files"].is_array()) {
    for (const auto& f : j["files"]) {
      // Only plain names: a file list never reaches outside the folder.
      if (f.is_string() && f.get<std::string>().find('/') == std::string::npos && f.get<std::string>() != "..") {
        out.push_back(f.get<std::string>());
      }
    }
  }
  return out;
}

std::vector<std::string> ResultWriter::remove_stale(const std::vector<std::string>& previous) const {
  // What every run, or a run with that option, writes under a fixed name (docs/outputs.md).
  std::vector<std::string> candidates = {"summary.json",    "flows.csv",      "ports.csv",      "nics.csv",
                                         "fct_buckets.csv", "timeseries.csv", "victims.csv",    "perftest.txt",
                                         "perftest.csv",    "capture.pcap",   "capture.pcapng", "report.html",
                                         "trace.json"};
  candidates.insert(candidates.end(), previous.begin(), previous.end());
  std::vector<std::string> removed;
  for (const std::string& name : candidates) {
    if (std::find(written_.begin(), written_.end(), name) != written_.end() ||
        std::find(removed.begin(), removed.end(), name) != removed.end()) {
      continue;
    }
    std::error_code ec;
    if (std::filesystem::is_regular_file(path(name), ec) && std::filesystem::remove(path(name), ec)) {
      removed.push_back(name);
    }
  }
  return removed;
}

void ResultWriter::commit() {
  for (const auto& [tmp, final_path] : staged_) {
    std::filesystem::rename(tmp, final_path);
    written_.push_back(std::filesystem::path(final_path).filename().string());
  }
  staged_.clear();
}

}  // namespace rocesim
