// PCIe bandwidth per direction of a link, after line encoding and the per-TLP framing a DMA payload pays.
//   Gen3-5: lanes x rate x 128/130 / 8 x MPS / (MPS + 24), where a TLP carrying MPS payload bytes adds a 4 B STP
//           framing token, a 16 B 4-DW header (64-bit address) and a 4 B LCRC (PCI Express Base Specification 4.0,
//           4.2.2.3 and 2.2).
//   Gen6:   FLIT mode: 236 of each 256-byte FLIT carry TLP bytes, and a TLP adds its 16 B header (PCIe 6.0, 4.2.3).
// Gen4 x16 with 256 B payloads: 31.5 GB/s encoded, 28.8 GB/s of payload; Gen5: 57.6 GB/s. NCCL's own model
// (NVIDIA/nccl src/graph/topo.cc) takes 24 and 48 GB/s; the PCI-SIG figures without TLP overhead are 31.5 and 63.
#pragma once

#include <cstdint>

#include "rocesim/core/units.hpp"

namespace rocesim {

// Transfer rate in GT/s per lane of a generation (3..6), 0 for any other.
double pcie_gt_per_s(int64_t gen);
// Payload bytes per second one direction of a link of `gen` x `lanes` carries, with TLPs of `max_payload` bytes.
double pcie_payload_bytes_per_s(int64_t gen, int64_t lanes, int64_t max_payload);

}  // namespace rocesim
