// A GPU server's inside: GPUs, NICs, PCIe links and switches up to the CPU's root complex and host memory, and
// NVLink through NVSwitch between the GPUs. The scenario's `server` section describes one build shared by every
// server of the cluster; `ServerModel` turns it into capacities and the paths data takes between memories.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/presets.hpp"

namespace rocesim {

struct ServerParams {
  int64_t gpus = 0;  // 0: no server model (NICs move data to memory at line rate)
  std::string layout;
  int64_t gpus_per_switch = 0;
  int64_t pcie_gen = 0, pcie_lanes = 0, nic_pcie_gen = 0, nic_pcie_lanes = 0;
  Bytes pcie_max_payload;
  double root_p2p = 1;  // the share of link bandwidth peer-to-peer traffic keeps across the root complex
  bool nvswitch = false;
  Rate nvlink;       // per GPU and direction, through NVSwitch
  Rate host_memory;  // the host's memory bandwidth, both directions together
  Rate gpu_reduce;   // bytes a GPU reduces per second (reads two operands, writes the result)
  bool gpudirect = true;
  Time memcpy_latency;    // fixed cost of each staging copy (cudaMemcpy) between GPU and host memory
  int64_t cpu_cores = 0;  // the cores and clock kernel TCP runs on (server/cpu.hpp)
  double cpu_ghz = 0;
  static const Schema<ServerParams>& schema();
};

const std::vector<Preset>& server_presets();
// Fills in `server.preset`'s values the scenario left out (see apply_preset).
std::optional<PresetUse> apply_server_preset(YAML::Node& server, const ParseCtx& ctx);

// Where data sits or goes inside a server.
struct Place {
  enum Kind : uint8_t { kHost, kGpu, kNic } kind = kHost;
  uint32_t index = 0;
  static Place host() { return {kHost, 0}; }
  static Place gpu(uint32_t g) { return {kGpu, g}; }
  static Place nic(uint32_t k) { return {kNic, k}; }
};

// Contract: immutable once built; every server of a cluster may share one. Resources are the directions of the
// PCIe links (device links and switch uplinks), the root complex's peer-to-peer capacity, host memory, each
// GPU's NVLink out and in, and each GPU's reduction engine; a path lists the resources a transfer holds.
class ServerModel {
 public:
  ServerModel(const ServerParams& p, size_t nics);

  const ServerParams& params() const { return p_; }
  size_t gpus() const { return static_cast<size_t>(p_.gpus); }
  size_t nics() const { return nics_; }
  // The NIC a GPU sends and receives through: the NIC under its PCIe switch (GPU g uses NIC g mod nics).
  uint32_t nic_of_gpu(uint32_t g) const { return static_cast<uint32_t>(g % nics_); }

  size_t resources() const { return capacity_.size(); }
  double capacity(size_t r) const { return capacity_[r]; }  // bytes per second
  const std::string& resource_name(size_t r) const { return names_[r]; }
  // Resources data holds on its way from one place to another (NVLink between GPUs when the server has it).
  std::vector<uint16_t> path(Place from, Place to) const;
  // The same, appended to `out` (no allocation once `out` has room).
  void path(Place from, Place to, std::vector<uint16_t>& out) const;
  // The resource that a GPU's reduction holds.
  uint16_t reduce(uint32_t gpu) const { return reduce_[gpu]; }
  // The least capacity on the path, bytes per second.
  double path_rate(Place from, Place to) const;
  // Whether a path's bytes cross host memory (staging) or NVLink.
  bool touches_host_memory(const std::vector<uint16_t>& path) const;
  bool is_nvlink(uint16_t r) const { return r >= nvl_first_ && r < nvl_first_ + 2 * gpus(); }
  // What a resource is, for the use each server reports.
  uint16_t host_memory() const { return memory_; }
  uint16_t nvlink_out(uint32_t gpu) const { return static_cast<uint16_t>(nvl_first_ + 2 * gpu); }
  std::pair<uint16_t, uint16_t> gpu_pcie(uint32_t gpu) const { return {gpu_[gpu].up, gpu_[gpu].down}; }

 private:
  uint16_t add(std::string name, double bytes_per_s);
  // A device's link to its switch (or root port): its up and down resources, and its switch (-1: on the root).
  struct Attach {
    uint16_t up = 0, down = 0;
    int sw = -1;
  };
  Attach attach(Place p) const { return p.kind == Place::kGpu ? gpu_[p.index] : nic_[p.index]; }

  ServerParams p_;
  size_t nics_;
  std::vector<double> capacity_;
  std::vector<std::string> names_;
  std::vector<Attach> gpu_, nic_;
  std::vector<std::pair<uint16_t, uint16_t>> uplink_;  // per PCIe switch: up, down
  uint16_t root_p2p_ = 0, memory_ = 0;
  uint16_t nvl_first_ = 0;  // GPU g's NVLink out is nvl_first_ + 2g, in is + 2g + 1
  std::vector<uint16_t> reduce_;
};

}  // namespace rocesim
