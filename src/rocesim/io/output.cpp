#include "rocesim/io/output.hpp"

#include <filesystem>
#include <fstream>
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

void ResultWriter::commit() {
  for (const auto& [tmp, final_path] : staged_) {
    std::filesystem::rename(tmp, final_path);
  }
  staged_.clear();
}

}  // namespace rocesim
