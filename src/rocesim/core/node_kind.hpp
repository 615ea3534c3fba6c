// What a node of the fabric is. A node is on links: a switch or a NIC; a server (app/host.hpp) is not a node, it
// holds NICs. New kinds (a GPU, a PCIe switch) are an enumerator here and a class deriving from Node.
#pragma once

#include <cstdint>

namespace rocesim {

enum class NodeKind : uint8_t { kSwitch, kNic };

}  // namespace rocesim
