#include "rocesim/workload/ranks.hpp"

namespace rocesim {

std::vector<RankPlace> select_ranks(const std::vector<int64_t>& servers, const YAML::Node& n, const ParseCtx& ctx,
                                    const std::string& path, const WorkloadContext& wc, const std::string& key) {
  if (wc.gpus_per_server <= 0) {
    throw InputError(ctx.file, line_of(n), path + ".type",
                     "a collective runs between GPUs: set server.gpus or server.preset (e.g. dgx-h100)");
  }
  std::vector<int64_t> list = servers;
  if (list.empty()) {
    for (size_t s = 0; s < wc.server_nics.size(); ++s) {
      list.push_back(static_cast<int64_t>(s));
    }
  }
  std::vector<RankPlace> out;
  std::vector<bool> seen(wc.server_nics.size(), false);
  for (int64_t s : list) {
    if (s < 0 || s >= static_cast<int64_t>(wc.server_nics.size())) {
      throw InputError(
          ctx.file, line_of(n[key]), path + "." + key,
          "server " + std::to_string(s) + " does not exist (0.." + std::to_string(wc.server_nics.size() - 1) + ")");
    }
    if (seen[static_cast<size_t>(s)]) {
      throw InputError(ctx.file, line_of(n[key]), path + "." + key, "server " + std::to_string(s) + " is listed twice");
    }
    seen[static_cast<size_t>(s)] = true;
    const std::vector<uint32_t>& nics = wc.server_nics[static_cast<size_t>(s)];
    for (int64_t g = 0; g < wc.gpus_per_server; ++g) {
      out.push_back({static_cast<uint32_t>(s), static_cast<uint32_t>(g), nics[static_cast<size_t>(g) % nics.size()]});
    }
  }
  return out;
}

}  // namespace rocesim
