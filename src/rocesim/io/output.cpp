#include "rocesim/io/output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rocesim/core/error.hpp"

namespace rocesim {

namespace {

namespace fs = std::filesystem;

std::string errno_text() { return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(); }

// What a path that is not a regular file is, for messages.
const char* kind_of(const fs::file_status& st) {
  switch (st.type()) {
    case fs::file_type::directory:
      return "a folder";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::character:
    case fs::file_type::block:
      return "a device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// A path rocesim may write: absent, or a regular file (links followed).
void check_writable_path(const std::string& target) {
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    throw InputError(target, 0, "",
                     std::string("is ") + kind_of(st) +
                         ", not a regular file: rocesim writes "
                         "results only to files (choose another name or folder)");
  }
}

// Whether process `pid` lives (a temporary or lock of a dead one is stale).
bool alive(long pid) { return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

}  // namespace

std::optional<std::string> result_name_error(const std::string& name) {
  if (name.empty() || name == "." || name == "..") {
    return "'" + name + "' is not a file name";
  }
  if (std::find(name.begin(), name.end(), '/') != name.end()) {
    return "a plain file name is needed, without '/' (it goes in the output folder)";
  }
  if (name.size() > kMaxResultName) {
    return fmt::format("a file name of {} bytes; at most {}", name.size(), kMaxResultName);
  }
  if (!is_plain_text(name)) {
    return "a file name with control bytes (tabs and line breaks included) or bytes that are not UTF-8";
  }
  if (name == ResultWriter::kLockFile) {
    return "the name of rocesim's lock file";
  }
  return std::nullopt;
}

std::string write_target(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {  // as the kernel's MAXSYMLINKS
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) {
      return p.string();
    }
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) {
      return p.string();
    }
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  throw InputError(path, 0, "", "too many levels of symbolic links");
}

ResultWriter::~ResultWriter() {
  for (const Staged& f : staged_) {
    std::error_code ec;
    fs::remove(f.tmp, ec);
  }
  if (lock_fd_ >= 0) {
    close(lock_fd_);  // releases the flock; the file stays, so that no second process locks another inode
  }
}

void ResultWriter::make_folder() const {
  if (dir_.empty()) {
    throw InputError("-o", 0, "", "the output folder is an empty name");
  }
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) {
    throw InputError(dir_, 0, "", "cannot be the output folder: " + (ec ? ec.message() : "it is not a folder"));
  }
}

void ResultWriter::prepare(const std::vector<std::string>& names, const std::vector<std::string>& inputs) {
  make_folder();
  std::error_code ec;
  lock_fd_ = open(path(kLockFile).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    throw InputError(dir_, 0, "", "cannot write in the output folder" + errno_text());
  }
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      char buf[32] = {};
      const ssize_t n = pread(lock_fd_, buf, sizeof buf - 1, 0);
      const long pid = n > 0 ? std::strtol(buf, nullptr, 10) : 0;
      close(lock_fd_);
      lock_fd_ = -1;
      throw InputError(dir_, 0, "",
                       fmt::format("in use by another rocesim{}: wait for it to end, or choose another folder",
                                   pid > 0 ? fmt::format(" (pid {})", pid) : ""));
    }
    // A file system without locks: go on unlocked.
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(lock_fd_, 0) != 0 || pwrite(lock_fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    throw InputError(dir_, 0, "", "cannot write in the output folder" + errno_text());
  }
  // Temporaries of processes that died (killed mid-write) are removed: none is a result.
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 5 && n[0] == '.' && n.ends_with(".tmp") && e.is_regular_file(ec)) {
      const std::string stem = n.substr(0, n.size() - 4);
      const size_t dot = stem.rfind('.');
      const long owner = dot == std::string::npos ? 0 : std::strtol(stem.c_str() + dot + 1, nullptr, 10);
      if (!alive(owner)) {
        fs::remove(e.path(), ec);
      }
    }
  }
  for (const std::string& name : names) {
    const std::string target = write_target(path(name));
    check_writable_path(target);
    for (const std::string& in : inputs) {
      if (fs::equivalent(target, in, ec)) {
        throw InputError(in, 0, "",
                         "an input of the run, and the output " + name + " in " + dir_ +
                             ": the results would replace it; choose another output folder (-o) or file name");
      }
    }
  }
}

void ResultWriter::stage(const std::string& name, const std::string& content) {
  make_folder();
  std::error_code ec;
  const std::string final_path = write_target(path(name));
  check_writable_path(final_path);
  const fs::path f(final_path);
  const std::string tmp =
      (f.parent_path() / ("." + f.filename().string() + "." + std::to_string(getpid()) + ".tmp")).string();
  errno = 0;
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (out) {
    out << content;
    out.close();
  }
  if (!out) {
    const std::string why = errno_text();
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write '" + tmp + "'" + why);
  }
  staged_.push_back({name, tmp, final_path});
}

std::vector<std::string> ResultWriter::names() const {
  std::vector<std::string> out;
  for (const Staged& f : staged_) {
    out.push_back(f.name);
  }
  return out;
}

std::vector<std::string> ResultWriter::previous_outputs() const {
  std::error_code ec;
  if (!fs::is_regular_file(path("summary.json"), ec)) {  // none, or something prepare() refuses
    return {};
  }
  std::ifstream in(path("summary.json"));
  if (!in) {
    return {};
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::vector<std::string> out;
  if (j.is_object() && j.contains("files") && j["files"].is_array()) {
    for (const auto& f : j["files"]) {
      // Only plain names: a file list never reaches outside the folder.
      if (f.is_string() && !result_name_error(f.get<std::string>())) {
        out.push_back(f.get<std::string>());
      }
    }
  }
  return out;
}

std::vector<std::string> ResultWriter::remove_stale(const std::vector<std::string>& candidates) const {
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
  while (!staged_.empty()) {
    fs::rename(staged_.front().tmp, staged_.front().target);
    written_.push_back(staged_.front().name);
    staged_.erase(staged_.begin());
  }
}

}  // namespace rocesim
