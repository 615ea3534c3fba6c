#include "rocesim/server/server.hpp"

#include <algorithm>

#include "rocesim/server/pcie.hpp"

namespace rocesim {
namespace {
Check<int64_t> lanes(bool zero_ok) {
  return [zero_ok](const int64_t& v) -> std::optional<std::string> {
    if ((v == 0 && zero_ok) || v == 1 || v == 2 || v == 4 || v == 8 || v == 16) {
      return std::nullopt;
    }
    return std::string("must be 1, 2, 4, 8 or 16") + (zero_ok ? " (or 0)" : "");
  };
}
Check<int64_t> generation_or_zero() {
  return [](const int64_t& v) -> std::optional<std::string> {
    if (v == 0 || (v >= 3 && v <= 6)) {
      return std::nullopt;
    }
    return "must be a PCIe generation from 3 to 6 (or 0)";
  };
}
Check<Bytes> max_payload() {
  return [](const Bytes& v) -> std::optional<std::string> {
    const int64_t b = v.count();
    if (b >= 128 && b <= 4096 && (b & (b - 1)) == 0) {
      return std::nullopt;
    }
    return "must be a power of two from 128B to 4096B";
  };
}
}  // namespace

const Schema<ServerParams>& ServerParams::schema() {
  static const Schema<ServerParams> s = [] {
    Schema<ServerParams> sc("server", "what is inside each server: GPUs, PCIe, NVLink, host memory");
    sc.add(&ServerParams::gpus, "gpus", "0",
           "GPUs per server; 0: no server model (NICs move data to memory at line rate)", in_range<int64_t>(0, 64))
        .reserved("preset", "dgx-h100, dgx-a100 or pcie-gen4: a server build's values as defaults")
        .add(&ServerParams::layout, "layout", "switch",
             "switch: GPUs and NICs share PCIe switches (gpus_per_switch GPUs and as many NICs each), the switches "
             "uplinked to the CPU; root: every GPU and NIC on a CPU root port",
             one_of({"switch", "root"}))
        .add(&ServerParams::gpus_per_switch, "gpus_per_switch", "1", "with layout switch: GPUs under each PCIe switch",
             in_range<int64_t>(1, 64))
        .add(&ServerParams::pcie_gen, "pcie_gen", "5", "PCIe generation of the GPU links and switch uplinks",
             in_range<int64_t>(3, 6))
        .add(&ServerParams::pcie_lanes, "pcie_lanes", "16", "lanes of those links", lanes(false))
        .add(&ServerParams::nic_pcie_gen, "nic_pcie_gen", "0",
             "PCIe generation of each NIC's link (0: pcie_gen); a 400G NIC on Gen4 x16 cannot move line rate",
             generation_or_zero())
        .add(&ServerParams::nic_pcie_lanes, "nic_pcie_lanes", "0", "lanes of each NIC's link (0: pcie_lanes)",
             lanes(true))
        .add(&ServerParams::pcie_max_payload, "pcie_max_payload", "256B",
             "PCIe maximum payload size: each TLP of this much data adds 24 B (Gen6: 16 B) of framing and header",
             max_payload())
        .add(&ServerParams::root_p2p, "root_p2p", "1",
             "share of the link bandwidth peer-to-peer transfers keep when they cross the CPU root complex (some "
             "processors limit it severely: NVIDIA, \"Benchmarking GPUDirect RDMA on Modern Server Platforms\")",
             in_range<double>(0.001, 1))
        .add(&ServerParams::nvswitch, "nvswitch", "false", "GPUs joined by NVLink through NVSwitch")
        .add(&ServerParams::nvlink, "nvlink", "380GB/s", "NVLink bandwidth per GPU and direction, with nvswitch")
        .add(&ServerParams::host_memory, "host_memory", "614.4GB/s", "host memory bandwidth (both directions)")
        .add(&ServerParams::gpu_reduce, "gpu_reduce", "1117GB/s",
             "bytes per second a GPU reduces (two operands read, one result written: HBM bandwidth / 3)")
        .add(&ServerParams::gpudirect, "gpudirect", "true",
             "NICs read and write GPU memory directly (GPUDirect RDMA); false: data is staged through host memory "
             "with a copy at each end")
        .add(&ServerParams::memcpy_latency, "memcpy_latency", "7.5us",
             "fixed cost of a staging copy (cudaMemcpy) between GPU and host memory, the CPU busy throughout",
             at_least(Time()))
        .add(&ServerParams::cpu_cores, "cpu_cores", "32",
             "CPU cores that run the kernel's TCP; each connection stays on one (receive-side scaling)",
             in_range<int64_t>(1, 4096), "cores")
        .add(&ServerParams::cpu_ghz, "cpu_ghz", "3", "clock of those cores", in_range(0.1, 10.0), "GHz");
    return sc;
  }();
  return s;
}

const std::vector<Preset>& server_presets() {
  static const std::vector<Preset> all = {
      {"dgx-h100",
       "NVIDIA DGX H100: 8 H100 SXM, each with its ConnectX-7 (400G) under one PCIe Gen5 x16 switch (DGX H100 user "
       "guide, \"Hardware Overview\"); NVSwitch with 380 GB/s per GPU and direction as measured by "
       "p2pBandwidthLatencyTest (NVIDIA/nccl issue 1264; 450 GB/s by specification); HBM3 3.35 TB/s (H100 SXM data "
       "sheet) / 3 for reductions; host memory 2 x 8 channels of DDR5-4800 (Xeon Platinum 8480C) = 614.4 GB/s",
       R"(gpus: 8
layout: switch
gpus_per_switch: 1
pcie_gen: 5
pcie_lanes: 16
nvswitch: true
nvlink: 380GB/s
gpu_reduce: 1117GB/s
host_memory: 614.4GB/s
)"},
      {"dgx-a100",
       "NVIDIA DGX A100: 8 A100 SXM and 8 ConnectX-6 (200G) on 4 PCIe Gen4 switches, 2 GPUs and 2 NICs each (DGX "
       "A100 system architecture white paper); NVSwitch with 240 GB/s per GPU and direction (12 NVLink 3 links at "
       "NCCL's 20 GB/s, NVIDIA/nccl src/graph/topo.h; 300 GB/s by specification); HBM2e 2.039 TB/s (A100 80GB "
       "data sheet) / 3 for reductions; host memory 2 x 8 channels of DDR4-3200 (EPYC 7742) = 409.6 GB/s",
       R"(gpus: 8
layout: switch
gpus_per_switch: 2
pcie_gen: 4
pcie_lanes: 16
nvswitch: true
nvlink: 240GB/s
gpu_reduce: 680GB/s
host_memory: 409.6GB/s
)"},
      {"pcie-gen4",
       "A PCIe-only GPU server: 8 GPUs (L40S-class, GDDR6 864 GB/s: L40S data sheet, / 3 for reductions) and the "
       "NICs on the CPU's PCIe Gen4 x16 root ports, no NVLink: GPUs reach each other and their NICs through the "
       "root complex; host memory 2 x 8 channels of DDR4-3200 = 409.6 GB/s",
       R"(gpus: 8
layout: root
pcie_gen: 4
pcie_lanes: 16
nvswitch: false
gpu_reduce: 288GB/s
host_memory: 409.6GB/s
)"},
  };
  return all;
}

std::optional<PresetUse> apply_server_preset(YAML::Node& server, const ParseCtx& ctx) {
  return apply_preset(server, "server", server_presets(), ctx);
}

uint16_t ServerModel::add(std::string name, double bytes_per_s) {
  capacity_.push_back(bytes_per_s);
  names_.push_back(std::move(name));
  return static_cast<uint16_t>(capacity_.size() - 1);
}

ServerModel::ServerModel(const ServerParams& p, size_t nics) : p_(p), nics_(std::max<size_t>(nics, 1)) {
  const int64_t mps = p.pcie_max_payload.count();
  const double link = pcie_payload_bytes_per_s(p.pcie_gen, p.pcie_lanes, mps);
  const double nic_link = pcie_payload_bytes_per_s(p.nic_pcie_gen ? p.nic_pcie_gen : p.pcie_gen,
                                                   p.nic_pcie_lanes ? p.nic_pcie_lanes : p.pcie_lanes, mps);
  const size_t g = gpus();
  const bool switched = p.layout == "switch";
  const size_t per_sw = static_cast<size_t>(p.gpus_per_switch);
  const size_t switches = switched ? std::max<size_t>(1, (g + per_sw - 1) / per_sw) : 0;
  const size_t nics_per_sw = switched ? (nics_ + switches - 1) / switches : 0;
  for (size_t s = 0; s < switches; ++s) {
    const std::string n = "pcie_switch" + std::to_string(s) + ".uplink";
    const uint16_t up = add(n + ".up", link);
    uplink_.push_back({up, add(n + ".down", link)});
  }
  for (size_t i = 0; i < g; ++i) {
    const std::string n = "gpu" + std::to_string(i) + ".pcie";
    const uint16_t up = add(n + ".up", link);
    gpu_.push_back({up, add(n + ".down", link), switched ? static_cast<int>(i / per_sw) : -1});
  }
  for (size_t k = 0; k < nics_; ++k) {
    const std::string n = "nic" + std::to_string(k) + ".pcie";
    const uint16_t up = add(n + ".up", nic_link);
    nic_.push_back(
        {up, add(n + ".down", nic_link), switched ? static_cast<int>(std::min(k / nics_per_sw, switches - 1)) : -1});
  }
  root_p2p_ = add("root_complex.p2p", p.root_p2p * link);
  memory_ = add("host_memory", static_cast<double>(p.host_memory.bps()) / 8);
  nvl_first_ = static_cast<uint16_t>(capacity_.size());
  for (size_t i = 0; i < g; ++i) {
    add("gpu" + std::to_string(i) + ".nvlink.out", static_cast<double>(p.nvlink.bps()) / 8);
    add("gpu" + std::to_string(i) + ".nvlink.in", static_cast<double>(p.nvlink.bps()) / 8);
  }
  for (size_t i = 0; i < g; ++i) {
    reduce_.push_back(add("gpu" + std::to_string(i) + ".reduce", static_cast<double>(p.gpu_reduce.bps()) / 8));
  }
}

std::vector<uint16_t> ServerModel::path(Place from, Place to) const {
  std::vector<uint16_t> out;
  path(from, to, out);
  return out;
}

void ServerModel::path(Place from, Place to, std::vector<uint16_t>& out) const {
  if (from.kind == Place::kGpu && to.kind == Place::kGpu && p_.nvswitch) {
    out.push_back(static_cast<uint16_t>(nvl_first_ + 2 * from.index));
    out.push_back(static_cast<uint16_t>(nvl_first_ + 2 * to.index + 1));
    return;
  }
  // Up from the source to the lowest point shared with the destination, then down to it.
  int src_sw = -1, dst_sw = -1;
  if (from.kind != Place::kHost) {
    const Attach a = attach(from);
    out.push_back(a.up);
    src_sw = a.sw;
  } else {
    out.push_back(memory_);
  }
  if (to.kind != Place::kHost) {
    dst_sw = attach(to).sw;
  }
  const bool same_switch = from.kind != Place::kHost && to.kind != Place::kHost && src_sw >= 0 && src_sw == dst_sw;
  if (!same_switch) {
    if (src_sw >= 0) {
      out.push_back(uplink_[static_cast<size_t>(src_sw)].first);
    }
    if (from.kind != Place::kHost && to.kind != Place::kHost) {
      out.push_back(root_p2p_);  // device to device through the root complex
    }
    if (dst_sw >= 0) {
      out.push_back(uplink_[static_cast<size_t>(dst_sw)].second);
    }
  }
  if (to.kind != Place::kHost) {
    out.push_back(attach(to).down);
  } else {
    out.push_back(memory_);
  }
}

double ServerModel::path_rate(Place from, Place to) const {
  double r = 1e300;
  for (uint16_t x : path(from, to)) {
    r = std::min(r, capacity_[x]);
  }
  return r;
}

bool ServerModel::touches_host_memory(const std::vector<uint16_t>& path) const {
  return std::find(path.begin(), path.end(), memory_) != path.end();
}

}  // namespace rocesim
