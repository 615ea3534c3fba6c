// How much memory a run may take: what the machine, the process's limits and its control group allow.
#pragma once

#include <optional>
#include <string>

namespace rocesim {

struct MemoryLimit {
  double bytes = 0;    // 0: no limit
  std::string source;  // what sets it, for messages: "the machine's memory", "ulimit -v", ...
};

// Where the limits are read from; tests point them at files of their own.
struct MemorySources {
  std::string proc_self_cgroup = "/proc/self/cgroup";
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string proc_self_status = "/proc/self/status";
};

// The least of: the machine's physical memory; the address-space and data-segment limits (ulimit -v, -d:
// RLIMIT_AS, RLIMIT_DATA) less what the process holds already (VmSize, VmData); and the memory.max of the control
// group the process runs in or any group above it (cgroup v2; memory.limit_in_bytes in v1) less its
// memory.current, as containers and Slurm jobs set them.
MemoryLimit machine_memory_limit(const MemorySources& from = {});

// The memory the process holds now (resident set, /proc/self/statm), 0 if unknown.
double resident_bytes();

// The cgroup's own limit alone (none: nullopt), for tests.
std::optional<MemoryLimit> cgroup_memory_limit(const MemorySources& from);

}  // namespace rocesim
