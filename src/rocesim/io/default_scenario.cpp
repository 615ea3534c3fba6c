#include "rocesim/io/scenario.hpp"

namespace rocesim {

const char* const kDefaultScenario =
    R"(# The default scenario: 16 hosts on a 2-leaf, 2-spine fabric (100G hosts, 400G fabric).
# Seven hosts write 2 MB each to host 0 (an incast that fills the leaf's buffer, so ECN marks,
# DCQCN cuts rates and PFC pauses the senders), while every other host runs a 1 MB permutation.
name: default
seed: 1
stop: 5ms
topology:
  type: leaf-spine
  leaves: 2
  spines: 2
  servers_per_leaf: 8
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 400Gbps, delay: 1us}
switch:
  buffer: 4MB
  pfc: {priorities: [3]}
  ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.2}
nic:
  cc: dcqcn
  mtu: 4096
workload:
  - type: incast
    receiver: 0
    senders: 7
    size: 2MB
    priority: 3
  - type: permutation
    size: 1MB
    spread: 20us
    priority: 3
)";

}  // namespace rocesim
