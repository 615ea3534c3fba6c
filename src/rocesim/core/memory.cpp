#include "rocesim/core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rocesim {

namespace {

// A file's first number ("max", missing or unreadable: nullopt).
std::optional<double> number_in(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") {
    return std::nullopt;
  }
  try {
    size_t used = 0;
    const double v = std::stod(word, &used);
    return used == word.size() && v >= 0 ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A field of /proc/self/status in bytes ("VmSize:   123 kB"), 0 if absent.
double status_bytes(const std::string& status, const std::string& field) {
  std::ifstream in(status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream ss(line.substr(field.size() + 1));
      double kb = 0;
      ss >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

// A limit already used up leaves one byte: nothing fits.
void take_lower(MemoryLimit& limit, double bytes, const std::string& source) {
  const double left = std::max(bytes, 1.0);
  if (left < limit.bytes) {
    limit = {left, source};
  }
}

}  // namespace

std::optional<MemoryLimit> cgroup_memory_limit(const MemorySources& from) {
  std::ifstream in(from.proc_self_cgroup);
  std::string line;
  std::optional<MemoryLimit> least;
  while (std::getline(in, line)) {
    // "0::/path" (v2), or "N:memory:/path" and "N:cpu,memory:/path" (v1).
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) {
      continue;
    }
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::filesystem::path group = line.substr(b + 1);
    const bool v2 = controllers.empty();
    if (!v2 && ("," + controllers + ",").find(",memory,") == std::string::npos) {
      continue;
    }
    const std::filesystem::path root = v2 ? from.cgroup_root : from.cgroup_root + "/memory";
    // A limit on any group above holds too.
    for (std::filesystem::path g = group; !g.empty(); g = g.parent_path()) {
      const std::string dir = (root / g.relative_path()).string();
      const auto max = number_in(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
      if (max && *max < 1e18) {  // v1 writes "no limit" as a huge number
        const double used = number_in(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes")).value_or(0);
        const double left = *max - used;
        if (!least || left < least->bytes) {
          least = MemoryLimit{std::max(left, 1.0), "the control group's memory limit (" + dir + ")"};
        }
      }
      if (g == g.parent_path()) {
        break;
      }
    }
  }
  return least;
}

double resident_bytes() {
  std::ifstream in("/proc/self/statm");
  double size = 0, resident = 0;
  if (!(in >> size >> resident)) {
    return 0;
  }
  return resident * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

MemoryLimit machine_memory_limit(const MemorySources& from) {
  MemoryLimit limit{static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE)),
                    "the machine's memory"};
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    take_lower(limit, static_cast<double>(r.rlim_cur) - status_bytes(from.proc_self_status, "VmSize"), "ulimit -v");
  }
  if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    take_lower(limit, static_cast<double>(r.rlim_cur) - status_bytes(from.proc_self_status, "VmData"), "ulimit -d");
  }
  if (const auto cg = cgroup_memory_limit(from)) {
    take_lower(limit, cg->bytes, cg->source);
  }
  return limit;
}

}  // namespace rocesim
