// Result files are written whole: each goes to a temporary name in the output folder and all are renamed into
// place at the end, so a run that fails leaves nothing that looks complete.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rocesim {

class ResultWriter {
 public:
  explicit ResultWriter(std::string dir) : dir_(std::move(dir)) {}
  ~ResultWriter();  // removes temporaries that were never committed
  // Writes `content` under a temporary name; throws std::runtime_error on I/O failure.
  void stage(const std::string& name, const std::string& content);
  // Renames every staged file into place.
  void commit();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // The names staged so far, in order.
  std::vector<std::string> names() const;
  // After commit(): removes the outputs of an earlier run in the folder that this run did not rewrite, so that
  // none looks current: the files the folder's old summary.json listed (`files`, read before commit) and the
  // fixed names rocesim writes. Returns the names removed.
  std::vector<std::string> remove_stale(const std::vector<std::string>& previous) const;
  // What the folder's summary.json (before this run replaces it) says an earlier run wrote; empty if none.
  std::vector<std::string> previous_outputs() const;

 private:
  std::string dir_;
  std::vector<std::pair<std::string, std::string>> staged_;  // temporary path, final path
  std::vector<std::string> written_;                         // names committed
};

}  // namespace rocesim
