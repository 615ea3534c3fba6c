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

 private:
  std::string dir_;
  std::vector<std::pair<std::string, std::string>> staged_;  // temporary path, final path
};

}  // namespace rocesim
