// Where a collective workload's ranks run: the GPUs of the servers it lists.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "rocesim/collective/algorithm.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {

// The ranks of a group: every GPU of each listed server (all servers if the list is empty). Errors name the key.
std::vector<RankPlace> select_ranks(const std::vector<int64_t>& servers, const YAML::Node& n, const ParseCtx& ctx,
                                    const std::string& path, const WorkloadContext& wc, const std::string& key);

}  // namespace rocesim
